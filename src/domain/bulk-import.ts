import { InvalidInputError, NotFoundError } from "./errors.js";
import type { BulkImported, NewRecord, Store } from "../store/store.js";

/** Records per batch handed to the store: what memory holds of an import at a time. */
export const BULK_BATCH = 10_000;

/**
 * Loads records into one bloc through the store's bulk path (Store.bulkImport): all of
 * them or, if anything fails (the source throws, the database refuses a value), none.
 * The source is read as the store writes, a batch at a time, so an import of any size
 * holds one batch in memory. The counters end exactly as if each record had been
 * imported alone; they are counted in SQL after the records are written.
 *
 * A trusted path, like importRecords (seeding, copies, an operator's import): it checks
 * none of the bloc's rules — required fields, types and formats, unique values,
 * autogenerate numbering, scan limits, whether the bloc accepts data — and writes each
 * record as given (new IDs, the given owner and time). A caller taking records from
 * outside (a CSV import) checks each one with the field rules before it is handed here.
 */
export async function bulkImportRecords(
  store: Store, blocId: string, records: Iterable<NewRecord> | AsyncIterable<NewRecord>, batchSize = BULK_BATCH,
): Promise<BulkImported> {
  if (!(await store.findBloc(blocId))) throw new NotFoundError(`Bloc "${blocId}" does not exist`);
  const batches = async function* (): AsyncGenerator<NewRecord[]> {
    let batch: NewRecord[] = [];
    for await (const record of records) {
      if (record.blocId !== blocId) throw new InvalidInputError(`a record of bloc "${record.blocId}" in an import into "${blocId}"`);
      batch.push(record);
      if (batch.length >= batchSize) {
        yield batch;
        batch = [];
      }
    }
    if (batch.length > 0) yield batch;
  };
  return store.bulkImport(blocId, batches());
}

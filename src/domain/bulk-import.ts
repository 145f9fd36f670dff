import { InvalidInputError, NotFoundError } from "./errors.js";
import type { BulkImported, NewRecord, Store } from "./ports/store.js";
import { CounterDeltas } from "./counting/deltas.js";
import { layoutOf } from "./counting/keys.js";
import { recountBloc } from "./counting/recount.js";
import { settleCounters } from "./counting/settle.js";

/** Records per batch handed to the store: what memory holds of an import at a time. */
export const BULK_BATCH = 10_000;
/** Counter keys a load keeps in memory to settle as a write does; past them, the bloc is recounted once loaded. */
const BULK_DELTA_KEYS = 100_000;

/**
 * Loads records into one bloc through the store's bulk path (Store.maintenance.bulkImport): all of
 * them or, if anything fails (the source throws, the database refuses a value), none.
 * The source is read as the store writes, a batch at a time, so an import of any size
 * holds one batch in memory. The counters end exactly as if each record had been
 * imported alone: a load small enough to keep its counter changes in memory settles them
 * as any write does; a larger one recounts the bloc from its records once loaded.
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
  const bloc = await store.blocs.findBloc(blocId);
  if (!bloc) throw new NotFoundError(`Bloc "${blocId}" does not exist`);
  const layout = layoutOf(bloc);
  let deltas: CounterDeltas | undefined = new CounterDeltas();
  const batches = async function* (): AsyncGenerator<NewRecord[]> {
    let batch: NewRecord[] = [];
    for await (const record of records) {
      if (record.blocId !== blocId) throw new InvalidInputError(`a record of bloc "${record.blocId}" in an import into "${blocId}"`);
      if (deltas) {
        deltas.add(record, layout, 1);
        if (deltas.size > BULK_DELTA_KEYS) deltas = undefined;
      }
      batch.push(record);
      if (batch.length >= batchSize) {
        yield batch;
        batch = [];
      }
    }
    if (batch.length > 0) yield batch;
  };
  return store.maintenance.bulkImport(blocId, batches(), (tx) => (deltas ? settleCounters(tx, deltas) : recountBloc(tx, blocId)));
}

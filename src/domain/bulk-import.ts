import { InvalidInputError, NotFoundError } from "./errors.js";
import type { BulkImported, NewRecord, Store } from "./ports/store.js";
import { CounterDeltas } from "./counting/deltas.js";
import { layoutOf, type Layout } from "./counting/keys.js";
import { recountBloc } from "./counting/recount.js";
import { settleCounters } from "./counting/settle.js";

/** Records per batch handed to the store: what memory holds of an import at a time. */
export const BULK_BATCH = 10_000;
/** Counter keys a load keeps in memory to settle as a write does; past them, the bloc is recounted once loaded. */
const BULK_DELTA_KEYS = 100_000;

/** A load's counter changes, when they stay within what memory keeps for them. */
function countedWhole(records: readonly NewRecord[], layout: Layout): CounterDeltas | undefined {
  const deltas = new CounterDeltas();
  for (const record of records) {
    deltas.add(record, layout, 1);
    if (deltas.size > BULK_DELTA_KEYS) return undefined;
  }
  return deltas;
}

/**
 * Loads records into one bloc through the store's bulk path (Store.maintenance.bulkImport): all of
 * them or, if anything fails (the source throws, the database refuses a value), none.
 * The source is read as the store writes, a batch at a time, so an import of any size
 * holds one batch in memory. The counters end exactly as if each record had been
 * imported alone: a load of one batch whose counter changes fit in memory settles them
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
  // Counted as it is read only when the whole load is one batch: a longer one is recounted
  // once loaded, and what was counted on the way would be thrown away (tens of keys per record).
  let deltas: CounterDeltas | undefined;
  const batches = async function* (): AsyncGenerator<NewRecord[]> {
    let batch: NewRecord[] = [];
    let more = false;
    for await (const record of records) {
      if (record.blocId !== blocId) throw new InvalidInputError(`a record of bloc "${record.blocId}" in an import into "${blocId}"`);
      // A full batch is handed on only once a record after it came: then the load is known to be longer.
      if (batch.length >= batchSize) {
        more = true;
        yield batch;
        batch = [];
      }
      batch.push(record);
    }
    if (!more) deltas = countedWhole(batch, layout);
    if (batch.length > 0) yield batch;
  };
  return store.maintenance.bulkImport(blocId, batches(), (tx) => (deltas ? settleCounters(tx, deltas) : recountBloc(tx, blocId)));
}

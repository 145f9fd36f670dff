/**
 * Counter keys a bulk load (Store.bulkImport) holds in memory, counted by the domain's
 * own rules (CounterDeltas.add, as every other write counts), before merging them into
 * the counter tables with the engine's ordinary counter writer: memory stays flat
 * whatever the load's size (some 50 MB), and each counter row is written once per round
 * however many records of the round share it. Counting in SQL after the load instead
 * (json_each / jsonb_each_text, GROUP BY, ON CONFLICT) measured 2.5 times slower on
 * SQLite and 1.5 times on PostgreSQL: grouping ~30 value rows per record dominated.
 */
export const BULK_COUNTER_ROWS = 200_000;

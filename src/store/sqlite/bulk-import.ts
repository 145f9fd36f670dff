import { CounterDeltas } from "../../domain/counters.js";
import { BULK_COUNTER_ROWS } from "../bulk-counters.js";
import type { BulkImported, NewRecord } from "../store.js";
import { writeCounters } from "./session.js";
import type { Param, Statements } from "./statements.js";

/*
 * Bulk loads: records written many to a statement inside one transaction, their counters
 * counted as they go and merged into the bloc's in bounded rounds (bulk-counters.ts).
 */

/** Records per INSERT: 7 parameters each, far below SQLite's limit of 32,766. */
const ROWS_PER_STATEMENT = 100;
const COLUMNS = "bloc_id, created_at, user_id, submitted_status, job_id, data";

function paramsOf(record: NewRecord): Param[] {
  return [record.blocId, record.createdAt, record.userId, record.submittedStatus, record.jobId, JSON.stringify(record.values)];
}

/**
 * Inserts records into `table` (records, or a table shaped like it: the benchmark's bare
 * reference uses this same code), ROWS_PER_STATEMENT to a prepared statement and the
 * rest one by one; call inside a transaction.
 */
export function insertRecordRows(sql: Statements, table: string, records: readonly NewRecord[]): void {
  const many = sql.get(`INSERT INTO ${table} (${COLUMNS}) VALUES ${Array(ROWS_PER_STATEMENT).fill("(?, ?, ?, ?, ?, ?)").join(", ")}`);
  const one = sql.get(`INSERT INTO ${table} (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)`);
  let i = 0;
  for (; i + ROWS_PER_STATEMENT <= records.length; i += ROWS_PER_STATEMENT) {
    many.run(...records.slice(i, i + ROWS_PER_STATEMENT).flatMap(paramsOf));
  }
  for (; i < records.length; i += 1) one.run(...paramsOf(records[i]!));
}

/** The bloc's profile-filtered fields, as the transaction sees them. */
export function profileSlugsIn(sql: Statements, blocId: string): string[] {
  return (sql.get("SELECT slug FROM fields WHERE bloc_id = ? AND apply_profile_filter = 1 ORDER BY position, slug")
    .all(blocId) as { slug: string }[]).map((row) => row.slug);
}

/**
 * Loads every batch into `records` and adds their counters; call inside a write
 * transaction (which, in SQLite, holds off every other writer). Counters are counted in
 * memory as each batch is written (CounterDeltas, by the domain's rules) and merged into the tables
 * whenever they reach BULK_COUNTER_ROWS rows, and at the end.
 */
export async function bulkImport(sql: Statements, blocId: string, batches: AsyncIterable<readonly NewRecord[]>): Promise<BulkImported> {
  const slugs = profileSlugsIn(sql, blocId);
  const counters = new CounterDeltas();
  let count = 0;
  for await (const batch of batches) {
    insertRecordRows(sql, "records", batch);
    count += batch.length;
    for (const record of batch) counters.add(record, slugs, 1);
    if (counters.size >= BULK_COUNTER_ROWS) {
      writeCounters(sql, counters);
      counters.clear();
    }
  }
  writeCounters(sql, counters);
  const lastId = count === 0 ? 0 : (sql.get("SELECT MAX(id) AS id FROM records").get() as { id: number }).id;
  return { count, lastId };
}

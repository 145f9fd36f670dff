import type { BulkImported, NewRecord } from "../store.js";
import type { Param, Statements } from "./statements.js";

/* Bulk loads: records written many to a statement inside the caller's transaction. */

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

/** Loads every batch into `records`; call inside a write transaction (which, in SQLite, holds off every other writer). */
export async function bulkImport(sql: Statements, batches: AsyncIterable<readonly NewRecord[]>): Promise<BulkImported> {
  let count = 0;
  for await (const batch of batches) {
    insertRecordRows(sql, "records", batch);
    count += batch.length;
  }
  const lastId = count === 0 ? 0 : (sql.get("SELECT MAX(id) AS id FROM records").get() as { id: number }).id;
  return { count, lastId };
}

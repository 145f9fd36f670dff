import type { BulkImported, NewRecord } from "../../domain/ports/store.js";
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

/**
 * Below this many records in the whole table, a bulk load drops the table's secondary
 * indexes and builds them again once loaded (one sort each, instead of an entry per row
 * at a random place); above it, rebuilding every record's entries would cost more.
 */
const REBUILD_INDEXES_BELOW = 50_000;

/** Loads every batch into `records`; call inside a write transaction (which, in SQLite, holds off every other writer). */
export async function bulkImport(sql: Statements, batches: AsyncIterable<readonly NewRecord[]>): Promise<BulkImported> {
  const small = sql.get("SELECT 1 FROM records LIMIT 1 OFFSET ?").get(REBUILD_INDEXES_BELOW) === undefined;
  // Readers of other connections keep their snapshot, indexes included, until this commits.
  const indexes = small ? sql.get("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'records' AND sql IS NOT NULL")
    .all() as { name: string; sql: string }[] : [];
  for (const index of indexes) sql.db.exec(`DROP INDEX "${index.name.replace(/"/g, '""')}"`);
  let count = 0;
  for await (const batch of batches) {
    insertRecordRows(sql, "records", batch);
    count += batch.length;
  }
  for (const index of indexes) sql.db.exec(index.sql);
  const lastId = count === 0 ? 0 : (sql.get("SELECT MAX(id) AS id FROM records").get() as { id: number }).id;
  return { count, lastId };
}

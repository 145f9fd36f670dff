import type { NewRecord } from "../store.js";
import { fieldPath, type Param, type Statements } from "./statements.js";

/*
 * Bulk loads: records written many to a statement inside one transaction, then their
 * counters counted in SQL over the loaded rows and merged into the bloc's. The rules of
 * what a counter holds are domain/counters.ts's; this is their set-based form, checked
 * against a recount by the tests (test/bulk-import.test.ts), like COUNTER_REBUILD.
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

/**
 * The segments of a record of `records AS r` as a JSON array, one element per segment,
 * null where a profile field is empty: '' (all), 'u:<owner>', 'p:<slug>:<value>'.
 */
function segmentsSql(profileSlugs: readonly string[]): string {
  const profile = profileSlugs.map((slug) => {
    const value = `json_extract(r.data, '${fieldPath(slug)}')`;
    return `, CASE WHEN COALESCE(${value}, '') <> '' THEN 'p:${slug}:' || ${value} END`;
  });
  return `json_array('', 'u:' || r.user_id${profile.join("")})`;
}

/**
 * Adds the counters of the bloc's records with IDs above `after` (those just loaded) to
 * the bloc's counters: records per segment and day, values per segment and field.
 * Grouped in SQL, so each counter row is written once, in key order. (`WHERE true`
 * before ON CONFLICT: SQLite's rule for an upsert whose source is a SELECT.)
 */
export function addCountersOfLoaded(sql: Statements, blocId: string, after: number, profileSlugs: readonly string[]): void {
  const loaded = `FROM records r, json_each(${segmentsSql(profileSlugs)}) s`;
  const where = "r.id > ? AND r.bloc_id = ? AND s.value IS NOT NULL";
  sql.get(`INSERT INTO day_counts (bloc_id, segment, day, n)
    SELECT * FROM (SELECT r.bloc_id, s.value AS segment, substr(r.created_at, 1, 10) AS day, COUNT(*) AS n
      ${loaded} WHERE ${where} GROUP BY 2, 3) WHERE true
    ON CONFLICT (bloc_id, segment, day) DO UPDATE SET n = n + excluded.n`).run(after, blocId);
  sql.get(`INSERT INTO value_totals (bloc_id, segment, slug, value, n)
    SELECT * FROM (SELECT r.bloc_id, s.value AS segment, j.key AS slug, j.value AS value, COUNT(*) AS n
      ${loaded}, json_each(r.data) j WHERE ${where} AND j.value <> '' GROUP BY 2, 3, 4) WHERE true
    ON CONFLICT (bloc_id, segment, slug, value) DO UPDATE SET n = n + excluded.n`).run(after, blocId);
}

/** The bloc's profile-filtered fields, as the transaction sees them. */
export function profileSlugsIn(sql: Statements, blocId: string): string[] {
  return (sql.get("SELECT slug FROM fields WHERE bloc_id = ? AND apply_profile_filter = 1 ORDER BY position, slug")
    .all(blocId) as { slug: string }[]).map((row) => row.slug);
}

/**
 * Loads every batch into `records`, then adds their counters; call inside a write
 * transaction (which, in SQLite, holds off every other writer). AUTOINCREMENT gives the
 * loaded records IDs above any the table ever held, so they are the bloc's records
 * above the highest ID before the load.
 */
export async function bulkImport(sql: Statements, blocId: string, batches: AsyncIterable<readonly NewRecord[]>): Promise<{ count: number; lastId: number }> {
  const before = (sql.get("SELECT COALESCE(MAX(id), 0) AS id FROM records").get() as { id: number }).id;
  let count = 0;
  for await (const batch of batches) {
    insertRecordRows(sql, "records", batch);
    count += batch.length;
  }
  if (count === 0) return { count, lastId: 0 };
  addCountersOfLoaded(sql, blocId, before, profileSlugsIn(sql, blocId));
  const lastId = (sql.get("SELECT MAX(id) AS id FROM records").get() as { id: number }).id;
  return { count, lastId };
}

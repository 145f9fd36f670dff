import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { BulkImported, NewRecord } from "../../domain/ports/store.js";
import type { Pg } from "./driver.js";
import type { WriteTransaction } from "./write-transaction.js";

/* Bulk loads: records streamed in with COPY … FROM STDIN inside one transaction. */

/** Below this many records in the whole table, a load rebuilds the table's secondary indexes once loaded. */
const REBUILD_INDEXES_BELOW = 50_000;

function quoteName(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

const COLUMNS = "bloc_id, created_at, user_id, submitted_status, job_id, data";

/** A lone surrogate becomes U+FFFD, as a text parameter carries it (record-writes.ts): JSON would escape it, and jsonb refuses the escape. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

function wellFormed(text: string): string {
  return text.replace(LONE_SURROGATE, "\uFFFD");
}

/** A value in COPY's text format: backslash, tab, newline and carriage return escaped; \N for null. */
function field(value: string | null): string {
  if (value === null) return "\\N";
  return /[\\\t\n\r]/.test(value)
    ? value.replace(/\\/g, "\\\\").replace(/\t/g, "\\t").replace(/\n/g, "\\n").replace(/\r/g, "\\r")
    : value;
}

function line(record: NewRecord): string {
  const values: Record<string, string> = {};
  for (const [slug, value] of Object.entries(record.values)) values[wellFormed(slug)] = wellFormed(value);
  return `${field(record.blocId)}\t${field(record.createdAt)}\t${field(record.userId)}\t${record.submittedStatus}\t` +
    `${field(record.jobId)}\t${field(JSON.stringify(values))}\n`;
}

/**
 * Streams records into `table` (records, or a table shaped like it: the benchmark's bare
 * reference uses this same code) with one COPY, a batch per chunk, waiting whenever the
 * connection is behind (so memory holds about one batch). `conn` must be a reserved
 * connection, in a transaction. Returns the number of records sent.
 */
export async function copyRecords(conn: Pg, table: string, batches: AsyncIterable<readonly NewRecord[]>): Promise<number> {
  let count = 0;
  const chunks = async function* (): AsyncGenerator<string> {
    for await (const batch of batches) {
      count += batch.length;
      if (batch.length > 0) yield batch.map(line).join("");
    }
  };
  const query = conn.unsafe(`COPY ${table} (${COLUMNS}) FROM STDIN`);
  // The driver (postgres 3.4.9) settles the query with the stream, so an error the server
  // sends once the data has ended (a row it refused in the last chunk) reaches only the
  // query's reject, and the stream never finishes: waiting on the stream alone would hang.
  // Its reject is wrapped to hear of such an error.
  const failure = new Promise<never>((_, reject) => {
    const hooked = query as unknown as { reject: (error: unknown) => void };
    const settle = hooked.reject;
    hooked.reject = (error) => { reject(error); settle(error); };
  });
  failure.catch(() => undefined); // raced below; not unhandled when the copy succeeds first
  const target = await query.writable();
  await Promise.race([pipeline(Readable.from(chunks()), target), failure]);
  return count;
}

/**
 * Loads every batch into `records` with one COPY, in the session's transaction (which
 * holds the bloc's lock, as every record writer takes it), then runs `count` in it.
 */
export async function bulkImport(session: WriteTransaction, blocId: string, batches: AsyncIterable<readonly NewRecord[]>,
  count: () => Promise<void>): Promise<BulkImported> {
  const [{ id: before }] = await session.db.run<{ id: number }>("SELECT nextval(pg_get_serial_sequence('records', 'id')) AS id") as [{ id: number }];
  // A small table's secondary indexes are dropped and built again once loaded (one sort each). Dropping
  // one locks the table against every reader until the load commits: only worth it, and only done, then.
  const [{ small }] = await session.db.run<{ small: boolean }>(
    "SELECT count(*) < $1::bigint AS small FROM (SELECT 1 FROM records LIMIT $1::bigint) r", [REBUILD_INDEXES_BELOW]) as [{ small: boolean }];
  const indexes = small ? await session.db.run<{ name: string; definition: string }>(`
    SELECT i.indexname AS name, i.indexdef AS definition FROM pg_indexes i JOIN pg_class c ON c.relname = i.indexname
    JOIN pg_index x ON x.indexrelid = c.oid WHERE i.schemaname = current_schema() AND i.tablename = 'records' AND NOT x.indisprimary`) : [];
  for (const index of indexes) await session.db.run(`DROP INDEX ${quoteName(index.name)}`);
  const loaded = await copyRecords(session.connection, "records", batches);
  if (indexes.length > 0) {
    await session.db.run("SET LOCAL maintenance_work_mem = '256MB'");
    for (const index of indexes) await session.db.run(index.definition);
  }
  await count();
  // The counters of a small instance were just written, in no order: built again, their indexes are about half the size.
  if (indexes.length > 0) await session.db.run("REINDEX TABLE value_counts; REINDEX TABLE counter_scopes", [], { prepare: false });
  if (loaded === 0) return { count: 0, lastId: 0 };
  // Every record of the bloc written after the lock was taken is one of these.
  const [last] = await session.db.run<{ id: number }>(
    "SELECT COALESCE(max(id), 0) AS id FROM records WHERE id > $1::bigint AND bloc_id = $2::text", [before, blocId]);
  return { count: loaded, lastId: Number(last!.id) };
}

import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { BulkImported, NewRecord } from "../store.js";
import { CounterDeltas } from "../../domain/counters.js";
import { BULK_COUNTER_ROWS } from "../bulk-counters.js";
import { writeCounters } from "./counters.js";
import { lockUntilCommit, onPool, type Pg } from "./driver.js";
import { translate } from "./errors.js";

/*
 * Bulk loads: records streamed in with COPY … FROM STDIN inside one transaction, their
 * counters counted as they go and merged into the bloc's in bounded rounds (bulk-counters.ts).
 */

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
 * The batches of `source` up to the one after which `counts` holds BULK_COUNTER_ROWS
 * rows, each counted as it passes; `ended` tells whether the source is done.
 */
async function* round(
  source: AsyncIterator<readonly NewRecord[]>, counts: CounterDeltas, slugs: readonly string[], ended: { done: boolean },
): AsyncGenerator<readonly NewRecord[]> {
  for (;;) {
    const next = await source.next();
    if (next.done === true) {
      ended.done = true;
      return;
    }
    for (const record of next.value) counts.add(record, slugs, 1);
    yield next.value;
    if (counts.size >= BULK_COUNTER_ROWS) return;
  }
}

/**
 * Loads every batch into `records` and adds their counters, in one READ COMMITTED
 * transaction on a connection of its own that holds the bloc's lock (as every record
 * writer takes it). Counters are counted in memory as the rows stream out (CounterDeltas.add,
 * as every write counts them); when they reach BULK_COUNTER_ROWS rows the COPY ends, they are
 * merged into the tables (no statement can run during a COPY), and a new COPY goes on.
 */
export async function bulkImport(pool: Pg, blocId: string, batches: AsyncIterable<readonly NewRecord[]>): Promise<BulkImported> {
  const conn = await pool.reserve();
  try {
    await conn.unsafe("BEGIN ISOLATION LEVEL READ COMMITTED");
    try {
      const db = onPool(conn);
      await lockUntilCommit(db, "bloc", blocId);
      const [{ id: before }] = await db.run<{ id: number }>("SELECT nextval(pg_get_serial_sequence('records', 'id')) AS id") as [{ id: number }];
      const profile = await db.run<{ slug: string }>(
        "SELECT slug FROM fields WHERE bloc_id = $1::text AND apply_profile_filter = 1 ORDER BY position, slug", [blocId]);
      const slugs = profile.map((row) => row.slug);
      const counts = new CounterDeltas();
      const source = batches[Symbol.asyncIterator]();
      const ended = { done: false };
      let count = 0;
      while (!ended.done) {
        count += await copyRecords(conn, "records", round(source, counts, slugs, ended));
        await writeCounters(db, counts);
        counts.clear();
      }
      let lastId = 0;
      if (count > 0) {
        // Every record of the bloc written after the lock was taken is one of these.
        const [last] = await db.run<{ id: number }>(
          "SELECT COALESCE(max(id), 0) AS id FROM records WHERE id > $1::bigint AND bloc_id = $2::text", [before, blocId]);
        lastId = last!.id;
      }
      const committed = await conn.unsafe("COMMIT");
      if (committed.command !== "COMMIT") throw new Error(`COMMIT was answered ${committed.command}: the transaction was rolled back`);
      return { count, lastId };
    } catch (error) {
      await conn.unsafe("ROLLBACK").catch(() => undefined);
      throw translate(error);
    }
  } finally {
    conn.release();
  }
}

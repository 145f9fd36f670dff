import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { BulkImported, NewRecord } from "../store.js";
import { lockUntilCommit, onPool, type Db, type Pg } from "./driver.js";
import { translate } from "./errors.js";
import { fieldSql, literal } from "./filters.js";

/*
 * Bulk loads: records streamed in with COPY … FROM STDIN inside one transaction, then
 * their counters counted in SQL over the loaded rows and merged into the bloc's. The
 * rules of what a counter holds are domain/counters.ts's; this is their set-based form,
 * checked against a recount by the tests (test/bulk-import.test.ts).
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

/** The segments of a record of `records AS r`, null where a profile field is empty: '' (all), 'u:<owner>', 'p:<slug>:<value>'. */
function segmentsSql(profileSlugs: readonly string[]): string {
  const profile = profileSlugs.map((slug) =>
    `, CASE WHEN ${fieldSql(slug)} <> '' THEN ${literal(`p:${slug}:`)} || ${fieldSql(slug)} END`);
  return `unnest(ARRAY['' COLLATE "C", 'u:' || r.user_id${profile.join("")}]) AS s(segment)`;
}

/**
 * Adds the counters of the bloc's records with IDs above `after` (those just loaded) to
 * the bloc's counters, grouped in SQL so each counter row is written once, in key order
 * (the order every writer locks counter rows in: counters.ts).
 */
export async function addCountersOfLoaded(db: Db, blocId: string, after: number, profileSlugs: readonly string[]): Promise<void> {
  const loaded = `FROM records r CROSS JOIN LATERAL ${segmentsSql(profileSlugs)}`;
  const where = "r.id > $2::bigint AND r.bloc_id = $1::text AND s.segment IS NOT NULL";
  // The text depends on the bloc's profile fields: not kept prepared by the connection (driver.ts).
  const once = { prepare: false };
  await db.run(`
    INSERT INTO day_counts AS c (bloc_id, segment, day, n)
    SELECT $1::text, s.segment, left(r.created_at, 10), count(*) ${loaded} WHERE ${where}
    GROUP BY 2, 3 ORDER BY s.segment, left(r.created_at, 10)
    ON CONFLICT (bloc_id, segment_head, segment_tail, day) DO UPDATE SET n = c.n + excluded.n`, [blocId, after], once);
  await db.run(`
    INSERT INTO value_totals AS c (bloc_id, segment, slug, value, n)
    SELECT $1::text, s.segment, j.key, j.value, count(*) ${loaded} CROSS JOIN LATERAL jsonb_each_text(r.data) AS j
    WHERE ${where} AND j.value <> ''
    GROUP BY 2, 3, 4 ORDER BY s.segment, j.key COLLATE "C", j.value COLLATE "C"
    ON CONFLICT (bloc_id, segment_head, segment_tail, slug, value_head, value_tail) DO UPDATE SET n = c.n + excluded.n`,
  [blocId, after], once);
}

/**
 * Loads every batch into `records` and adds their counters, in one READ COMMITTED
 * transaction on a connection of its own that holds the bloc's lock (as every record
 * writer takes it), so that no other record of the bloc is written meanwhile: the
 * loaded records are then the bloc's records with IDs above a sequence value drawn
 * after the lock was taken.
 */
export async function bulkImport(pool: Pg, blocId: string, batches: AsyncIterable<readonly NewRecord[]>): Promise<BulkImported> {
  const conn = await pool.reserve();
  try {
    await conn.unsafe("BEGIN ISOLATION LEVEL READ COMMITTED");
    try {
      const db = onPool(conn);
      await lockUntilCommit(db, "bloc", blocId);
      const [{ id: before }] = await db.run<{ id: number }>("SELECT nextval(pg_get_serial_sequence('records', 'id')) AS id") as [{ id: number }];
      const count = await copyRecords(conn, "records", batches);
      let lastId = 0;
      if (count > 0) {
        const profile = await db.run<{ slug: string }>(
          "SELECT slug FROM fields WHERE bloc_id = $1::text AND apply_profile_filter = 1 ORDER BY position, slug", [blocId]);
        await addCountersOfLoaded(db, blocId, before, profile.map((row) => row.slug));
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

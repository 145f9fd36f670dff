import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import postgres from "postgres";
import { readConfig } from "../src/config.js";
import { createUser } from "../src/domain/users.js";
import { getBloc } from "../src/domain/blocs.js";
import { layoutOf, type Layout } from "../src/domain/counting/keys.js";
import { BULK_BATCH, bulkImportRecords } from "../src/domain/bulk-import.js";
import { openContext } from "../src/open-context.js";
import type { NewRecord } from "../src/domain/ports/store.js";
import { insertRecordRows } from "../src/store/sqlite/bulk-import.js";
import { copyRecords } from "../src/store/postgres/bulk-import.js";
import { Statements } from "../src/store/sqlite/statements.js";
import { CHECKPOINT_PAGES } from "../src/store/sqlite/connection.js";
import { createBenchDatabase } from "./postgres.js";
import type { Figure } from "./results.js";
import { scopeCounts } from "./scope-counts.js";
import { createBenchBloc, record, type SeedReport } from "./seed.js";

/**
 * The bulk path against the engine's bare bulk insert of the same rows, in a database of
 * its own (so the other figures' database is not touched), in the same run:
 *
 * - bare: the rows into a plain table shaped like `records` (its key and nothing else: no
 *   secondary index, no counters), in one durable transaction, by the engine's own
 *   loading code (SQLite: 100-row prepared INSERTs; PostgreSQL: COPY FROM STDIN);
 * - floor: the same rows into the `records` table itself, its secondary indexes (time,
 *   owner, and every field's value index) dropped first and built again after, as the
 *   bulk path does on a small table, and the record count of every scope they fall in
 *   (scope-counts.ts: tallied in memory, one row per scope): the least an exact `count` of
 *   every window and reader keeps, with no value count, no rule and no event, and the
 *   engine given more memory than the store gives it. On SQLite it commits, on a copy of
 *   the database; on PostgreSQL it ends with the least statistics the planner needs before
 *   anything is answered from the load (issue 19), then is rolled back (its COMMIT only
 *   flushes what the COPY and index builds already wrote to the WAL). What no bulk import
 *   of the service can beat;
 * - bulk: `bulkImportRecords` of the same rows into an empty bloc of the bench's shape
 *   (records with their indexes, then the counters), then of as many more into the same
 *   bloc, now not empty.
 *
 * Rows are made before the clock starts. The bare load is measured before and after the
 * bulk one, and the faster of the two is the reference (the ratio errs against the bulk path).
 */

export interface BulkFigures {
  readonly records: number;
  readonly bareSeconds: readonly number[];
  readonly bulkSeconds: number;
  readonly bulkNonEmptySeconds: number;
  /** Loading the rows into `records` with its indexes built after and the scopes' record counts, nothing else: the bound any bulk import meets. */
  readonly floorSeconds: number;
  /** Records per second of the best bare load, the bulk import and the import into a non-empty bloc. */
  readonly bareRate: number;
  readonly bulkRate: number;
  readonly bulkNonEmptyRate: number;
  /** bulkRate / bareRate. */
  readonly ratio: number;
}

function batches(records: readonly NewRecord[]): NewRecord[][] {
  const out: NewRecord[][] = [];
  for (let i = 0; i < records.length; i += BULK_BATCH) out.push(records.slice(i, i + BULK_BATCH));
  return out;
}

async function* each<T>(items: readonly T[]): AsyncGenerator<T> {
  yield* items;
}

/**
 * A bare load's seconds, and how to remove what it made; `floor` loads into `records` with
 * its indexes built after and the bloc's record counts, leaving the bloc empty.
 */
interface Bare {
  load(rows: readonly NewRecord[][]): Promise<number>;
  floor(rows: readonly NewRecord[][], blocId: string, layout: Layout): Promise<number>;
  close(): Promise<void>;
}

const BARE_COLUMNS = `bloc_id TEXT NOT NULL, created_at TEXT NOT NULL, user_id TEXT NOT NULL,
  submitted_status INTEGER NOT NULL, job_id TEXT`;

function sqliteBare(file: string): Bare {
  const db = new Database(file);
  // As the store's connection: write-ahead log, a sync at every commit.
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = FULL");
  db.pragma("busy_timeout = 5000");
  const sql = new Statements(db);
  let round = 0;
  return {
    async load(rows) {
      round += 1;
      const table = `bench_bare_${round}`;
      db.exec(`CREATE TABLE ${table} (id INTEGER PRIMARY KEY AUTOINCREMENT, ${BARE_COLUMNS}, data TEXT NOT NULL)`);
      const started = performance.now();
      db.exec("BEGIN IMMEDIATE");
      for (const batch of rows) insertRecordRows(sql, table, batch);
      db.exec("COMMIT");
      const seconds = (performance.now() - started) / 1000;
      db.exec(`DROP TABLE ${table}`);
      return seconds;
    },
    async floor(rows, blocId, layout) {
      // On a copy of the database as it stands before any load (its schema, users and the
      // empty bloc), so that the floor commits, as the bare load and the import do, and the
      // import still finds the bloc empty. The COMMIT's writes to the WAL and the checkpoint
      // it crosses are a quarter of the floor (20,000 records: 0.33 s against 0.24 s rolled back).
      const copy = `${file}.floor`;
      db.prepare("VACUUM INTO ?").run(copy);
      const floorDb = new Database(copy);
      try {
        // As the store's connection; its WAL sync is SQLite's own here (FULL).
        floorDb.pragma("journal_mode = WAL");
        floorDb.pragma("synchronous = FULL");
        floorDb.pragma(`wal_autocheckpoint = ${CHECKPOINT_PAGES}`);
        // A floor errs toward less work: a page cache of 256 MiB (the store keeps SQLite's
        // 2 MB) made the index builds of 100,000 records faster by about a tenth.
        floorDb.pragma("cache_size = -262144");
        const floorSql = new Statements(floorDb);
        const started = performance.now();
        floorDb.exec("BEGIN IMMEDIATE");
        const indexes = floorDb.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'records' AND sql IS NOT NULL")
          .all() as { name: string; sql: string }[];
        for (const index of indexes) floorDb.exec(`DROP INDEX "${index.name}"`);
        for (const batch of rows) insertRecordRows(floorSql, "records", batch);
        for (const index of indexes) floorDb.exec(index.sql);
        const scopes = scopeCounts(rows, layout);
        const insert = floorDb.prepare("INSERT INTO counter_scopes (bloc_id, segment, period, n) VALUES (?, ?, ?, ?)");
        scopes.counts.forEach((n, i) => insert.run(blocId, scopes.segments[i], scopes.periods[i], n));
        floorDb.exec("COMMIT");
        return (performance.now() - started) / 1000;
      } finally {
        floorDb.close();
        for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(`${copy}${suffix}`, { force: true });
      }
    },
    async close() { db.close(); },
  };
}

function postgresBare(url: string): Bare {
  const pool = postgres(url, { max: 1, onnotice: () => {} });
  let round = 0;
  return {
    async load(rows) {
      round += 1;
      const table = `bench_bare_${round}`;
      await pool.unsafe(`CREATE TABLE ${table} (id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
        ${BARE_COLUMNS.replace(/TEXT/g, 'text COLLATE "C"')}, data jsonb NOT NULL)`);
      const conn = await pool.reserve();
      try {
        const started = performance.now();
        await conn.unsafe("BEGIN");
        // The same COPY the store's bulk import sends (its type is the store's driver type).
        await copyRecords(conn as unknown as Parameters<typeof copyRecords>[0], table, each(rows));
        await conn.unsafe("COMMIT");
        return (performance.now() - started) / 1000;
      } finally {
        conn.release();
        await pool.unsafe(`DROP TABLE ${table}`);
      }
    },
    async floor(rows, blocId, layout) {
      const conn = await pool.reserve();
      try {
        const started = performance.now();
        await conn.unsafe("BEGIN");
        const indexes = await conn.unsafe<{ name: string; definition: string }[]>(`
          SELECT i.indexname AS name, i.indexdef AS definition FROM pg_indexes i JOIN pg_class c ON c.relname = i.indexname
          JOIN pg_index x ON x.indexrelid = c.oid WHERE i.schemaname = current_schema() AND i.tablename = 'records' AND NOT x.indisprimary`);
        for (const index of indexes) await conn.unsafe(`DROP INDEX "${index.name}"`);
        await copyRecords(conn as unknown as Parameters<typeof copyRecords>[0], "records", each(rows));
        await conn.unsafe("SET LOCAL maintenance_work_mem = '256MB'");
        for (const index of indexes) await conn.unsafe(index.definition);
        const scopes = scopeCounts(rows, layout);
        await conn.unsafe(`INSERT INTO counter_scopes (bloc_id, segment, period, n)
          SELECT $1::text, u.s, u.p, u.n FROM unnest($2::text[], $3::text[], $4::bigint[]) AS u(s, p, n)`,
        [blocId, scopes.segments, scopes.periods, scopes.counts]);
        // The service must not answer from a load before the planner knows of it (issue 19:
        // autovacuum may lag minutes, or be off). The least that tells it: the tables' sizes
        // and the one column every query filters on (the store analyzes every column and
        // every value index). ANALYZE counts the rows its own transaction wrote.
        await conn.unsafe("ANALYZE records (bloc_id), counter_scopes (bloc_id)");
        return (performance.now() - started) / 1000;
      } finally {
        await conn.unsafe("ROLLBACK");
        conn.release();
      }
    },
    async close() { await pool.end(); },
  };
}

/** Measures the bulk path on `count` records of the bench's shape; `dir` holds a SQLite file, or a PostgreSQL database is made and dropped. */
export async function measureBulk(store: "sqlite" | "postgres", dir: string, count: number,
  say: (line: string) => void): Promise<BulkFigures> {
  const pg = store === "postgres" ? await createBenchDatabase() : undefined;
  const file = path.join(dir, "bulk.db");
  const url = pg ? pg.url : `sqlite:${file}`;
  try {
    const ctx = await openContext(readConfig({
      DATABASE_URL: url, BLOC_FILES_DIR: path.join(dir, "bulk-files"), BLOC_ADMIN_TOKEN: "bench-bulk-admin-0123456789abcdef",
    }));
    const bare = pg ? postgresBare(pg.url) : sqliteBare(file);
    try {
      const users: string[] = [];
      for (let i = 0; i < 20; i += 1) users.push((await createUser(ctx, `operator ${i + 1}`)).id);
      const blocId = await createBenchBloc(ctx, "Bulk");
      const make = (from: number): NewRecord[] => {
        let state = 7 + from;
        const next = (): number => { state = (state * 1103515245 + 12345) % 2147483648; return state / 2147483648; };
        return Array.from({ length: count }, (_, i) => record(blocId, from + i, 2 * count, users, next));
      };
      const first = batches(make(0));
      say(`bulk: bare insert of ${count.toLocaleString("en")} rows…`);
      const bareSeconds = [await bare.load(first)];
      say("bulk: the floor, records, their indexes and record counts alone…");
      const floorSeconds = await bare.floor(first, blocId, layoutOf(await getBloc(ctx, blocId)));
      say("bulk: bulk import into an empty bloc…");
      let started = performance.now();
      await bulkImportRecords(ctx.store, blocId, first.flat());
      const bulkSeconds = (performance.now() - started) / 1000;
      say("bulk: bare insert again…");
      bareSeconds.push(await bare.load(first));
      const second = make(count);
      say("bulk: bulk import into the same bloc, not empty…");
      started = performance.now();
      await bulkImportRecords(ctx.store, blocId, second);
      const bulkNonEmptySeconds = (performance.now() - started) / 1000;
      const bareRate = count / Math.min(...bareSeconds);
      const bulkRate = count / bulkSeconds;
      return {
        records: count, bareSeconds, bulkSeconds, bulkNonEmptySeconds, floorSeconds, bareRate, bulkRate,
        bulkNonEmptyRate: count / bulkNonEmptySeconds, ratio: bulkRate / bareRate,
      };
    } finally {
      await bare.close();
      await ctx.store.close();
    }
  } finally {
    await pg?.drop();
    fs.rmSync(file, { force: true });
  }
}

/** The figure rows: the reference, the ratio (target ≥ 0.50), a load into a non-empty bloc, and the seeding's own rate. */
export function bulkFigures(bulk: BulkFigures, seed: SeedReport): Figure[] {
  const n = bulk.records.toLocaleString("en");
  const rate = (r: number): string => `${Math.round(r).toLocaleString("en")} records/s`;
  return [
    {
      name: `bare bulk insert, ${n} rows (plain table shaped like records, its key only)`,
      value: `${rate(bulk.bareRate)} (best of ${bulk.bareSeconds.map((s) => `${s.toFixed(2)} s`).join(", ")})`, target: "reference", met: null,
    },
    {
      name: `floor: the same rows into records, its indexes (time, owner, every field's value) built after, their scopes' record counts, and what must follow before anything is answered from them (SQLite: the commit; PostgreSQL: the tables' statistics), nothing else`,
      value: `${rate(bulk.records / bulk.floorSeconds)}; ratio to bare insert ${(bulk.records / bulk.floorSeconds / bulk.bareRate).toFixed(2)}`,
      target: "bound on the bulk import's ratio", met: null,
    },
    {
      name: `bulk import into an empty bloc, ${n} records`,
      value: `${rate(bulk.bulkRate)}; ratio to bare insert ${bulk.ratio.toFixed(2)} (${(bulk.bulkRate / (bulk.records / bulk.floorSeconds)).toFixed(2)} of the floor)`,
      target: "ratio ≥ 0.25", met: bulk.ratio >= 0.25,
    },
    {
      name: `bulk import into the same bloc, ${n} more`,
      value: `${rate(bulk.bulkNonEmptyRate)}; ratio to bare insert ${(bulk.bulkNonEmptyRate / bulk.bareRate).toFixed(2)}`, target: "reported", met: null,
    },
    ...(seed.bulkRecords > 0 ? [{
      name: `seeding the large bloc by bulk import, ${seed.bulkRecords.toLocaleString("en")} records`,
      value: `${rate(seed.bulkRecords / seed.bulkSeconds)} (records made on the way included)`,
      target: "≥ 100,000 records/s", met: seed.bulkRecords / seed.bulkSeconds >= 100_000,
    }] : []),
  ];
}

import fs from "node:fs";
import Database from "better-sqlite3";
import postgres from "postgres";
import { COUNTER_TABLES } from "../src/domain/ports/store.js";
import type { Figure } from "./results.js";

/**
 * What the run's database holds on disk once every other figure is measured, and how
 * many counter rows it keeps per record. Read from a connection of its own beside the
 * running server (which is idle by then), by plain SQL, so that it does not depend on
 * how the store counts or names things beyond `COUNTER_TABLES`.
 */
export interface DiskUse {
  readonly engine: "sqlite" | "postgres";
  /** Records of every bloc. */
  readonly records: number;
  /** SQLite: the database file and its WAL; PostgreSQL: pg_database_size. */
  readonly bytes: number;
  /** SQLite: the two files' sizes after the checkpoint. */
  readonly files?: { readonly database: number; readonly wal: number };
  /** SQLite: wal_checkpoint(TRUNCATE)'s last answer, and how many times it was asked. */
  readonly checkpoint?: { readonly busy: number; readonly log: number; readonly checkpointed: number; readonly attempts: number };
  /** PostgreSQL: how long VACUUM took. */
  readonly vacuumSeconds?: number;
  /** Bytes per table (SQLite: and per index, each under its own name), biggest first. */
  readonly tables: readonly { readonly name: string; readonly bytes: number }[];
  /** Rows per counter table. */
  readonly counterRows: Readonly<Record<string, number>>;
}

const CHECKPOINT_ATTEMPTS = 5;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const sizeOf = (file: string): number => (fs.existsSync(file) ? fs.statSync(file).size : 0);

/** The server's SQLite file: its WAL checkpointed into it first, so that the file holds what the run wrote. */
export async function sqliteDisk(file: string): Promise<DiskUse> {
  const db = new Database(file);
  try {
    db.pragma("busy_timeout = 5000");
    // Busy while the server's connection still reads from the log; it is idle by now, so a retry soon passes.
    let checkpoint = { busy: 1, log: 0, checkpointed: 0, attempts: 0 };
    while (checkpoint.busy !== 0 && checkpoint.attempts < CHECKPOINT_ATTEMPTS) {
      if (checkpoint.attempts > 0) await sleep(500);
      const [answer] = db.pragma("wal_checkpoint(TRUNCATE)") as { busy: number; log: number; checkpointed: number }[];
      checkpoint = { ...answer!, attempts: checkpoint.attempts + 1 };
    }
    const files = { database: sizeOf(file), wal: sizeOf(`${file}-wal`) };
    const count = (table: string): number => (db.prepare(`SELECT COUNT(*) AS n FROM "${table}"`).get() as { n: number }).n;
    const records = count("records");
    const counterRows = Object.fromEntries(COUNTER_TABLES.map((table) => [table, count(table)]));
    const tables = (db.prepare("SELECT name, SUM(pgsize) AS bytes FROM dbstat GROUP BY name").all() as { name: string; bytes: number }[])
      .sort((a, b) => b.bytes - a.bytes);
    return { engine: "sqlite", records, bytes: files.database + files.wal, files, checkpoint, tables, counterRows };
  } finally {
    db.close();
  }
}

/** The bench's PostgreSQL database, vacuumed first (plain VACUUM: dead rows' space is reused, not given back). */
export async function postgresDisk(url: string): Promise<DiskUse> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const started = performance.now();
    await sql.unsafe("VACUUM");
    const vacuumSeconds = (performance.now() - started) / 1000;
    // bigint arrives as a string.
    const [size] = await sql<{ bytes: string }[]>`SELECT pg_database_size(current_database()) AS bytes`;
    const count = async (table: string): Promise<number> =>
      Number((await sql.unsafe<{ n: string }[]>(`SELECT COUNT(*) AS n FROM "${table}"`))[0]!.n);
    const records = await count("records");
    const counterRows: Record<string, number> = {};
    for (const table of COUNTER_TABLES) counterRows[table] = await count(table);
    const tables = (await sql<{ name: string; bytes: string }[]>`
      SELECT c.relname AS name, pg_total_relation_size(c.oid) AS bytes
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p')
      ORDER BY pg_total_relation_size(c.oid) DESC`).map((row) => ({ name: row.name, bytes: Number(row.bytes) }));
    return { engine: "postgres", records, bytes: Number(size!.bytes), vacuumSeconds, tables, counterRows };
  } finally {
    await sql.end();
  }
}

const whole = (n: number): string => Math.round(n).toLocaleString("en");

/** Bytes per record (target ≤ 2,000), the biggest ten tables, and counter rows per record. */
export function diskFigures(disk: DiskUse): Figure[] {
  const perRecord = disk.bytes / disk.records;
  const how = disk.files
    ? `database file ${whole(disk.files.database)} + WAL ${whole(disk.files.wal)} after wal_checkpoint(TRUNCATE)` +
      (disk.checkpoint && disk.checkpoint.busy !== 0 ? `, still busy after ${disk.checkpoint.attempts} attempts` : "")
    : `pg_database_size after VACUUM (${(disk.vacuumSeconds ?? 0).toFixed(1)} s)`;
  const counterTotal = Object.values(disk.counterRows).reduce((sum, n) => sum + n, 0);
  const perTable = Object.entries(disk.counterRows).map(([table, n]) => `${table} ${whole(n)}`).join(", ");
  return [
    {
      name: "bytes on disk per record (every bloc's records)",
      value: `${whole(perRecord)} bytes per record (${whole(disk.bytes)} bytes for ${whole(disk.records)} records: ${how})`,
      target: "≤ 2,000 bytes per record",
      met: perRecord <= 2000,
    },
    {
      name: disk.engine === "sqlite"
        ? "bytes on disk by table and index (dbstat), biggest ten"
        : "bytes on disk by table, its indexes and TOAST included (pg_total_relation_size), biggest ten",
      value: disk.tables.slice(0, 10).map((t) => `${t.name} ${whole(t.bytes)} (${whole(t.bytes / disk.records)} per record)`).join("; "),
      target: "reported",
      met: null,
    },
    {
      name: "counter rows per record",
      value: `${(counterTotal / disk.records).toFixed(2)} (${whole(counterTotal)} rows for ${whole(disk.records)} records: ${perTable})`,
      target: "reported",
      met: null,
    },
  ];
}

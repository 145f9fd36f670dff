import crypto from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import Database from "better-sqlite3";
import postgres from "postgres";
import { readConfig, sqlitePath } from "../../src/config.js";
import { openStore } from "../../src/store/open-store.js";
import { TABLES, type Store } from "../../src/domain/ports/store.js";
import { allRows } from "./recount.js";

/**
 * Everything an instance holds, to compare before and after requests that must change
 * nothing: every row of every table the store exports (its canonical form), every row of
 * every table in the database itself (so that a table outside the export, such as
 * content holds, or one added later, is covered too), and every file in the files folder
 * with its size and SHA-256.
 */
export interface Snapshot {
  /** "<source>:<table>" → the rows as JSON texts, sorted. */
  readonly tables: ReadonlyMap<string, readonly string[]>;
  /** "<relative path> <size> <sha256>", sorted. */
  readonly files: readonly string[];
}

export class Snapshotter {
  private constructor(private readonly store: Store, private readonly databaseUrl: string, private readonly filesDir: string) {}

  /** Opens a second connection to the store a server process uses (it only reads). */
  static async open(databaseUrl: string, filesDir: string): Promise<Snapshotter> {
    const store = await openStore(readConfig({ DATABASE_URL: databaseUrl, BLOC_PG_POOL: "2" }));
    return new Snapshotter(store, databaseUrl, filesDir);
  }

  async take(): Promise<Snapshot> {
    const tables = new Map<string, string[]>();
    for (const table of TABLES) {
      tables.set(`store:${table}`, (await allRows(this.store, table)).map((row) => JSON.stringify(withoutLastUse(row))).sort());
    }
    for (const [table, rows] of await rawTables(this.databaseUrl)) {
      tables.set(`database:${table}`, table === "tokens" ? rows.map((row) => JSON.stringify(withoutLastUse(JSON.parse(row)))).sort() : rows);
    }
    return { tables, files: await listFiles(this.filesDir) };
  }

  close(): Promise<void> {
    return this.store.close();
  }
}

/**
 * A token's last use is bookkeeping, not data a request changes: a refused request that
 * carried a valid token still used it (domain/token-use.ts). It is left out of the comparison.
 */
function withoutLastUse<T extends object>(row: T): T {
  if (!("last_used_at" in row)) return row;
  const { last_used_at: _lastUse, ...rest } = row as T & { last_used_at: unknown };
  return rest as T;
}

/** Every table of the database, each row as JSON text (binary as hex), sorted. */
async function rawTables(databaseUrl: string): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  if (databaseUrl.startsWith("sqlite:")) {
    const db = new Database(sqlitePath(databaseUrl), { readonly: true, fileMustExist: true });
    try {
      const names = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[];
      for (const { name } of names) {
        const rows = db.prepare(`SELECT * FROM "${name.replace(/"/g, '""')}"`).all() as Record<string, unknown>[];
        out.set(name, rows.map((row) => JSON.stringify(row, (_k, v: unknown) => (Buffer.isBuffer(v) ? v.toString("hex") : v))).sort());
      }
    } finally {
      db.close();
    }
    return out;
  }
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    const names = await sql<{ table_name: string }[]>`
      SELECT table_name FROM information_schema.tables
      WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name`;
    for (const { table_name: name } of names) {
      const rows = await sql.unsafe<{ j: string }[]>(`SELECT to_jsonb(t)::text AS j FROM "${name.replace(/"/g, '""')}" t`);
      out.set(name, rows.map((row) => row.j).sort());
    }
  } finally {
    await sql.end({ timeout: 5 });
  }
  return out;
}

async function listFiles(root: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    let entries;
    try {
      entries = await fs.readdir(dir, { withFileTypes: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
      throw error;
    }
    for (const entry of entries) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) await walk(full);
      else {
        const content = await fs.readFile(full);
        out.push(`${path.relative(root, full)} ${content.length} ${crypto.createHash("sha256").update(content).digest("hex")}`);
      }
    }
  };
  await walk(root);
  return out.sort();
}

/** What differs between two snapshots, one line per table or file list, with the first few rows each side lacks. */
export function differences(before: Snapshot, after: Snapshot): string[] {
  const out: string[] = [];
  const compare = (label: string, a: readonly string[], b: readonly string[]): void => {
    const inA = new Set(a);
    const inB = new Set(b);
    const gone = a.filter((row) => !inB.has(row));
    const added = b.filter((row) => !inA.has(row));
    if (gone.length === 0 && added.length === 0 && a.length === b.length) return;
    const show = (rows: string[]): string => rows.slice(0, 3).map((r) => (r.length > 300 ? `${r.slice(0, 300)}…` : r)).join(" | ");
    out.push(`${label}: ${a.length} → ${b.length} rows; gone ${gone.length} [${show(gone)}]; new ${added.length} [${show(added)}]`);
  };
  for (const name of new Set([...before.tables.keys(), ...after.tables.keys()])) {
    compare(name, before.tables.get(name) ?? [], after.tables.get(name) ?? []);
  }
  compare("files", before.files, after.files);
  return out;
}

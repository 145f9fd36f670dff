import fs from "node:fs";
import cliProgress from "cli-progress";
import { ConfigError, readConfig, sqlitePath, type Config } from "../config.js";
import { openStore } from "../store/open-store.js";
import { TABLES, type Row, type Store, type TableName } from "../domain/ports/store.js";
import { UsageError } from "./commands.js";
import { refreshStatistics } from "../domain/capabilities.js";

/**
 * `bloc-data copy --from <url> --to <url>`: moves a whole instance into a new, empty
 * database, on the same engine or another. Only the Store interface is used: rows
 * travel in the canonical shape of store/tables.ts, table by table, parents first.
 */

/** A copy that cannot start or did not finish; the CLI prints its message on one line. */
export class CopyError extends Error {}

export const DEFAULT_BATCH = 5000;

export type TableCounts = Record<TableName, number>;

/** What a copy reports as it goes. */
export interface CopyProgress {
  tableStarted(table: TableName, total: number): void;
  rowsCopied(table: TableName, copied: number): void;
  tableDone(table: TableName, copied: number, ms: number): void;
  /** Called once, also on failure, to leave the terminal tidy. */
  finish(): void;
}

/**
 * The one place the CLI (and its tests) open a store by URL: the rest of the
 * configuration (BLOC_PG_POOL…) comes from the environment, the URL is checked as
 * DATABASE_URL is, and a bad one is named by `option`.
 */
export async function openStoreAt(url: string, option = "DATABASE_URL"): Promise<Store> {
  return openStore(configFor(option, url));
}

function configFor(option: string, url: string): Config {
  try {
    return readConfig({ ...process.env, DATABASE_URL: url });
  } catch (error) {
    // Another variable's mistake is named by the error itself.
    if (error instanceof ConfigError && error.message.startsWith("DATABASE_URL") && option !== "DATABASE_URL") {
      throw new CopyError(`${option}: ${error.message}`);
    }
    throw error;
  }
}

function checkedUrl(option: string, url: string | undefined): string {
  if (url === undefined || url === "") throw new UsageError(`copy needs ${option} <url>`);
  return configFor(option, url).databaseUrl;
}

/** Where a URL points, for telling two URLs of one database apart. */
function identity(url: string): string {
  return url.startsWith("sqlite:") ? `sqlite:${sqlitePath(url)}` : url;
}

/** A URL fit to print: without its password. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password === "") return url;
    parsed.password = "***";
    return parsed.toString();
  } catch {
    return url;
  }
}

function describe(sizes: TableCounts, tables: readonly TableName[]): string {
  return tables.map((t) => `${t}: ${sizes[t]}`).join(", ");
}

/**
 * Copies every row of `source` into `target`, which must be empty; returns the rows
 * copied per table. Refuses a non-empty target before writing anything, and fails
 * when the tables' sizes differ at the end (the source written to during the copy).
 */
export async function copyStore(source: Store, target: Store, batch: number, progress: CopyProgress): Promise<TableCounts> {
  const before = await target.maintenance.tableSizes();
  const filled = TABLES.filter((t) => before[t] > 0);
  if (filled.length > 0) {
    throw new CopyError(`the target is not empty (rows in ${describe(before, filled)}); copy only into a new, empty database`);
  }
  const totals = await source.maintenance.tableSizes();
  const copied = Object.fromEntries(TABLES.map((t) => [t, 0])) as TableCounts;
  for (const table of TABLES) {
    const started = Date.now();
    progress.tableStarted(table, totals[table]);
    let rows = await source.maintenance.exportRows(table, undefined, batch);
    while (rows.length > 0) {
      const last: Row = rows[rows.length - 1]!;
      // Reading the next batch while this one is written: the two stores may be two servers.
      const next = rows.length < batch ? Promise.resolve([]) : source.maintenance.exportRows(table, last, batch);
      next.catch(() => undefined); // handled when awaited; not an unhandled rejection if the write fails first
      await target.maintenance.importRows(table, rows);
      copied[table] += rows.length;
      progress.rowsCopied(table, copied[table]);
      rows = await next;
    }
    progress.tableDone(table, copied[table], Date.now() - started);
  }
  // The planner's statistics of what was loaded, before a service answers from it.
  await refreshStatistics(target);
  const [from, to] = await Promise.all([source.maintenance.tableSizes(), target.maintenance.tableSizes()]);
  const differ = TABLES.filter((t) => from[t] !== to[t] || copied[t] !== to[t]);
  if (differ.length > 0) {
    throw new CopyError(`the copy is incomplete: ${differ.map((t) => `${t} has ${from[t]} rows in the source, ` +
      `${to[t]} in the target (${copied[t]} copied)`).join("; ")}. Was the source written to during the copy? ` +
      "Stop its servers, remove the target and copy again");
  }
  return copied;
}

/** A bar per table on a terminal; otherwise one line per table. */
function stderrProgress(stream: NodeJS.WriteStream = process.stderr): CopyProgress {
  if (!stream.isTTY) {
    return {
      tableStarted: () => undefined,
      rowsCopied: () => undefined,
      tableDone: (table, copied, ms) => { stream.write(`copy: ${table}: ${copied} rows in ${(ms / 1000).toFixed(1)} s\n`); },
      finish: () => undefined,
    };
  }
  let bar: cliProgress.SingleBar | undefined;
  const width = Math.max(...TABLES.map((t) => t.length));
  return {
    tableStarted(table, total) {
      bar = new cliProgress.SingleBar({
        stream, hideCursor: true, clearOnComplete: false,
        format: `${table.padEnd(width)} [{bar}] {percentage}% | {value}/{total} rows | {duration_formatted}`,
      }, cliProgress.Presets.shades_classic);
      bar.start(total, 0);
    },
    rowsCopied(_table, copied) {
      // The source may have grown since it was counted.
      if (bar && copied > bar.getTotal()) bar.setTotal(copied);
      bar?.update(copied);
    },
    tableDone(_table, copied) {
      // Its final count, also when the source changed since it was counted (0 of 0 shows as done).
      if (bar && bar.getTotal() !== copied) bar.setTotal(copied);
      bar?.update(copied);
      bar?.stop();
      bar = undefined;
    },
    finish() {
      bar?.stop();
      bar = undefined;
    },
  };
}

/** A store, or a one-line error naming the option (a missing PostgreSQL database, a refused login…). */
async function opened(url: string, option: string): Promise<Store> {
  try {
    return await openStoreAt(url, option);
  } catch (error) {
    if (error instanceof CopyError) throw error;
    throw new CopyError(`${option}: cannot open ${redactUrl(url)}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

export interface CopyOptions {
  readonly from?: string | undefined;
  readonly to?: string | undefined;
  readonly batch?: string | undefined;
}

export interface CopyReport {
  readonly from: string;
  readonly to: string;
  readonly tables: TableCounts;
  readonly rows: number;
  readonly seconds: number;
}

/** The `copy` command: opens both stores, copies, closes them; the report goes to stdout. */
export async function runCopy(options: CopyOptions, progress: CopyProgress = stderrProgress()): Promise<CopyReport> {
  const from = checkedUrl("--from", options.from);
  const to = checkedUrl("--to", options.to);
  const batch = Number(options.batch ?? DEFAULT_BATCH);
  if (!Number.isInteger(batch) || batch < 1 || batch > 100_000) {
    throw new CopyError(`--batch must be a whole number from 1 to 100000, got "${options.batch}"`);
  }
  if (identity(from) === identity(to)) throw new CopyError("--from and --to name the same database");
  // Opening a SQLite URL creates the file: a mistyped source would be copied as an empty instance.
  if (from.startsWith("sqlite:") && sqlitePath(from) !== ":memory:" && !fs.existsSync(sqlitePath(from))) {
    throw new CopyError(`--from: there is no database at ${sqlitePath(from)}`);
  }
  const started = Date.now();
  const source = await opened(from, "--from");
  try {
    const target = await opened(to, "--to");
    try {
      const tables = await copyStore(source, target, batch, progress);
      return {
        from: redactUrl(from), to: redactUrl(to), tables,
        rows: TABLES.reduce((sum, t) => sum + tables[t], 0),
        seconds: Math.round((Date.now() - started) / 100) / 10,
      };
    } finally {
      progress.finish();
      await target.close();
    }
  } finally {
    await source.close();
  }
}

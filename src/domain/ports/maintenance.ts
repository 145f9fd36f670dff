import type { NewRecord } from "./records.js";
import type { TxViews } from "./views.js";

/* What operators' tools need of an engine: copies and backups, bulk loads, statistics, health. */

/**
 * The tables an instance consists of, parents before children: what `bloc-data copy`
 * moves. Rows travel in a canonical shape (SQLite's column names; integers as numbers;
 * JSON columns such as `records.data` and `users.profile` as JSON text).
 */
export const TABLES = [
  "users", "roles", "user_roles", "modules", "blocs", "fields", "tokens", "grants", "role_grants", "restrictions",
  "records", "deleted_records", "sequences", "files", "counter_scopes", "value_counts", "record_history", "idempotency_keys",
  "event_sequences", "events", "webhooks", "webhook_lanes", "webhook_deliveries",
] as const;
export type TableName = (typeof TABLES)[number];
/** The tables that hold the counters behind `count` and `fieldCounts` (what the benchmark reports as counter rows). */
export const COUNTER_TABLES: readonly TableName[] = ["counter_scopes", "value_counts"];
export type Row = Record<string, string | number | null>;

/** Rows of the tables, read as `Maintenance.exportRows` reads them. */
export interface RowSource {
  /** Rows of a table in primary-key order, after `after` (a row's key columns), at most `limit`. */
  exportRows(table: TableName, after: Row | undefined, limit: number): Promise<Row[]>;
}

/** What an engine does to make an answered write survive a crash or a power cut, as it reads its own settings. */
export interface Durability {
  /** The settings durability depends on, by name, as in force for the service's own connections. */
  readonly settings: Readonly<Record<string, string>>;
  /** One sentence per setting that weakens durability: what it risks and how to fix it. */
  readonly warnings: readonly string[];
}

/** What a bulk import loaded (Maintenance.bulkImport). */
export interface BulkImported {
  readonly count: number;
  /** The highest ID given to a loaded record; 0 when none was loaded. */
  readonly lastId: number;
}

/** Store.maintenance. */
export interface Maintenance {
  /**
   * Loads records of one bloc in bulk, all in one transaction that holds the bloc's
   * other writers off: each batch is written as it arrives (so memory holds one batch),
   * then `count` runs in the same transaction (the domain counts what was loaded). If a
   * batch, the source or the counting fails, nothing is kept. Checks no rule of the bloc:
   * the caller's (domain/bulk-import.ts).
   */
  bulkImport(blocId: string, batches: AsyncIterable<readonly NewRecord[]>, count: (tx: TxViews) => Promise<void>): Promise<BulkImported>;
  /**
   * Brings the planner's statistics up to date after a large load (PostgreSQL: ANALYZE),
   * so that nothing answered from the loaded rows waits for autovacuum, which lags minutes
   * behind a load or is off. Present exactly when the engine's capabilities say
   * `plannerStatistics` (domain/capabilities.ts).
   */
  refreshStatistics?(): Promise<void>;
  /** Rows of a table in primary-key order, after `after` (a row's key columns), at most `limit`. */
  exportRows(table: TableName, after: Row | undefined, limit: number): Promise<Row[]>;
  /** Inserts rows as they are (IDs kept) into an instance being filled by a copy; key sequences move past them. */
  importRows(table: TableName, rows: readonly Row[]): Promise<void>;
  /** Rows in each table. */
  tableSizes(): Promise<Record<TableName, number>>;
  /**
   * Runs `work` over one consistent snapshot of every table while writers go on (a
   * backup): all it reads is the state after some commit and before the next.
   */
  exportSnapshot<T>(work: (rows: RowSource) => Promise<T>): Promise<T>;
  /** The engine's durability settings, and warnings for those that weaken it. */
  durability(): Promise<Durability>;
  /** Resolves when the database answers a trivial query, throws when it cannot be reached (GET /readyz). */
  ping(): Promise<void>;
}

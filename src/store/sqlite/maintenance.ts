import type { BulkImported, Durability, Maintenance, NewRecord, Row, RowSource, TableName, TxViews } from "../../domain/ports/store.js";
import { bulkImport } from "./bulk-import.js";
import type { SqliteConnection } from "./connection.js";
import { exportRows, importRows, tableSizes } from "./copy-rows.js";
import { sqliteDurability } from "./durability.js";
import { ALL_PAGES, withSnapshotCopy } from "./snapshot.js";

/**
 * Copies, backups, bulk loads and health of the SQLite engine (Store.maintenance). It
 * keeps no planner statistics (capabilities: plannerStatistics false): value-plan.ts picks
 * each query's index from the counters.
 */
export class SqliteMaintenance implements Maintenance {
  constructor(private readonly connection: SqliteConnection, private readonly views: TxViews) {}

  /**
   * One IMMEDIATE transaction for the whole load: it holds the database's write lock, and
   * this process's connection, until the last batch and the counters are written (so
   * `batches` must not use this store). Writers of other processes wait up to the busy
   * timeout meanwhile.
   */
  bulkImport(_blocId: string, batches: AsyncIterable<readonly NewRecord[]>, count: (tx: TxViews) => Promise<void>): Promise<BulkImported> {
    return this.connection.write(async () => {
      const loaded = await bulkImport(this.connection.sql, batches);
      await count(this.views);
      return loaded;
    });
  }

  exportRows(table: TableName, after: Row | undefined, limit: number): Promise<Row[]> {
    return this.connection.read(async () => exportRows(this.connection.sql, table, after, limit));
  }

  importRows(table: TableName, rows: readonly Row[]): Promise<void> {
    return this.connection.write(async () => importRows(this.connection.sql, table, rows));
  }

  tableSizes(): Promise<Record<TableName, number>> {
    return this.connection.lock.run(async () => tableSizes(this.connection.sql));
  }

  exportSnapshot<T>(work: (rows: RowSource) => Promise<T>): Promise<T> {
    const copyTo = (file: string): Promise<void> =>
      this.connection.lock.run(async () => { await this.connection.db.backup(file, { progress: () => ALL_PAGES }); });
    return withSnapshotCopy(this.connection.file, copyTo, work);
  }

  durability(): Promise<Durability> {
    return this.connection.lock.run(async () => sqliteDurability(this.connection.db, this.connection.walSync !== undefined));
  }

  /** Not under the connection lock: it reads no table, so it need not wait for a transaction. */
  async ping(): Promise<void> {
    this.connection.db.prepare("SELECT 1").get();
  }
}

import type { BulkImported, Durability, Maintenance, NewRecord, Row, RowSource, TableName, TxViews } from "../../domain/ports/store.js";
import type { GenerationCache } from "../generation-cache.js";
import { bulkImport } from "./bulk-import.js";
import * as copy from "./copy.js";
import { onPool, run, type Db, type Pg } from "./driver.js";
import { durabilityOf, readDurability, type PgDurabilitySettings } from "./durability.js";
import { translate } from "./errors.js";
import { WriteTransaction } from "./write-transaction.js";

/** Errors of a connection the server or the network closed, not of the query sent on it. */
const LOST_CONNECTION = new Set(["ECONNRESET", "EPIPE", "CONNECTION_CLOSED", "CONNECTION_DESTROYED"]);

function connectionLost(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && LOST_CONNECTION.has(code);
}

/** Copies, backups, bulk loads, statistics and health of the PostgreSQL engine (Store.maintenance). */
export class PgMaintenance implements Maintenance {
  constructor(
    private readonly pool: Pg,
    private readonly cache: GenerationCache,
    private readonly defaults: PgDurabilitySettings,
    /** The views on a transaction's session. */
    private readonly views: (session: WriteTransaction) => TxViews,
  ) {}

  async bulkImport(blocId: string, batches: AsyncIterable<readonly NewRecord[]>, count: (tx: TxViews) => Promise<void>): Promise<BulkImported> {
    const loaded = await WriteTransaction.run(this.pool, async (session) => {
      await session.lockBloc(blocId);
      return bulkImport(session, blocId, batches, () => count(this.views(session)));
    });
    // Statistics of what was just loaded, before anything is answered from it (autovacuum may lag minutes, or be off).
    await this.refreshStatistics();
    return loaded;
  }

  async refreshStatistics(): Promise<void> {
    await run(this.pool, "ANALYZE records, counter_scopes, value_counts");
  }

  exportRows(table: TableName, after: Row | undefined, limit: number): Promise<Row[]> {
    return copy.exportRows(onPool(this.pool), table, after, limit);
  }

  async importRows(table: TableName, rows: readonly Row[]): Promise<void> {
    try {
      await this.pool.begin((sql) => copy.importRows(onPool(sql), table, rows));
    } catch (error) {
      throw translate(error);
    }
    this.cache.invalidate();
  }

  tableSizes(): Promise<Record<TableName, number>> {
    return copy.tableSizes(onPool(this.pool));
  }

  /** One REPEATABLE READ, READ ONLY transaction for the whole export: every table as of one moment. */
  async exportSnapshot<T>(work: (rows: RowSource) => Promise<T>): Promise<T> {
    try {
      return await this.pool.begin("isolation level repeatable read read only", (sql) => {
        const db: Db = { run: (text, params) => run(sql, text, params) };
        return work({ exportRows: (table, after, limit) => copy.exportRows(db, table, after, limit) });
      }) as T;
    } catch (error) {
      throw translate(error);
    }
  }

  async durability(): Promise<Durability> {
    return durabilityOf(await readDurability(onPool(this.pool)), this.defaults);
  }

  /**
   * A pooled connection the server closed (a restart, a terminated backend) fails the
   * first query sent on it, and the driver then drops it: so a lost connection is tried
   * again, at most once per connection the pool may hold, before the store is called
   * unreachable.
   */
  async ping(): Promise<void> {
    for (let attempt = 0; ; attempt += 1) {
      try {
        await this.pool.unsafe("SELECT 1");
        return;
      } catch (error) {
        if (attempt >= (this.pool.options.max ?? 1) || !connectionLost(error)) throw error;
      }
    }
  }
}

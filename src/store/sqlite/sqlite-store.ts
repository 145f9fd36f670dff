import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { CounterDeltas } from "../../domain/counters.js";
import { BaseStore } from "../base-store.js";
import { GenerationCache } from "../generation-cache.js";
import { RequestCounts } from "../request-counts.js";
import { Transactions } from "../transactions.js";
import type { BulkImported, Durability, NewRecord, Row, RowSource, Store, StoreReads, TableName, TransactionOptions, Tx } from "../store.js";
import { bulkImport } from "./bulk-import.js";
import { exportRows, importRows, tableSizes } from "./copy-rows.js";
import { ConnectionLock } from "./connection-lock.js";
import { sqliteDurability } from "./durability.js";
import { translate } from "./errors.js";
import { purgeIdempotencyKeys } from "./idempotency.js";
import { migrate } from "./schema.js";
import { SqliteSession, writeCounters } from "./session.js";
import { ALL_PAGES, withSnapshotCopy } from "./snapshot.js";
import { Statements } from "./statements.js";

const NOTHING = new CounterDeltas();

/** Wraps every method of `target` so that it runs while holding the connection. */
function underLock<T extends object>(target: T, lock: ConnectionLock): T {
  return new Proxy(target, {
    get(object, key) {
      const value: unknown = Reflect.get(object, key);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => lock.run(async () => {
        try {
          return await (value as (...a: unknown[]) => unknown).apply(object, args);
        } catch (error) {
          throw translate(error);
        }
      });
    },
  });
}

/**
 * The embedded engine: one SQLite file in WAL mode, shared safely by several processes
 * (writers queue on the file's write lock for up to the busy timeout). Each process has
 * one connection, held by one transaction or snapshot at a time.
 */
export class SqliteStore extends BaseStore implements Store {
  private readonly db: Database.Database;
  private readonly sql: Statements;
  private readonly lock = new ConnectionLock();
  private readonly cache: GenerationCache;
  private readonly transactions: Transactions<SqliteSession>;
  private readonly requests = new RequestCounts();
  protected readonly direct: StoreReads;

  constructor(private readonly file: string) {
    super();
    if (file !== ":memory:") fs.mkdirSync(path.dirname(file), { recursive: true });
    this.db = new Database(file);
    this.db.pragma("journal_mode = WAL");
    // FULL: an answered write must survive a power cut, not only a crash (durability.ts).
    this.db.pragma("synchronous = FULL");
    this.db.pragma("busy_timeout = 5000");
    this.db.pragma("foreign_keys = ON");
    migrate(this.db);
    this.sql = new Statements(this.db);
    const generation = this.sql.get("SELECT n FROM generation WHERE id = 1");
    this.cache = new GenerationCache(async () => (generation.get() as { n: number }).n);
    const session = new SqliteSession(this.sql, this.cache, NOTHING, NOTHING);
    this.direct = underLock<StoreReads>(session, this.lock);
    this.transactions = new Transactions<SqliteSession>({
      transaction: (work) => this.lock.run(() => this.inTransaction("BEGIN IMMEDIATE", () => work(session))),
      savepoint: async (_session, work) => {
        this.db.exec("SAVEPOINT unit");
        try {
          const result = await work();
          this.db.exec("RELEASE unit");
          return result;
        } catch (error) {
          this.db.exec("ROLLBACK TO unit; RELEASE unit");
          this.cache.invalidate();
          throw translate(error);
        }
      },
      unit: (_session, counters, pending) => new SqliteSession(this.sql, this.cache, counters, pending),
      writeCounters: async (_session, deltas) => writeCounters(this.sql, deltas),
    });
  }

  /** Runs `work` between `begin` and COMMIT; anything thrown rolls it all back. */
  private async inTransaction<T>(begin: string, work: () => Promise<T>): Promise<T> {
    this.db.exec(begin);
    try {
      const result = await work();
      this.db.exec("COMMIT");
      return result;
    } catch (error) {
      if (this.db.inTransaction) this.db.exec("ROLLBACK");
      this.cache.invalidate();
      throw translate(error);
    }
  }

  transaction<T>(work: (tx: Tx) => Promise<T>, options?: TransactionOptions): Promise<T> {
    return this.transactions.run(work, options);
  }

  snapshot<T>(work: (view: StoreReads) => Promise<T>): Promise<T> {
    // A deferred transaction reads one snapshot from its first read on.
    return this.lock.run(() => this.inTransaction("BEGIN", () => work(new SqliteSession(this.sql, this.cache, NOTHING, NOTHING))));
  }

  holdContent(sha256: string, createdAt: string): Promise<string> {
    return this.lock.run(async () => {
      const id = crypto.randomUUID();
      this.sql.get("INSERT INTO content_holds (id, sha256, created_at) VALUES (?, ?, ?)").run(id, sha256, createdAt);
      return id;
    });
  }

  releaseContent(hold: string, sha256: string, remove: () => void): Promise<void> {
    return this.lock.run(() => this.inTransaction("BEGIN IMMEDIATE", async () => {
      this.sql.get("DELETE FROM content_holds WHERE id = ?").run(hold);
      const used = this.sql.get(`SELECT 1 FROM files WHERE sha256 = ?
        UNION ALL SELECT 1 FROM content_holds WHERE sha256 = ? LIMIT 1`).get(sha256, sha256) !== undefined;
      // Removed inside the transaction: an upload of the same content takes its hold only after this commits.
      if (!used) remove();
    }));
  }

  purgeIdempotencyKeys(before: number): Promise<number> {
    return this.lock.run(() => this.inTransaction("BEGIN IMMEDIATE", async () => purgeIdempotencyKeys(this.sql, before)));
  }

  /** Per process: counting in the file would make every request a write that waits for the write lock. */
  async countRequest(tokenId: string, window: number): Promise<number> {
    return this.requests.count(tokenId, window);
  }

  /**
   * One IMMEDIATE transaction for the whole load: it holds the database's write lock, and
   * this process's connection, until the last batch and the counters are written (so
   * `batches` must not use this store). Writers of other processes wait up to the busy
   * timeout meanwhile.
   */
  bulkImport(blocId: string, batches: AsyncIterable<readonly NewRecord[]>): Promise<BulkImported> {
    return this.lock.run(() => this.inTransaction("BEGIN IMMEDIATE", () => bulkImport(this.sql, blocId, batches)));
  }

  exportRows(table: TableName, after: Row | undefined, limit: number): Promise<Row[]> {
    return this.lock.run(async () => exportRows(this.sql, table, after, limit));
  }

  importRows(table: TableName, rows: readonly Row[]): Promise<void> {
    return this.lock.run(() => this.inTransaction("BEGIN IMMEDIATE", async () => importRows(this.sql, table, rows)));
  }

  tableSizes(): Promise<Record<TableName, number>> {
    return this.lock.run(async () => tableSizes(this.sql));
  }

  exportSnapshot<T>(work: (rows: RowSource) => Promise<T>): Promise<T> {
    const copyTo = (file: string): Promise<void> =>
      this.lock.run(async () => { await this.db.backup(file, { progress: () => ALL_PAGES }); });
    return withSnapshotCopy(this.file, copyTo, work);
  }

  durability(): Promise<Durability> {
    return this.lock.run(async () => sqliteDurability(this.db));
  }

  /** Not under the connection lock: it reads no table, so it need not wait for a transaction. */
  async ping(): Promise<void> {
    this.db.prepare("SELECT 1").get();
  }

  async close(): Promise<void> {
    await this.lock.run(async () => this.db.close());
  }
}

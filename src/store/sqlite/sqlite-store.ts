import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { CounterDeltas } from "../../domain/counting/deltas.js";
import type { TokenInfo, User } from "../../domain/model.js";
import { internalId, toTokenInfo, toUser, TOKEN_INFO_COLUMNS, USER_COLUMNS, type TokenInfoRow, type UserRow } from "../config-rows.js";
import { BaseStore } from "../base-store.js";
import { GenerationCache } from "../generation-cache.js";
import { RequestCounts } from "../request-counts.js";
import { SqliteSignInAttempts } from "./sign-in-attempts.js";
import { Transactions } from "../../domain/transactions.js";
import type {
  BulkImported, Delivery, Durability, Lane, LaneProgress, NewDelivery, NewRecord, Row, RowSource, Store, StoreReads, StoredEvent,
  SignInAttempts, TableName, TransactionOptions, Tx, Webhook,
} from "../../domain/ports/store.js";
import { bulkImport } from "./bulk-import.js";
import { exportRows, importRows, tableSizes } from "./copy-rows.js";
import { ConnectionLock } from "./connection-lock.js";
import { sqliteDurability } from "./durability.js";
import { translate } from "./errors.js";
import * as events from "./events.js";
import { purgeIdempotencyKeys } from "./idempotency.js";
import { migrate } from "./schema.js";
import { SqliteSession } from "./session.js";
import { ALL_PAGES, withSnapshotCopy } from "./snapshot.js";
import { Statements } from "./statements.js";
import { WalSync } from "./wal-sync.js";

export interface SqliteStoreOptions {
  /** Flushes the -wal file after each write transaction (wal-sync.ts); replaced only by tests. */
  readonly syncFile?: (file: string) => Promise<void>;
}

const NOTHING = new CounterDeltas();

/**
 * Wraps every method of `target` so that it runs while holding the connection, and
 * answers only once `durable` resolves (what it read is then on disk).
 */
function underLock<T extends object>(target: T, lock: ConnectionLock, durable: () => Promise<void>): T {
  return new Proxy(target, {
    get(object, key) {
      const value: unknown = Reflect.get(object, key);
      if (typeof value !== "function") return value;
      return async (...args: unknown[]) => {
        const result = await lock.run(async () => {
          try {
            return await (value as (...a: unknown[]) => unknown).apply(object, args);
          } catch (error) {
            throw translate(error);
          }
        });
        await durable();
        return result;
      };
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
  private readonly signInAttempts: SqliteSignInAttempts;
  /** Flushes the WAL after each write transaction; undefined when the database runs another journal mode. */
  private readonly walSync: WalSync | undefined;
  protected readonly direct: StoreReads;

  constructor(private readonly file: string, options: SqliteStoreOptions = {}) {
    super();
    if (file !== ":memory:") fs.mkdirSync(path.dirname(file), { recursive: true });
    this.db = new Database(file);
    const journal = String(this.db.pragma("journal_mode = WAL", { simple: true }));
    // FULL: an answered write must survive a power cut, not only a crash (durability.ts).
    this.db.pragma("synchronous = FULL");
    this.db.pragma("busy_timeout = 5000");
    this.db.pragma("foreign_keys = ON");
    migrate(this.db);
    // In WAL mode the commit's sync moves off the event loop (wal-sync.ts): NORMAL writes
    // the frames, WalSync flushes them before anyone is answered. Any other journal mode
    // (a file system that cannot hold a WAL, an in-memory database) stays FULL.
    if (journal === "wal" && !this.db.memory) {
      this.walSync = new WalSync(`${path.resolve(file)}-wal`, options.syncFile);
      this.db.pragma("synchronous = NORMAL");
    }
    this.sql = new Statements(this.db);
    this.signInAttempts = new SqliteSignInAttempts(this.sql);
    const generation = this.sql.get("SELECT n FROM generation WHERE id = 1");
    this.cache = new GenerationCache(async () => (generation.get() as { n: number }).n);
    const session = new SqliteSession(this.sql, this.cache, NOTHING, NOTHING);
    this.direct = underLock<StoreReads>(session, this.lock, () => this.durable());
    this.transactions = new Transactions<SqliteSession>({
      transaction: (work) => this.lock.run(() => this.inTransaction("BEGIN IMMEDIATE", () => work(session))),
      durable: () => this.durable(),
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
    });
  }

  /**
   * Resolves once every commit of this process so far is on disk. Whatever is answered
   * waits for it: a write's answer, and a read's, which may show a write that is not
   * answered yet.
   */
  private durable(): Promise<void> {
    return this.walSync ? this.walSync.flushed() : Promise.resolve();
  }

  /** A write transaction, answered once durable; the connection is handed on at COMMIT. */
  private async write<T>(work: () => Promise<T>): Promise<T> {
    const result = await this.lock.run(() => this.inTransaction("BEGIN IMMEDIATE", work));
    await this.durable();
    return result;
  }

  /**
   * A write whose caller need not wait for the disk: webhook bookkeeping, which a crash
   * can only roll back to an earlier position (its events are then sent again).
   */
  private bookkeeping<T>(work: () => T): Promise<T> {
    return this.lock.run(() => this.inTransaction("BEGIN IMMEDIATE", async () => work()));
  }

  /** A read, answered once what it may have seen is durable. */
  private async read<T>(work: () => Promise<T>): Promise<T> {
    const result = await this.lock.run(work);
    await this.durable();
    return result;
  }

  /**
   * Runs `work` between `begin` and COMMIT; anything thrown rolls it all back. A write
   * transaction (BEGIN IMMEDIATE) is counted for the WAL's flush (wal-sync.ts), which its
   * caller awaits before answering.
   */
  private async inTransaction<T>(begin: string, work: () => Promise<T>): Promise<T> {
    const writes = begin !== "BEGIN";
    if (writes) this.walSync?.check();
    this.db.exec(begin);
    try {
      const result = await work();
      this.db.exec("COMMIT");
      if (writes) this.walSync?.committed();
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
    // Flushed before it begins, not after: a snapshot may stream what it reads (reports) as
    // it goes. Holding the connection, no commit of this process can come in between.
    return this.lock.run(async () => {
      await this.durable();
      return this.inTransaction("BEGIN", () => work(new SqliteSession(this.sql, this.cache, NOTHING, NOTHING)));
    });
  }

  holdContent(sha256: string, createdAt: string): Promise<string> {
    return this.write(async () => {
      const id = crypto.randomUUID();
      this.sql.get("INSERT INTO content_holds (id, sha256, created_at) VALUES (?, ?, ?)").run(id, sha256, createdAt);
      return id;
    });
  }

  releaseContent(hold: string, sha256: string, remove: () => void): Promise<void> {
    return this.write(async () => {
      this.sql.get("DELETE FROM content_holds WHERE id = ?").run(hold);
      const used = this.sql.get(`SELECT 1 FROM files WHERE sha256 = ?
        UNION ALL SELECT 1 FROM content_holds WHERE sha256 = ? LIMIT 1`).get(sha256, sha256) !== undefined;
      // Removed inside the transaction: an upload of the same content takes its hold only after this commits.
      if (!used) remove();
    });
  }

  purgeIdempotencyKeys(before: number): Promise<number> {
    return this.write(async () => purgeIdempotencyKeys(this.sql, before));
  }

  /** In the file, unlike countRequest: a sign-in is rare, and its attempts must be counted across processes. */
  countSignInAttempt(emailHash: string, nowMs: number, windowMs: number): Promise<SignInAttempts> {
    return this.write(async () => this.signInAttempts.count(emailHash, nowMs, windowMs));
  }

  clearSignInAttempts(emailHash: string): Promise<void> {
    return this.write(async () => this.signInAttempts.clear(emailHash));
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
  bulkImport(blocId: string, batches: AsyncIterable<readonly NewRecord[]>, count: (tx: Tx) => Promise<void>): Promise<BulkImported> {
    return this.write(async () => {
      const loaded = await bulkImport(this.sql, batches);
      await count(new SqliteSession(this.sql, this.cache, new CounterDeltas(), NOTHING));
      return loaded;
    });
  }

  /** SQLite keeps no statistics here: value-plan.ts picks each query's index from the counters. */
  async refreshStatistics(): Promise<void> {}

  exportRows(table: TableName, after: Row | undefined, limit: number): Promise<Row[]> {
    return this.read(async () => exportRows(this.sql, table, after, limit));
  }

  importRows(table: TableName, rows: readonly Row[]): Promise<void> {
    return this.write(async () => importRows(this.sql, table, rows));
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
    return this.lock.run(async () => sqliteDurability(this.db, this.walSync !== undefined));
  }

  /** Not under the connection lock: it reads no table, so it need not wait for a transaction. */
  listUsers(): Promise<User[]> {
    return this.read(async () => (this.sql.get(`SELECT ${USER_COLUMNS} FROM users ORDER BY id`).all() as UserRow[]).map(toUser));
  }

  listTokens(userId: string): Promise<TokenInfo[]> {
    return this.read(async () => (this.sql.get(`SELECT ${TOKEN_INFO_COLUMNS} FROM tokens WHERE user_id = ? ORDER BY created_at, id`)
      .all(internalId(userId)) as TokenInfoRow[]).map(toTokenInfo));
  }

  noteTokenUse(tokenId: string, at: string): Promise<void> {
    return this.write(async () => {
      this.sql.get("UPDATE tokens SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)").run(at, tokenId, at);
    });
  }

  eventIdKey(): Promise<string> {
    return this.read(async () => (this.sql.get("SELECT value FROM instance_keys WHERE name = 'event-ids'").get() as { value: string }).value);
  }

  lastEventSeq(blocId: string): Promise<number> {
    return this.read(async () => events.lastEventSeq(this.sql, blocId));
  }

  eventsAfter(blocId: string, afterSeq: number, limit: number, maxBytes: number): Promise<StoredEvent[]> {
    return this.read(async () => events.eventsAfter(this.sql, blocId, afterSeq, limit, maxBytes));
  }

  findEvent(blocId: string, seq: number): Promise<StoredEvent | undefined> {
    return this.read(async () => events.findEvent(this.sql, blocId, seq));
  }

  listWebhooks(): Promise<Webhook[]> {
    return this.read(async () => events.listWebhooks(this.sql));
  }

  findWebhook(id: string): Promise<Webhook | undefined> {
    return this.read(async () => events.findWebhook(this.sql, id));
  }

  deleteWebhook(id: string): Promise<boolean> {
    return this.write(async () => events.deleteWebhook(this.sql, id));
  }

  listDeliveries(webhookId: string, limit: number, beforeId?: number): Promise<Delivery[]> {
    return this.read(async () => events.listDeliveries(this.sql, webhookId, limit, beforeId));
  }

  findDelivery(webhookId: string, id: number): Promise<Delivery | undefined> {
    return this.read(async () => events.findDelivery(this.sql, webhookId, id));
  }

  addDeliveries(deliveries: readonly NewDelivery[]): Promise<number> {
    return this.bookkeeping(() => events.addDeliveries(this.sql, deliveries));
  }

  async claimLanes(owner: string, nowMs: number, leaseUntilMs: number, limit: number, busy: readonly string[]): Promise<Lane[]> {
    // Most ticks find nothing due: asked with a read, so that they take no write lock.
    if (!(await this.lock.run(async () => events.claimable(this.sql, nowMs, busy)))) return [];
    return this.bookkeeping(() => events.claimLanes(this.sql, owner, nowMs, leaseUntilMs, limit, busy));
  }

  saveLane(owner: string, webhookId: string, blocId: string, progress: LaneProgress, deliveries: readonly NewDelivery[],
    leaseUntilMs: number): Promise<boolean> {
    return this.bookkeeping(() => events.saveLane(this.sql, owner, webhookId, blocId, progress, deliveries, leaseUntilMs));
  }

  retryLaneNow(webhookId: string, blocId: string): Promise<void> {
    return this.bookkeeping(() => events.retryLaneNow(this.sql, webhookId, blocId));
  }

  pruneEvents(beforeMs: number, limit: number): Promise<number> {
    return this.bookkeeping(() => events.pruneEvents(this.sql, beforeMs, limit));
  }

  pruneDeliveries(keep: number, limit: number): Promise<number> {
    return this.bookkeeping(() => events.pruneDeliveries(this.sql, keep, limit));
  }

  async ping(): Promise<void> {
    this.db.prepare("SELECT 1").get();
  }

  async close(): Promise<void> {
    await this.lock.run(async () => {
      // Answers still waiting for a flush get it before closing removes the -wal file.
      await this.durable().catch(() => undefined);
      this.db.close();
    });
  }
}

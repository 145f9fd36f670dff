import { ConfigError } from "../../config.js";
import { CounterDeltas } from "../../domain/counting/deltas.js";
import { StoreUnavailableError } from "../../domain/errors.js";
import type { TokenInfo, User } from "../../domain/model.js";
import { internalId, toTokenInfo, toUser, TOKEN_INFO_COLUMNS, USER_COLUMNS, type TokenInfoRow, type UserRow } from "../config-rows.js";
import { BaseStore } from "../base-store.js";
import { GenerationCache } from "../generation-cache.js";
import type {
  BulkImported, Delivery, Durability, Lane, LaneProgress, NewDelivery, NewRecord, Row, RowSource, Store, StoreReads, StoredEvent,
  SignInAttempts, TableName, TransactionOptions, Tx, Webhook,
} from "../../domain/ports/store.js";
import { Transactions, type TransactionEngine } from "../../domain/transactions.js";
import { bulkImport } from "./bulk-import.js";
import { holdContent, releaseContent } from "./content.js";
import * as copy from "./copy.js";
import { Deadline } from "./deadline.js";
import { connect, onPool, onPoolWithin, run, type Db, type Outages, type Pg } from "./driver.js";
import { guardDriverFaults } from "./driver-fault.js";
import { durabilityOf, needsSynchronousCommit, readDurability, type PgDurabilitySettings } from "./durability.js";
import { translate } from "./errors.js";
import * as events from "./events.js";
import { purgeIdempotencyKeys } from "./idempotency.js";
import { Orphans } from "./orphans.js";
import { RateWindows } from "./rate-windows.js";
import { PgSignInAttempts } from "./sign-in-attempts.js";
import { PgReads, type CachedConfig } from "./reads.js";
import { migrate } from "./schema.js";
import { Session } from "./session.js";
import { Sockets } from "./sockets.js";
import { PgUnit } from "./unit.js";

/**
 * A database that cannot be reached or entered is the operator's to fix, like a bad
 * environment value: one line naming DATABASE_URL (never the URL, which may hold a
 * password), not a stack.
 */
function unreachable(error: unknown): ConfigError | StoreUnavailableError | undefined {
  const code = error instanceof Error && "code" in error ? String(error.code) : "";
  const message = `DATABASE_URL: cannot open the PostgreSQL database: ${(error as Error).message}`;
  // 3D000 no such database, 28… refused credentials, ENOTFOUND no such host: the setting is wrong.
  if (/^(3D000|28|ENOTFOUND$)/.test(code)) return new ConfigError(message);
  // 08… connection failures, 57P03 starting up, the socket's own (ECONNREFUSED, ETIMEDOUT, …),
  // CONNECT_TIMEOUT the driver's: the server is away, and may come back (a worker waits for it).
  if (/^(08|57P03|E[A-Z]+$|CONNECT_TIMEOUT)/.test(code)) return new StoreUnavailableError(message, { cause: error });
  return undefined;
}

/**
 * Connections for generation reads and config loads asked for inside transactions
 * (reads.ts: CachedConfig), beside the main pool: short reads that never wait for a
 * lock. Two, not one: under a burst of requests, every turn of the event loop reads the
 * generation, and one connection became the queue the whole burst waited in. A process
 * holds BLOC_PG_POOL + 2 connections at most.
 */
const META_POOL = 2;

/** Errors of a connection the server or the network closed, not of the query sent on it. */
const LOST_CONNECTION = new Set(["ECONNRESET", "EPIPE", "CONNECTION_CLOSED", "CONNECTION_DESTROYED"]);

function connectionLost(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && LOST_CONNECTION.has(code);
}

/**
 * The PostgreSQL engine: a pool of BLOC_PG_POOL connections shared by several
 * processes' worth of writers. Transactions are READ COMMITTED; what must not change
 * under a unit (a bloc's records while it checks rules on them) is protected by the
 * bloc's advisory lock (Tx.lockBloc), taken by the units that need it.
 */
/** How long close() lets the pools' connections finish before cutting them, in seconds. */
const END_TIMEOUT_S = 2;

export class PostgresStore extends BaseStore implements Store {
  protected readonly direct: StoreReads;
  private readonly transactions: Transactions<Session>;
  private readonly cache: GenerationCache;
  private readonly meta: Db;
  private readonly loading = new Map<string, Promise<unknown>>();
  private readonly rateWindows: RateWindows;
  private readonly signInAttempts: PgSignInAttempts;
  /** Single statements on the pool, within the deadline when there is one. */
  private readonly db: Db;
  /** The generation number last read, for loads to tell whether it moved while they ran. */
  private generation = -1;
  /** Server sessions of transactions whose connection was lost, ended once the server is reachable. */
  private readonly orphans: Orphans | undefined;

  private constructor(
    private readonly pool: Pg, private readonly metaPool: Pg, readonly schemaVersion: number,
    private readonly defaults: PgDurabilitySettings, private readonly outages: Outages | undefined,
  ) {
    super();
    const meta = outages ? onPoolWithin(metaPool, outages.timeoutMs, outages.sockets) : onPool(metaPool);
    this.meta = meta;
    this.orphans = outages ? new Orphans(meta) : undefined;
    this.cache = new GenerationCache(async () => {
      const [row] = await meta.run<{ n: number }>("SELECT n FROM generation WHERE id = 1");
      this.generation = row!.n;
      return row!.n;
    });
    const direct = outages ? onPoolWithin(pool, outages.timeoutMs, outages.sockets) : onPool(pool);
    this.db = direct;
    this.direct = new PgReads(direct, { ...this.shared(), loadFrom: direct, bypass: () => false });
    this.transactions = new Transactions(this.engine());
    this.rateWindows = new RateWindows(direct);
    this.signInAttempts = new PgSignInAttempts(direct);
  }

  /** What every reader shares for cached reads (reads.ts). */
  private shared(): Omit<CachedConfig, "bypass"> {
    return { cache: this.cache, meta: this.meta, loading: this.loading, generation: () => this.generation };
  }

  /**
   * Connects, brings the schema up to date (safely, if several processes start at once) and
   * opens the store. With `timeoutMs` (BLOC_STORE_TIMEOUT_MS), each statement and
   * transaction of a request fails as the store being unavailable once it has waited that
   * long, and its connection is cut (deadline.ts); 0: no deadline.
   */
  static async open(url: string, poolSize: number, timeoutMs = 0): Promise<PostgresStore> {
    guardDriverFaults();
    const outages: Outages | undefined = timeoutMs > 0 ? { sockets: new Sockets(), timeoutMs } : undefined;
    // The meta pool only ever reads, so it needs no durability setting of its own.
    const metaPool = connect(url, META_POOL, {}, outages);
    let pool: Pg | undefined;
    try {
      // What the server gives this role and database, read before the pool that writes is made (durability.ts).
      const defaults = await readDurability(onPool(metaPool));
      const writer = connect(url, poolSize, needsSynchronousCommit(defaults) ? { synchronous_commit: "on" } : {}, outages);
      pool = writer;
      const version = await migrate(writer);
      // Every connection opened now, while nothing waits: the first requests would otherwise
      // each wait for a connection to be made (TCP, authentication, the driver's type lookup).
      await Promise.all([
        ...Array.from({ length: poolSize }, () => writer.unsafe("SELECT 1")),
        ...Array.from({ length: META_POOL }, () => metaPool.unsafe("SELECT 1")),
      ]);
      return new PostgresStore(writer, metaPool, version, defaults, outages);
    } catch (error) {
      await Promise.all([pool?.end(), metaPool.end()]);
      throw unreachable(error) ?? translate(error);
    }
  }

  private engine(): TransactionEngine<Session> {
    return {
      transaction: async <T>(work: (session: Session) => Promise<T>, deadline?: number): Promise<T> => {
        let wroteConfig = false;
        try {
          const result = await Session.run(this.pool, async (session) => {
            try {
              return await work(session);
            } finally {
              wroteConfig = session.wroteConfig;
            }
          }, this.deadlineAt(deadline), this.orphans);
          // Committed: readers in this turn of the event loop must look at the generation again.
          if (wroteConfig) this.cache.changed();
          return result;
        } catch (error) {
          // Entries loaded while it ran may show what never happened.
          if (wroteConfig) this.cache.invalidate();
          throw error;
        }
      },
      savepoint: <T>(session: Session, work: () => Promise<T>): Promise<T> => session.unit(work),
      unit: (session: Session, counters: CounterDeltas, pending: CounterDeltas): Tx =>
        new PgUnit(session, this.shared(), counters, pending),
    };
  }

  private deadlineAt(at: number | undefined): Deadline {
    return at === undefined || !this.outages ? Deadline.NONE : Deadline.at(at, this.outages.timeoutMs, this.outages.sockets);
  }

  /** `work` within the deadline, when there is one: for work whose statements the driver sends itself (sql.begin). */
  private within<T>(work: () => Promise<T>): Promise<T> {
    return this.outages ? Deadline.in(this.outages.timeoutMs, this.outages.sockets).run(work) : work();
  }

  transaction<T>(work: (tx: Tx) => Promise<T>, options?: TransactionOptions): Promise<T> {
    return this.transactions.run(work, { ...options, deadline: this.outages ? performance.now() + this.outages.timeoutMs : undefined });
  }

  /** One REPEATABLE READ, READ ONLY transaction: every read inside sees the same committed state. */
  async snapshot<T>(work: (view: StoreReads) => Promise<T>): Promise<T> {
    try {
      return await this.within(() => this.pool.begin("isolation level repeatable read read only", (sql) =>
        work(new PgReads(onPool(sql), { ...this.shared(), bypass: () => false }))) as Promise<T>);
    } catch (error) {
      throw translate(error);
    }
  }

  holdContent(sha256: string, createdAt: string): Promise<string> {
    return this.within(() => holdContent(this.pool, sha256, createdAt));
  }

  releaseContent(hold: string, sha256: string, remove: () => void): Promise<void> {
    return this.within(() => releaseContent(this.pool, hold, sha256, remove));
  }

  purgeIdempotencyKeys(before: number): Promise<number> {
    return purgeIdempotencyKeys(this.db, before);
  }

  countSignInAttempt(emailHash: string, nowMs: number, windowMs: number): Promise<SignInAttempts> {
    return this.signInAttempts.count(emailHash, nowMs, windowMs);
  }

  clearSignInAttempts(emailHash: string): Promise<void> {
    return this.signInAttempts.clear(emailHash);
  }

  countRequest(tokenId: string, window: number): Promise<number> {
    return this.rateWindows.count(tokenId, window);
  }

  async bulkImport(blocId: string, batches: AsyncIterable<readonly NewRecord[]>, count: (tx: Tx) => Promise<void>): Promise<BulkImported> {
    const loaded = await Session.run(this.pool, async (session) => {
      await session.lockBloc(blocId);
      return bulkImport(session, blocId, batches,
        () => count(new PgUnit(session, this.shared(), new CounterDeltas(), new CounterDeltas())));
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
  async listUsers(): Promise<User[]> {
    return (await this.db.run<UserRow>(`SELECT ${USER_COLUMNS} FROM users ORDER BY id`)).map(toUser);
  }

  async listTokens(userId: string): Promise<TokenInfo[]> {
    const rows = await this.db.run<TokenInfoRow>(
      `SELECT ${TOKEN_INFO_COLUMNS} FROM tokens WHERE user_id = $1::bigint ORDER BY created_at, id`, [internalId(userId)]);
    return rows.map(toTokenInfo);
  }

  async noteTokenUse(tokenId: string, at: string): Promise<void> {
    await this.db.run(
      "UPDATE tokens SET last_used_at = $1::text WHERE id = $2::text AND (last_used_at IS NULL OR last_used_at < $1::text)", [at, tokenId]);
  }

  async eventIdKey(): Promise<string> {
    const [row] = await this.db.run<{ value: string }>("SELECT value FROM instance_keys WHERE name = 'event-ids'");
    return row!.value;
  }

  lastEventSeq(blocId: string): Promise<number> {
    return events.lastEventSeq(this.db, blocId);
  }

  eventsAfter(blocId: string, afterSeq: number, limit: number, maxBytes: number): Promise<StoredEvent[]> {
    return events.eventsAfter(this.db, blocId, afterSeq, limit, maxBytes);
  }

  findEvent(blocId: string, seq: number): Promise<StoredEvent | undefined> {
    return events.findEvent(this.db, blocId, seq);
  }

  listWebhooks(): Promise<Webhook[]> {
    return events.listWebhooks(this.db);
  }

  findWebhook(id: string): Promise<Webhook | undefined> {
    return events.findWebhook(this.db, id);
  }

  deleteWebhook(id: string): Promise<boolean> {
    return events.deleteWebhook(this.db, id);
  }

  listDeliveries(webhookId: string, limit: number, beforeId?: number): Promise<Delivery[]> {
    return events.listDeliveries(this.db, webhookId, limit, beforeId);
  }

  findDelivery(webhookId: string, id: number): Promise<Delivery | undefined> {
    return events.findDelivery(this.db, webhookId, id);
  }

  addDeliveries(deliveries: readonly NewDelivery[]): Promise<number> {
    return events.addDeliveries(this.db, deliveries);
  }

  claimLanes(owner: string, nowMs: number, leaseUntilMs: number, limit: number, busy: readonly string[]): Promise<Lane[]> {
    return events.claimLanes(this.db, owner, nowMs, leaseUntilMs, limit, busy);
  }

  saveLane(owner: string, webhookId: string, blocId: string, progress: LaneProgress, deliveries: readonly NewDelivery[],
    leaseUntilMs: number): Promise<boolean> {
    return events.saveLane(this.db, owner, webhookId, blocId, progress, deliveries, leaseUntilMs);
  }

  retryLaneNow(webhookId: string, blocId: string): Promise<void> {
    return events.retryLaneNow(this.db, webhookId, blocId);
  }

  pruneEvents(beforeMs: number, limit: number): Promise<number> {
    return events.pruneEvents(this.db, beforeMs, limit);
  }

  pruneDeliveries(keep: number, limit: number): Promise<number> {
    return events.pruneDeliveries(this.db, keep, limit);
  }

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

  async close(): Promise<void> {
    // Without a timeout, end() never resolves once a connection has been reserved and
    // released (porsager/postgres#925, open): a server stopped after transactions (which
    // reserve their connection) never exited. Nothing runs by now (close comes after the
    // requests have drained), so a connection still open after END_TIMEOUT_S is idle and
    // may be cut.
    this.orphans?.stop();
    await Promise.all([this.pool.end({ timeout: END_TIMEOUT_S }), this.metaPool.end({ timeout: END_TIMEOUT_S })]);
  }
}

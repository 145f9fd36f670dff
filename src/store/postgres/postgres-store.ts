import { ConfigError } from "../../config.js";
import { StoreUnavailableError } from "../../domain/errors.js";
import type {
  AccessWrites, AccountWrites, BlocWrites, Capabilities, EventStore, IdempotencyPurge, Maintenance, Store, StoreReads, TokenWrites,
  TransactionOptions, Tx, TxViews,
} from "../../domain/ports/store.js";
import { Transactions, type TransactionEngine } from "../../domain/transactions.js";
import { GenerationCache } from "../generation-cache.js";
import { ACCESS_WRITES, ACCOUNT_WRITES, BLOC_WRITES, committed, merge, onConnection, TOKEN_WRITES, type RunInTransaction } from "../views.js";
import type { CachedConfig } from "./config-cache.js";
import { PgContentHolds } from "./content.js";
import { Deadline } from "./deadline.js";
import { connect, onPool, onPoolWithin, type Db, type Outages, type Pg } from "./driver.js";
import { guardDriverFaults } from "./process-guard.js";
import { needsSynchronousCommit, readDurability, type PgDurabilitySettings } from "./durability.js";
import { translate } from "./errors.js";
import * as events from "./events.js";
import { purgeIdempotencyKeys } from "./idempotency.js";
import { PgMaintenance } from "./maintenance.js";
import { Orphans } from "./orphans.js";
import { RateWindows } from "./rate-windows.js";
import { PgSignInAttempts } from "./sign-in-attempts.js";
import { migrate } from "./schema.js";
import { WriteTransaction } from "./write-transaction.js";
import { Sockets } from "./sockets.js";
import { pgReadViews, pgViews } from "./views.js";

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
 * (config-cache.ts: CachedConfig), beside the main pool: short reads that never wait for a
 * lock. Two, not one: under a burst of requests, every turn of the event loop reads the
 * generation, and one connection became the queue the whole burst waited in. A process
 * holds BLOC_PG_POOL + 2 connections at most.
 */
const META_POOL = 2;

/** How long close() lets the pools' connections finish before cutting them, in seconds. */
const END_TIMEOUT_S = 2;

/**
 * The PostgreSQL engine: a pool of BLOC_PG_POOL connections shared by several
 * processes' worth of writers. Transactions are READ COMMITTED; what must not change
 * under a unit (a bloc's records while it checks rules on them) is protected by the
 * bloc's advisory lock (Tx.records.lockBloc), taken by the units that need it.
 */

export class PostgresStore implements Store {
  readonly capabilities: Capabilities = {
    // READ COMMITTED writers run side by side: a unit locks what it must not see change (session.ts lockBloc).
    perBlocLocks: true,
    claimsIdempotencyKeys: true,
    durableOnCommit: true,
    rateLimitScope: "shared",
    plannerStatistics: true,
  };
  readonly records: Store["records"];
  readonly files: Store["files"];
  readonly counters: Store["counters"];
  readonly accounts: Store["accounts"];
  readonly tokens: Store["tokens"];
  readonly blocs: Store["blocs"];
  readonly access: Store["access"];
  readonly events: EventStore;
  readonly idempotency: IdempotencyPurge;
  readonly maintenance: Maintenance;

  private readonly transactions: Transactions<WriteTransaction>;
  /** Transactions that count a bloc again, on a connection of their own (TransactionOptions.recount); opened when first needed. */
  private recounts: { readonly pool: Pg; readonly transactions: Transactions<WriteTransaction> } | undefined;
  private readonly cache: GenerationCache;
  private readonly meta: Db;
  private readonly loading = new Map<string, Promise<unknown>>();
  /** The generation number last read, for loads to tell whether it moved while they ran. */
  private generation = -1;
  /** Server sessions of transactions whose connection was lost, ended once the server is reachable. */
  private readonly orphans: Orphans | undefined;

  private constructor(
    private readonly pool: Pg, private readonly metaPool: Pg, readonly schemaVersion: number,
    defaults: PgDurabilitySettings, private readonly outages: Outages | undefined,
    private readonly openRecountPool: () => Pg,
  ) {
    const meta = outages ? onPoolWithin(metaPool, outages.timeoutMs, outages.sockets) : onPool(metaPool);
    this.meta = meta;
    this.orphans = outages ? new Orphans(meta) : undefined;
    this.cache = new GenerationCache(async () => {
      const [row] = await meta.run<{ n: number }>("SELECT n FROM generation WHERE id = 1");
      this.generation = row!.n;
      return row!.n;
    });
    this.transactions = new Transactions(this.engine(pool));

    // Single statements on the pool, within the deadline when there is one.
    const direct = outages ? onPoolWithin(pool, outages.timeoutMs, outages.sockets) : onPool(pool);
    const reads = pgReadViews(direct, { ...this.shared(), loadFrom: direct, bypass: () => false });
    const run: RunInTransaction = (work) => this.transaction(work);
    this.records = reads.records;
    this.files = merge(reads.files, new PgContentHolds(pool, (work) => this.within(work)));
    this.counters = reads.counters;
    // Each config write a transaction of its own.
    this.accounts = merge(reads.accounts, committed<"accounts", AccountWrites>(run, "accounts", ACCOUNT_WRITES), new PgSignInAttempts(direct));
    this.tokens = merge(reads.tokens, committed<"tokens", TokenWrites>(run, "tokens", TOKEN_WRITES), new RateWindows(direct));
    this.blocs = merge(reads.blocs, committed<"blocs", BlocWrites>(run, "blocs", BLOC_WRITES));
    this.access = merge(reads.access, committed<"access", AccessWrites>(run, "access", ACCESS_WRITES));
    this.events = onConnection(direct, events);
    this.idempotency = onConnection(direct, { purgeIdempotencyKeys });
    this.maintenance = new PgMaintenance(pool, this.cache, defaults, (session) => this.views(session));
  }

  /** What every reader shares for cached reads (config-cache.ts). */
  private shared(): Omit<CachedConfig, "bypass"> {
    return { cache: this.cache, meta: this.meta, loading: this.loading, generation: () => this.generation };
  }

  private views(session: WriteTransaction): TxViews {
    return pgViews(session, this.shared(), this.capabilities);
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
      const durability: Readonly<Record<string, string>> = needsSynchronousCommit(defaults) ? { synchronous_commit: "on" } : {};
      const writer = connect(url, poolSize, durability, outages);
      pool = writer;
      const version = await migrate(writer);
      // Every connection opened now, while nothing waits: the first requests would otherwise
      // each wait for a connection to be made (TCP, authentication, the driver's type lookup).
      await Promise.all([
        ...Array.from({ length: poolSize }, () => writer.unsafe("SELECT 1")),
        ...Array.from({ length: META_POOL }, () => metaPool.unsafe("SELECT 1")),
      ]);
      // Its sockets are not the outages' to watch: a recount's statement is silent for as long as it counts.
      return new PostgresStore(writer, metaPool, version, defaults, outages, () => connect(url, 1, durability));
    } catch (error) {
      await Promise.all([pool?.end(), metaPool.end()]);
      throw unreachable(error) ?? translate(error);
    }
  }

  private engine(pool: Pg): TransactionEngine<WriteTransaction> {
    return {
      capabilities: this.capabilities,
      transaction: async <T>(work: (session: WriteTransaction) => Promise<T>, deadline?: number, units?: number): Promise<T> => {
        let wroteConfig = false;
        try {
          const result = await WriteTransaction.run(pool, async (session) => {
            try {
              return await work(session);
            } finally {
              wroteConfig = session.wroteConfig;
            }
          }, this.deadlineAt(deadline), this.orphans, units);
          // Committed: readers in this turn of the event loop must look at the generation again.
          if (wroteConfig) this.cache.changed();
          return result;
        } catch (error) {
          // Entries loaded while it ran may show what never happened.
          if (wroteConfig) this.cache.invalidate();
          throw error;
        }
      },
      savepoint: <T>(session: WriteTransaction, work: () => Promise<T>): Promise<T> => session.unit(work),
      views: (session: WriteTransaction): TxViews => this.views(session),
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
    if (options?.recount) {
      if (!this.recounts) {
        const pool = this.openRecountPool();
        this.recounts = { pool, transactions: new Transactions(this.engine(pool)) };
      }
      return this.recounts.transactions.run(work, {});
    }
    return this.transactions.run(work, { ...options, deadline: this.outages ? performance.now() + this.outages.timeoutMs : undefined });
  }

  /** One REPEATABLE READ, READ ONLY transaction: every read inside sees the same committed state. */
  async snapshot<T>(work: (view: StoreReads) => Promise<T>): Promise<T> {
    try {
      return await this.within(() => this.pool.begin("isolation level repeatable read read only", (sql) =>
        work(pgReadViews(onPool(sql), { ...this.shared(), bypass: () => false }))) as Promise<T>);
    } catch (error) {
      throw translate(error);
    }
  }

  async close(): Promise<void> {
    // Without a timeout, end() never resolves once a connection has been reserved and
    // released (porsager/postgres#925, open): a server stopped after transactions (which
    // reserve their connection) never exited. Nothing runs by now (close comes after the
    // requests have drained), so a connection still open after END_TIMEOUT_S is idle and
    // may be cut.
    this.orphans?.stop();
    await Promise.all([this.pool, this.metaPool, ...(this.recounts ? [this.recounts.pool] : [])].map((pool) => pool.end({ timeout: END_TIMEOUT_S })));
  }
}

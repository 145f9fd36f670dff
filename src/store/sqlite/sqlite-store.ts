import type {
  AccessWrites, AccountWrites, BlocWrites, Capabilities, EventStore, IdempotencyPurge, Maintenance, Store, StoreReads, TokenWrites,
  TransactionOptions, Tx, TxViews,
} from "../../domain/ports/store.js";
import { Transactions } from "../../domain/transactions.js";
import type { GenerationCache } from "../generation-cache.js";
import { ACCESS_WRITES, ACCOUNT_WRITES, BLOC_WRITES, committed, merge, TOKEN_WRITES, type RunInTransaction } from "../views.js";
import { SqliteConnection, type SqliteConnectionOptions } from "./connection.js";
import { translate } from "./errors.js";
import { SqliteEventStore } from "./event-store.js";
import { SqliteMaintenance } from "./maintenance.js";
import { SqliteSignInAttempts } from "./sign-in-attempts.js";
import { SqliteContentHolds, SqliteIdempotencyPurge, SqliteTokenUse } from "./store-writes.js";
import { sqliteViews } from "./views.js";

export type SqliteStoreOptions = SqliteConnectionOptions;

/**
 * The embedded engine: one SQLite file in WAL mode, shared safely by several processes
 * (writers queue on the file's write lock for up to the busy timeout). Each process has
 * one connection, held by one transaction or snapshot at a time.
 */
export class SqliteStore implements Store {
  readonly capabilities: Capabilities;
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

  private readonly connection: SqliteConnection;
  /** The connection's cache of blocs, tokens and access facts. */
  private readonly cache: GenerationCache;
  private readonly views: TxViews;
  private readonly transactions: Transactions<TxViews>;

  constructor(file: string, options: SqliteStoreOptions = {}) {
    const connection = new SqliteConnection(file, options);
    this.connection = connection;
    this.cache = connection.cache;
    this.capabilities = {
      // A write transaction (BEGIN IMMEDIATE) holds the database's one write lock, across processes.
      perBlocLocks: false,
      claimsIdempotencyKeys: false,
      // In WAL mode a commit is flushed after it returns (wal-sync.ts); any other journal mode syncs in COMMIT.
      durableOnCommit: connection.walSync === undefined,
      // Counting in the file would make every request a write that waits for the write lock.
      rateLimitScope: "process",
      plannerStatistics: false,
    };
    const views = sqliteViews(connection.sql, connection.cache, this.capabilities);
    this.views = views;
    this.transactions = new Transactions<TxViews>({
      capabilities: this.capabilities,
      transaction: (work) => connection.lock.run(() => connection.inTransaction("BEGIN IMMEDIATE", () => work(views))),
      durable: () => connection.durable(),
      savepoint: async (_views, work) => {
        connection.db.exec("SAVEPOINT unit");
        try {
          const result = await work();
          connection.db.exec("RELEASE unit");
          return result;
        } catch (error) {
          connection.db.exec("ROLLBACK TO unit; RELEASE unit");
          this.cache.invalidate();
          throw translate(error);
        }
      },
      views: (open) => open,
    });

    const run: RunInTransaction = (work) => this.transaction(work);
    this.records = merge(connection.locked(views.records));
    this.files = merge(connection.locked(views.files), new SqliteContentHolds(connection));
    this.counters = merge(connection.locked(views.counters));
    // Reads under the connection's lock; each config write a transaction of its own.
    this.accounts = merge(connection.locked(views.accounts), committed<"accounts", AccountWrites>(run, "accounts", ACCOUNT_WRITES),
      new SqliteSignInAttempts(connection));
    this.tokens = merge(connection.locked(views.tokens), committed<"tokens", TokenWrites>(run, "tokens", TOKEN_WRITES),
      new SqliteTokenUse(connection));
    this.blocs = merge(connection.locked(views.blocs), committed<"blocs", BlocWrites>(run, "blocs", BLOC_WRITES));
    this.access = merge(connection.locked(views.access), committed<"access", AccessWrites>(run, "access", ACCESS_WRITES));
    this.events = new SqliteEventStore(connection);
    this.idempotency = new SqliteIdempotencyPurge(connection);
    this.maintenance = new SqliteMaintenance(connection, views);
  }

  transaction<T>(work: (tx: Tx) => Promise<T>, options?: TransactionOptions): Promise<T> {
    return this.transactions.run(work, options);
  }

  snapshot<T>(work: (view: StoreReads) => Promise<T>): Promise<T> {
    // A deferred transaction reads one snapshot from its first read on.
    // Flushed before it begins, not after: a snapshot may stream what it reads (reports) as
    // it goes. Holding the connection, no commit of this process can come in between.
    return this.connection.lock.run(async () => {
      await this.connection.durable();
      return this.connection.inTransaction("BEGIN", () => work(this.views));
    });
  }

  async close(): Promise<void> {
    await this.connection.lock.run(async () => {
      // Answers still waiting for a flush get it before closing removes the -wal file.
      await this.connection.durable().catch(() => undefined);
      this.connection.db.close();
    });
  }
}

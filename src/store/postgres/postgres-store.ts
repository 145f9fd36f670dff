import type { CounterDeltas } from "../../domain/counters.js";
import { BaseStore } from "../base-store.js";
import { GenerationCache } from "../generation-cache.js";
import type { Row, Store, StoreReads, TableName, TransactionOptions, Tx } from "../store.js";
import { Transactions, type TransactionEngine } from "../transactions.js";
import { holdContent, releaseContent } from "./content.js";
import * as copy from "./copy.js";
import { writeCounters } from "./counters.js";
import { connect, onPool, run, type Db, type Pg } from "./driver.js";
import { translate } from "./errors.js";
import { PgReads } from "./reads.js";
import { migrate } from "./schema.js";
import { PgUnit, Session } from "./unit.js";

/** Connections for cached config loads and generation reads (reads.ts: CachedConfig), beside the main pool. */
const META_POOL = 2;

/**
 * The PostgreSQL engine: a pool of BLOC_PG_POOL connections shared by several
 * processes' worth of writers. Transactions are READ COMMITTED; what must not change
 * under a unit (a bloc's records while it checks rules on them) is protected by the
 * bloc's advisory lock (Tx.lockBloc), taken by the units that need it.
 */
export class PostgresStore extends BaseStore implements Store {
  protected readonly direct: StoreReads;
  private readonly transactions: Transactions<Session>;
  private readonly cache: GenerationCache;

  private constructor(private readonly pool: Pg, private readonly metaPool: Pg, readonly schemaVersion: number) {
    super();
    const meta = onPool(metaPool);
    this.cache = new GenerationCache(async () => {
      const [row] = await meta.run<{ n: number }>("SELECT n FROM generation WHERE id = 1");
      return row!.n;
    });
    this.direct = new PgReads(onPool(pool), { cache: this.cache, meta, bypass: () => false });
    this.transactions = new Transactions(this.engine(meta));
  }

  /** Connects, brings the schema up to date (safely, if several processes start at once) and opens the store. */
  static async open(url: string, poolSize: number): Promise<PostgresStore> {
    const pool = connect(url, poolSize);
    const metaPool = connect(url, META_POOL);
    try {
      return new PostgresStore(pool, metaPool, await migrate(pool));
    } catch (error) {
      await Promise.all([pool.end(), metaPool.end()]);
      throw translate(error);
    }
  }

  private engine(meta: Db): TransactionEngine<Session> {
    return {
      transaction: async <T>(work: (session: Session) => Promise<T>): Promise<T> => {
        let session: Session | undefined;
        try {
          const result = await this.pool.begin((sql) => {
            session = new Session(sql);
            return work(session);
          }) as T;
          // Committed: readers in this turn of the event loop must look at the generation again.
          if (session?.wroteConfig) this.cache.changed();
          return result;
        } catch (error) {
          // Entries loaded while it ran may show what never happened.
          if (session?.wroteConfig) this.cache.invalidate();
          throw translate(error);
        }
      },
      savepoint: async <T>(session: Session, work: () => Promise<T>): Promise<T> => {
        const outer = session.sql;
        try {
          return await outer.savepoint(async (sql) => {
            session.sql = sql;
            try {
              return await work();
            } finally {
              session.sql = outer;
            }
          }) as T;
        } catch (error) {
          throw translate(error);
        }
      },
      unit: (session: Session, counters: CounterDeltas, pending: CounterDeltas): Tx =>
        new PgUnit(session, this.cache, meta, counters, pending),
      writeCounters: (session: Session, deltas: CounterDeltas): Promise<void> => writeCounters(session.db, deltas),
    };
  }

  transaction<T>(work: (tx: Tx) => Promise<T>, options?: TransactionOptions): Promise<T> {
    return this.transactions.run(work, options);
  }

  /** One REPEATABLE READ, READ ONLY transaction: every read inside sees the same committed state. */
  async snapshot<T>(work: (view: StoreReads) => Promise<T>): Promise<T> {
    try {
      return await this.pool.begin("isolation level repeatable read read only", (sql) => {
        const session = new Session(sql);
        return work(new PgReads(session.db, { cache: this.cache, meta: onPool(this.metaPool), bypass: () => false }));
      }) as T;
    } catch (error) {
      throw translate(error);
    }
  }

  holdContent(sha256: string, createdAt: string): Promise<string> {
    return holdContent(this.pool, sha256, createdAt);
  }

  releaseContent(hold: string, sha256: string, remove: () => void): Promise<void> {
    return releaseContent(this.pool, hold, sha256, remove);
  }

  exportRows(table: TableName, after: Row | undefined, limit: number): Promise<Row[]> {
    return copy.exportRows(onPool(this.pool), table, after, limit);
  }

  async importRows(table: TableName, rows: readonly Row[]): Promise<void> {
    try {
      await this.pool.begin((sql) => copy.importRows({ run: (text, params) => run(sql, text, params) }, table, rows));
    } catch (error) {
      throw translate(error);
    }
    this.cache.invalidate();
  }

  tableSizes(): Promise<Record<TableName, number>> {
    return copy.tableSizes(onPool(this.pool));
  }

  async close(): Promise<void> {
    await Promise.all([this.pool.end(), this.metaPool.end()]);
  }
}

import type { GenerationCache } from "../generation-cache.js";
import type { Db } from "./driver.js";

/**
 * Where the cached reads (blocs, tokens, access facts) load from: never the connection
 * of the transaction or snapshot asking, so that they see the latest committed state,
 * as the generation number they are cached under does. Reads outside any transaction
 * load from the main pool; those inside one from a small pool of their own (`meta`),
 * so that a transaction waiting for a load never waits for a connection that another
 * waiting transaction holds. A transaction that changed config reads its own changes
 * instead, uncached (`bypass`).
 */
export interface CachedConfig {
  readonly cache: GenerationCache;
  readonly meta: Db;
  /** The pool, for reads outside any transaction; meta otherwise. */
  readonly loadFrom?: Db;
  readonly bypass: () => boolean;
  /** Loads under way, by key, shared by every reader of the store. */
  readonly loading: Map<string, Promise<unknown>>;
  /** The generation number the cache last read. */
  readonly generation: () => number;
}

/** The cached reads of one reader (a pool, a transaction or a snapshot: `db`). */
export class PgConfigCache {
  constructor(private readonly db: Db, private readonly config: CachedConfig) {}

  cached<T>(key: string, load: (db: Db) => Promise<T>, keep?: (value: T) => boolean): Promise<T> {
    if (this.config.bypass()) return load(this.db);
    const from = this.config.loadFrom ?? this.config.meta;
    // Loads on the pool are not shared with those on meta: a transaction must never wait for the pool.
    const shared = `${from === this.config.meta ? "meta" : "pool"}\u0000${key}`;
    return this.config.cache.get(key, () => this.shared(shared, () => load(from)), keep);
  }

  /**
   * One load per key and generation at a time: after a config change empties the
   * cache, the requests already waiting (hundreds, under load) would otherwise each
   * load the same rows. A load during which the cache saw the generation move may have
   * read the rows before the change, and would be cached as current: it loads again.
   */
  private shared<T>(key: string, load: () => Promise<T>): Promise<T> {
    const { loading, generation } = this.config;
    const id = `${generation()}\u0000${key}`;
    const running = loading.get(id);
    if (running) return running as Promise<T>;
    const started = (async () => {
      for (;;) {
        const before = generation();
        const value = await load();
        if (generation() === before) return value;
      }
    })().finally(() => loading.delete(id));
    loading.set(id, started);
    return started;
  }
}

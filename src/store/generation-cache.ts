/** Entries a cache keeps at most; past this, loads are answered but not kept. */
export const CACHE_ENTRIES = 10_000;
/** Keys longer than this are never kept: a real bloc ID, token hash or pair of IDs is far shorter. */
export const CACHE_KEY_MAX = 256;

/**
 * Blocs, tokens and access facts as last read, valid while the store's generation
 * number (bumped by database triggers on every change to them, by any process) stays
 * the same. Every request still sees every change, at the price of one tiny read per
 * turn of the event loop instead of several joins per request. The same for every engine.
 *
 * Bounded whatever clients send: callers keep only what exists (an unknown bloc ID or
 * token hash is answered, not kept), no key longer than CACHE_KEY_MAX is kept, and at
 * most CACHE_ENTRIES entries are.
 */
export class GenerationCache {
  private readonly entries = new Map<string, unknown>();
  private generation = -1;
  /** The generation was read in this turn of the event loop and nothing was changed since. */
  private checked: Promise<void> | undefined;

  /** `read` fetches the current generation number from the store. */
  constructor(private readonly read: () => Promise<number>, private readonly maxEntries = CACHE_ENTRIES) {}

  /** The value under `key`, loaded when absent or stale; `keep` false leaves a loaded value out of the cache. */
  async get<T>(key: string, load: () => Promise<T>, keep: (value: T) => boolean = () => true): Promise<T> {
    // One look per turn: a request's token, bloc and access lookups run in one turn, and a
    // change made anywhere is seen by every request that starts after it.
    if (!this.checked) {
      this.checked = this.refresh();
      setImmediate(() => { this.checked = undefined; });
    }
    await this.checked;
    if (this.entries.has(key)) return this.entries.get(key) as T;
    const value = await load();
    if (key.length <= CACHE_KEY_MAX && this.entries.size < this.maxEntries && keep(value)) this.entries.set(key, value);
    return value;
  }

  /** Entries kept now. */
  get size(): number {
    return this.entries.size;
  }

  /** Called by every write to users, tokens, blocs or access: the next lookup reads the generation afresh. */
  changed(): void {
    this.checked = undefined;
  }

  /**
   * Forgets everything: after a transaction rolled back, entries it loaded may show
   * changes that never happened, under a generation number that will be reused.
   */
  invalidate(): void {
    this.entries.clear();
    this.generation = -1;
    this.checked = undefined;
  }

  private async refresh(): Promise<void> {
    const generation = await this.read();
    if (generation !== this.generation) {
      this.entries.clear();
      this.generation = generation;
    }
  }
}

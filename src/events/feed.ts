import type { Context } from "../domain/context.js";
import type { StoredEvent } from "../domain/ports/store.js";
import type { LoopLoad } from "./busy.js";

/**
 * The most bytes of event data one read holds: a stream formats and sends one read at a
 * time, so this bounds what a slow subscriber keeps in memory, events of large records included.
 */
const READ_BYTES = 1024 * 1024;

/**
 * How long after a commit its streams are woken, so that commits close together are read
 * at once; longer while requests saturate the loop, so that streams read fewer, larger batches.
 */
const COALESCE_MS = 15;
const BUSY_COALESCE_MS = 100;

/** One bloc someone in this process is streaming: the last event number known, and who waits for a later one. */
interface Watch {
  known: number;
  readonly waiters: Set<() => void>;
  /** Streams of this bloc: the watch ends with the last. */
  streams: number;
}

/**
 * What the live streams of one process read: each bloc being streamed is watched once,
 * however many streams it has. This process's commits wake its streams at once; every
 * `pollMs` the last event number of each watched bloc is read, so that events written by
 * other processes arrive too. Streams at the same position share one read of the events
 * that follow it, so that a hundred dashboards on one bloc cost one query per change.
 */
export class EventFeed {
  private readonly watches = new Map<string, Watch>();
  private readonly reads = new Map<string, Promise<StoredEvent[]>>();
  private readonly timer: NodeJS.Timeout;
  private readonly unlisten: () => void;
  private polling = false;

  /** Blocs whose streams will be woken shortly: commits that come close together wake them once. */
  private readonly soon = new Map<string, NodeJS.Timeout>();

  constructor(private readonly ctx: Context, pollMs: number, private readonly load: LoopLoad) {
    this.unlisten = ctx.events.listen((blocId) => this.wakeSoon(blocId));
    this.timer = setInterval(() => void this.poll(), pollMs);
    this.timer.unref();
  }

  close(): void {
    clearInterval(this.timer);
    for (const timer of this.soon.values()) clearTimeout(timer);
    this.unlisten();
    for (const blocId of this.watches.keys()) this.wakeAll(blocId);
  }

  /** Starts watching a bloc for one stream; returns the function that stops. */
  watch(blocId: string): () => void {
    const watch = this.watches.get(blocId) ?? { known: 0, waiters: new Set(), streams: 0 };
    watch.streams += 1;
    this.watches.set(blocId, watch);
    return () => {
      watch.streams -= 1;
      if (watch.streams === 0) this.watches.delete(blocId);
    };
  }

  /** The last event number of the bloc this process knows of: a poll's, or one a stream saw. */
  known(blocId: string): number {
    return this.watches.get(blocId)?.known ?? 0;
  }

  /** A stream saw the bloc's events up to `seq` exist. */
  saw(blocId: string, seq: number): void {
    const watch = this.watches.get(blocId);
    if (watch && seq > watch.known) watch.known = seq;
  }

  /** The bloc's events after `afterSeq`, in order, at most `limit`: one read for every stream asking the same. */
  read(blocId: string, afterSeq: number, limit: number): Promise<StoredEvent[]> {
    const key = `${afterSeq}\u0000${limit}\u0000${blocId}`;
    const shared = this.reads.get(key);
    if (shared) return shared;
    const read = this.ctx.store.events.eventsAfter(blocId, afterSeq, limit, READ_BYTES).finally(() => this.reads.delete(key));
    this.reads.set(key, read);
    return read;
  }

  /**
   * Resolves once the bloc may have an event after `afterSeq` (this process committed one,
   * or a poll found one), or `signal` aborts; at most after `maxWaitMs`, for keep-alives.
   */
  async changed(blocId: string, afterSeq: number, signal: AbortSignal, maxWaitMs: number): Promise<void> {
    const watch = this.watches.get(blocId);
    if (!watch || watch.known > afterSeq || signal.aborted) return;
    await new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        watch.waiters.delete(done);
        signal.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, maxWaitMs);
      watch.waiters.add(done);
      signal.addEventListener("abort", done);
    });
  }

  /**
   * Wakes a bloc's streams COALESCE_MS after a commit of this process: under a stream of
   * adds, each stream then reads a batch of events rather than one read per commit.
   */
  private wakeSoon(blocId: string): void {
    if (!this.watches.has(blocId) || this.soon.has(blocId)) return;
    this.soon.set(blocId, setTimeout(() => {
      this.soon.delete(blocId);
      this.wakeAll(blocId);
    }, this.load.busy ? BUSY_COALESCE_MS : COALESCE_MS));
  }

  private wakeAll(blocId: string): void {
    const watch = this.watches.get(blocId);
    if (!watch) return;
    for (const wake of [...watch.waiters]) wake();
  }

  private async poll(): Promise<void> {
    if (this.polling || this.watches.size === 0) return;
    this.polling = true;
    try {
      for (const [blocId, watch] of this.watches) {
        const last = await this.ctx.store.events.lastEventSeq(blocId);
        if (last > watch.known) {
          watch.known = last;
          this.wakeAll(blocId);
        }
      }
    } catch {
      // The next poll tries again; a stream meanwhile still wakes on this process's own commits.
    } finally {
      this.polling = false;
    }
  }
}

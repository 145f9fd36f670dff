import crypto from "node:crypto";
import { setMaxListeners } from "node:events";
import type { Context } from "../domain/context.js";
import { eventBody } from "../domain/events.js";
import { acknowledged, deliveryHeaders, KEPT_DELIVERIES, retryDelay, type Send } from "../domain/webhooks.js";
import type { Lane, LaneProgress, NewDelivery, Webhook } from "../domain/ports/store.js";
import type { LoopLoad } from "./busy.js";

export interface DispatcherOptions {
  /** How often to look for events other processes wrote (this process's own wake it at once). */
  readonly pollMs: number;
  /** The longest one attempt may take. */
  readonly timeoutMs: number;
  /** The wait after an event's first failed attempt; it doubles with each failure, up to an hour. */
  readonly retryMs: number;
  /** How long an event is retried before it is given up on (logged "gave-up") and the lane moves on. */
  readonly retryForMs: number;
  /** How long events are kept once every lane of their bloc is past them. */
  readonly keepMs: number;
}

/** Lanes one process delivers at once, and of those, for one webhook: a slow receiver never holds up the others. */
const MAX_LANES = 32;
const MAX_LANES_PER_WEBHOOK = 4;
/** Events read per step of a lane, and the most bytes of their data (records can be large). */
const BATCH = 100;
const BATCH_BYTES = 4 * 1024 * 1024;
/** A lane's progress is written at least this often while it delivers, and at most this many attempts later. */
const SAVE_EVERY_MS = 200;
const SAVE_EVERY_ATTEMPTS = 200;
/** How often a delivering lane reads its webhook again (to stop if it was removed). */
const WEBHOOK_READ_MS = 1_000;
/** How long after a commit lanes not held here are looked for: commits close together are looked for once. */
const SIGNAL_COALESCE_MS = 20;
/**
 * While requests saturate the event loop, attempts of every lane together start at most
 * this often (200 a second): deliveries give way to the API, and catch up once it eases.
 */
const BUSY_SPACING_MS = 5;
/** How often kept events and delivery logs are pruned. */
const PRUNE_EVERY_MS = 60_000;
const PRUNE_BATCH = 10_000;

/**
 * Delivers webhook events. Each (webhook, bloc) pair is a lane: its events go out one at
 * a time, in order, each until the receiver acknowledges it (2xx), with exponential
 * backoff between failed attempts. A lane is claimed through the database with a lease,
 * so that across every process on the store it is delivered by one at a time; the lease
 * is renewed while the lane delivers and released when it is caught up, waiting to
 * retry, or stopped. A process that dies holding a lane leaves it to be claimed again
 * once the lease runs out: its last unacknowledged event is then sent again (receivers
 * deduplicate by event ID). Nothing here runs on a request's path.
 */
export class WebhookDispatcher {
  /** This process, as the holder of the lanes it claims. */
  private readonly owner = crypto.randomUUID();
  private readonly running = new Map<string, Promise<void>>();
  private readonly perWebhook = new Map<string, number>();
  private readonly aborts = new AbortController();
  private readonly leaseMs: number;
  private readonly waiting = new Map<string, Set<() => void>>();
  private pendingTick: NodeJS.Timeout | undefined;
  private timer: NodeJS.Timeout | undefined;
  private pruner: NodeJS.Timeout | undefined;
  private unlisten: (() => void) | undefined;
  private ticking = false;
  private again = false;
  private stopped = false;
  /** When the next attempt may start while the loop is saturated. */
  private nextBusyAttempt = 0;

  constructor(private readonly ctx: Context, private readonly send: Send, private readonly options: DispatcherOptions,
    private readonly load: LoopLoad) {
    // Long enough for an attempt and its save, with room to spare: a live holder renews it
    // before an attempt when less than one attempt's worth (and half a second) is left.
    this.leaseMs = 2 * options.timeoutMs + 1_000;
    // Each lane's attempt and wait listens to it: up to two per lane, MAX_LANES lanes.
    setMaxListeners(2 * MAX_LANES + 1, this.aborts.signal);
  }

  start(): void {
    this.unlisten = this.ctx.events.listen((blocId) => this.signalled(blocId));
    this.timer = setInterval(() => this.wake(), this.options.pollMs);
    this.pruner = setInterval(() => void this.prune(), PRUNE_EVERY_MS);
    this.timer.unref();
    this.pruner.unref();
    this.wake();
  }

  /** Stops claiming, cuts the attempts in flight (not counted as failures) and lets go of every lane held. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    clearTimeout(this.pendingTick);
    clearInterval(this.pruner);
    this.unlisten?.();
    this.aborts.abort();
    await Promise.allSettled([...this.running.values()]);
  }

  /**
   * A commit of this process appended events of a bloc: its lanes waiting here for more go
   * on at once, and lanes not held here are looked for shortly (commits close together are
   * looked for once, not once each).
   */
  private signalled(blocId: string): void {
    for (const wake of [...this.waiting.get(blocId) ?? []]) wake();
    this.pendingTick ??= setTimeout(() => {
      this.pendingTick = undefined;
      this.wake();
    }, SIGNAL_COALESCE_MS);
  }

  /** Resolves when this process commits events of the bloc, after `ms`, or at a stop, whichever comes first. */
  private waitForEvents(blocId: string, ms: number): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const waiters = this.waiting.get(blocId) ?? new Set<() => void>();
      this.waiting.set(blocId, waiters);
      const done = (): void => {
        clearTimeout(timer);
        waiters.delete(done);
        if (waiters.size === 0) this.waiting.delete(blocId);
        this.aborts.signal.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      waiters.add(done);
      this.aborts.signal.addEventListener("abort", done);
    });
  }

  /** Resolves when an attempt may start: at once, unless requests saturate the loop (BUSY_SPACING_MS). */
  private async turn(): Promise<void> {
    if (!this.load.busy) return;
    const now = Date.now();
    const at = Math.max(now, this.nextBusyAttempt);
    this.nextBusyAttempt = at + BUSY_SPACING_MS;
    if (at > now) await new Promise((resolve) => setTimeout(resolve, at - now));
  }

  /** Looks for lanes to deliver now; calls that arrive while one looks make it look again once. */
  private wake(): void {
    if (this.stopped) return;
    if (this.ticking) { this.again = true; return; }
    this.ticking = true;
    void this.tick().finally(() => {
      this.ticking = false;
      if (this.again) { this.again = false; this.wake(); }
    });
  }

  private async tick(): Promise<void> {
    const free = MAX_LANES - this.running.size;
    if (free <= 0) return;
    const busy = [...this.perWebhook].filter(([, n]) => n >= MAX_LANES_PER_WEBHOOK).map(([id]) => id);
    const now = Date.now();
    let lanes: Lane[];
    try {
      lanes = await this.ctx.store.events.claimLanes(this.owner, now, now + this.leaseMs, free, busy);
    } catch (error) {
      this.report("claiming webhook lanes failed", error);
      return;
    }
    for (const lane of lanes) this.begin(lane, now + this.leaseMs);
  }

  private begin(lane: Lane, leaseUntilMs: number): void {
    const key = `${lane.webhookId}\u0000${lane.blocId}`;
    this.perWebhook.set(lane.webhookId, (this.perWebhook.get(lane.webhookId) ?? 0) + 1);
    const run = new LaneRun(this, lane, leaseUntilMs).run()
      .catch((error: unknown) => this.report(`delivering to webhook ${lane.webhookId} failed`, error))
      .finally(() => {
        this.running.delete(key);
        const left = (this.perWebhook.get(lane.webhookId) ?? 1) - 1;
        if (left > 0) this.perWebhook.set(lane.webhookId, left); else this.perWebhook.delete(lane.webhookId);
        // Events may have arrived while this lane was held, when no other process could take it.
        this.wake();
      });
    this.running.set(key, run);
  }

  private async prune(): Promise<void> {
    try {
      const before = Date.now() - this.options.keepMs;
      for (let round = 0; round < 10 && !this.stopped; round += 1) {
        if (await this.ctx.store.events.pruneEvents(before, PRUNE_BATCH) < PRUNE_BATCH) break;
      }
      for (let round = 0; round < 10 && !this.stopped; round += 1) {
        if (await this.ctx.store.events.pruneDeliveries(KEPT_DELIVERIES, PRUNE_BATCH) === 0) break;
      }
    } catch (error) {
      this.report("pruning events failed", error);
    }
  }

  private report(what: string, error: unknown): void {
    if (this.stopped) return;
    process.stderr.write(`bloc-data-service: ${what}: ${error instanceof Error ? error.message : String(error)}\n`);
  }

  /** What a lane run needs of its dispatcher. */
  get lanes(): LaneContext {
    return {
      ctx: this.ctx, send: this.send, options: this.options, owner: this.owner, leaseMs: this.leaseMs,
      signal: this.aborts.signal, stopped: () => this.stopped,
      waitForEvents: (blocId, ms) => this.waitForEvents(blocId, ms),
      turn: () => this.turn(),
    };
  }
}

interface LaneContext {
  readonly ctx: Context;
  readonly send: Send;
  readonly options: DispatcherOptions;
  readonly owner: string;
  readonly leaseMs: number;
  readonly signal: AbortSignal;
  stopped(): boolean;
  waitForEvents(blocId: string, ms: number): Promise<void>;
  turn(): Promise<void>;
}

/** One claim of one lane: delivers its events in order until it is caught up, must wait, or is stopped. */
class LaneRun {
  private readonly env: LaneContext;
  private deliveredSeq: number;
  private attempts: number;
  private firstFailedMs: number | null;
  private log: NewDelivery[] = [];
  private savedAt = Date.now();
  private savedSeq: number;

  constructor(dispatcher: WebhookDispatcher, private readonly lane: Lane, private leaseUntilMs: number) {
    this.env = dispatcher.lanes;
    this.deliveredSeq = lane.deliveredSeq;
    this.savedSeq = lane.deliveredSeq;
    this.attempts = lane.attempts;
    this.firstFailedMs = lane.firstFailedMs;
  }

  async run(): Promise<void> {
    const { ctx } = this.env;
    let waited = false;
    let webhook: Webhook | undefined;
    let readAt = 0;
    for (;;) {
      if (this.env.stopped()) { await this.save(0, true); return; }
      // Read again after a wait and at least every WEBHOOK_READ_MS: a webhook removed meanwhile
      // (by any process) gets no more (its lanes went with it, and nothing is left to save).
      if (webhook === undefined || Date.now() - readAt >= WEBHOOK_READ_MS) {
        webhook = await ctx.store.events.findWebhook(this.lane.webhookId);
        readAt = Date.now();
        if (!webhook) return;
      }
      const events = await ctx.store.events.eventsAfter(this.lane.blocId, this.deliveredSeq, BATCH, BATCH_BYTES);
      if (events.length === 0) {
        // Caught up: the lane is kept a while for the next events (claiming it again would
        // cost two writes), then let go, so that any process may take it when more come.
        if (waited || (this.unsaved() && !(await this.save(0, false)))) { await this.save(0, true); return; }
        waited = true;
        await this.env.waitForEvents(this.lane.blocId, this.env.options.pollMs);
        webhook = undefined;
        continue;
      }
      waited = false;
      for (const event of events) {
        if (this.env.stopped()) { await this.save(0, true); return; }
        if (!webhook.events.includes(event.type)) { this.deliveredSeq = event.seq; continue; }
        if (!(await this.keepLease())) return;
        await this.env.turn();
        const waitMs = await this.attempt(webhook, event);
        if (waitMs === undefined) continue;
        await this.save(Date.now() + waitMs, true);
        return;
      }
      if ((Date.now() - this.savedAt >= SAVE_EVERY_MS || this.log.length >= SAVE_EVERY_ATTEMPTS) && !(await this.save(0, false))) return;
    }
  }

  /**
   * Sends one event; returns undefined when the lane may go on (acknowledged, or given up
   * on), else how long to wait before trying it again.
   */
  private async attempt(webhook: Webhook, event: Parameters<typeof eventBody>[0]): Promise<number | undefined> {
    const { ctx, send, options, signal } = this.env;
    const body = eventBody(event);
    const attempt = this.attempts + 1;
    const at = ctx.now();
    const result = await send(webhook.url, body, deliveryHeaders(webhook, event, body, attempt), signal);
    // Cut by a stop: not the receiver's failure, and sent again by whoever takes the lane next.
    if (signal.aborted) return 0;
    const entry = { webhookId: webhook.id, blocId: event.blocId, seq: event.seq, eventId: event.id, type: event.type, attempt, at, ...result };
    if (acknowledged(result)) {
      this.record({ ...entry, outcome: "delivered" });
      this.advance(event.seq);
      return undefined;
    }
    const now = Date.now();
    const firstFailedMs = this.firstFailedMs ?? now;
    if (now - firstFailedMs >= options.retryForMs) {
      this.record({ ...entry, outcome: "gave-up" });
      this.advance(event.seq);
      return undefined;
    }
    this.record({ ...entry, outcome: "failed" });
    this.attempts = attempt;
    this.firstFailedMs = firstFailedMs;
    return retryDelay(attempt, options.retryMs);
  }

  /** An attempt, for the log (written with the lane's next save) and the metrics. */
  private record(delivery: NewDelivery): void {
    this.log.push(delivery);
    this.env.ctx.telemetry.webhookAttempt(delivery.outcome);
  }

  /** Whether there is progress or a logged attempt that is not written yet. */
  private unsaved(): boolean {
    return this.log.length > 0 || this.deliveredSeq !== this.savedSeq;
  }

  private advance(seq: number): void {
    this.deliveredSeq = seq;
    this.attempts = 0;
    this.firstFailedMs = null;
  }

  /** Renews the lease when what is left of it might not cover one more attempt; false when the lane was lost. */
  private async keepLease(): Promise<boolean> {
    if (this.leaseUntilMs - Date.now() > this.env.options.timeoutMs + 500) return true;
    return this.save(0, false);
  }

  /** Writes the lane's position and the attempts since the last save; false when another process holds the lane now. */
  private async save(nextAttemptMs: number, release: boolean): Promise<boolean> {
    const { ctx, owner, leaseMs } = this.env;
    const progress: LaneProgress = {
      deliveredSeq: this.deliveredSeq, attempts: this.attempts, firstFailedMs: this.firstFailedMs, nextAttemptMs, release,
    };
    const leaseUntilMs = Date.now() + leaseMs;
    const saved = await ctx.store.events.saveLane(owner, this.lane.webhookId, this.lane.blocId, progress, this.log, leaseUntilMs);
    this.log = [];
    this.savedAt = Date.now();
    this.savedSeq = this.deliveredSeq;
    this.leaseUntilMs = leaseUntilMs;
    return saved;
  }
}

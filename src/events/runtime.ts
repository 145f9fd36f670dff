import type { Config } from "../config.js";
import type { Context } from "../domain/context.js";
import { TooManyStreamsError, UnavailableError } from "../domain/errors.js";
import type { Send } from "../domain/webhooks.js";
import { EventIds } from "../domain/stream-ids.js";
import { LoopLoad } from "./busy.js";
import { WebhookDispatcher } from "./dispatcher.js";
import { EventFeed } from "./feed.js";
import { LastVisible } from "./last-visible.js";
import { makeSender } from "./sender.js";

export type EventOptions = Pick<Config, "eventsPollMs" | "eventsKeepHours" | "eventStreamsMax" | "eventStreamsPerUser" |
  "webhookDelivery" |
  "webhookTimeoutMs" | "webhookRetryMs" | "webhookRetryForMs" | "webhookQuoteReplies">;

/**
 * What a server process runs for events beside its requests: webhook delivery (unless
 * BLOC_WEBHOOK_DELIVERY=0), the feed its live streams read, and the streams themselves,
 * so that a stop can end them (an open stream would otherwise hold the stop to its time
 * limit) before the store closes.
 */
export class EventRuntime {
  readonly feed: EventFeed;
  readonly lastVisible: LastVisible;
  readonly send: Send;
  private readonly dispatcher: WebhookDispatcher | undefined;
  private readonly streams = new Set<AbortController>();
  /** Open streams per user: a user with none is not kept. */
  private readonly perUser = new Map<string, number>();
  private ids: Promise<EventIds> | undefined;

  private readonly load = new LoopLoad();

  constructor(private readonly ctx: Context, private readonly options: EventOptions) {
    this.feed = new EventFeed(ctx, options.eventsPollMs, this.load);
    this.lastVisible = new LastVisible(ctx);
    this.send = makeSender(options.webhookTimeoutMs, options.webhookQuoteReplies);
    if (options.webhookDelivery) {
      this.dispatcher = new WebhookDispatcher(ctx, this.send, {
        pollMs: options.eventsPollMs, timeoutMs: options.webhookTimeoutMs, retryMs: options.webhookRetryMs,
        retryForMs: options.webhookRetryForMs, keepMs: options.eventsKeepHours * 60 * 60 * 1000,
      }, this.load);
      this.dispatcher.start();
    }
  }

  /** Stream IDs under the instance's key, read once. */
  eventIds(): Promise<EventIds> {
    this.ids ??= this.ctx.store.events.eventIdKey().then((hex) => new EventIds(Buffer.from(hex, "hex")));
    this.ids.catch(() => { this.ids = undefined; });
    return this.ids;
  }

  /**
   * A slot for one more stream of `userId`, with what ends it: refused when the process holds
   * BLOC_EVENT_STREAMS_MAX streams, or that user BLOC_EVENT_STREAMS_PER_USER of them (so that
   * one user, whatever their tokens, cannot take every slot).
   */
  openStream(userId: string): AbortController {
    if (this.streams.size >= this.options.eventStreamsMax) {
      throw new UnavailableError(`This server holds its most event streams (${this.options.eventStreamsMax}); try again later`);
    }
    const held = this.perUser.get(userId) ?? 0;
    if (held >= this.options.eventStreamsPerUser) {
      throw new TooManyStreamsError(
        `You hold your most event streams on this server (${this.options.eventStreamsPerUser}); close one before opening another`);
    }
    const stream = new AbortController();
    this.streams.add(stream);
    this.perUser.set(userId, held + 1);
    this.ctx.telemetry.eventStreams(1);
    stream.signal.addEventListener("abort", () => {
      this.streams.delete(stream);
      const left = (this.perUser.get(userId) ?? 1) - 1;
      if (left > 0) this.perUser.set(userId, left); else this.perUser.delete(userId);
      this.ctx.telemetry.eventStreams(-1);
    });
    return stream;
  }

  get openStreams(): number {
    return this.streams.size;
  }

  /** Ends every open stream (a stop: they are told by the connection closing, and reconnect elsewhere). */
  endStreams(): void {
    for (const stream of [...this.streams]) stream.abort();
  }

  async stop(): Promise<void> {
    this.endStreams();
    this.feed.close();
    this.load.close();
    await this.dispatcher?.stop();
  }
}

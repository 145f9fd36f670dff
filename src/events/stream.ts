import { requireAccess, usesAdminApi, type BlocAccess, type Principal } from "../domain/access.js";
import type { Context } from "../domain/context.js";
import { ServiceError } from "../domain/errors.js";
import type { ReaderIds } from "../domain/stream-ids.js";
import { authenticate } from "../domain/tokens.js";
import type { StoredEvent } from "../domain/ports/store.js";
import { dataOf, streamedTo } from "./event-data.js";
import type { EventFeed } from "./feed.js";
import type { LastVisible } from "./last-visible.js";

/** Events read per step of a stream. */
const BATCH = 100;

/** One subscriber's stream of one bloc. */
export interface StreamSession {
  readonly ctx: Context;
  readonly feed: EventFeed;
  /** Seals the IDs the stream gives its events, for its bloc and reader (domain/stream-ids.ts). */
  readonly ids: ReaderIds;
  /** What a `reset` carries as its ID: the reader's last visible event. */
  readonly lastVisible: LastVisible;
  /** The bearer secret the stream was opened with: who it acts for is read again before each batch, and every `recheckMs`. */
  readonly secret: string;
  readonly blocId: string;
  /** The number of the last event the subscriber has; the stream starts after it. */
  readonly after: number;
  /** Opened with an ID this instance cannot open: the subscriber is told it may have missed events. */
  readonly lost: boolean;
  readonly keepAliveMs: number;
  /** How often the reader's token and access are read again while no event comes (or a write waits). */
  readonly recheckMs: number;
  /** Sends text to the subscriber; resolves once it may send more (backpressure). */
  write(text: string): Promise<void>;
  /** Aborted when the subscriber goes away or the server stops. */
  readonly signal: AbortSignal;
  /** A refusal's words, as the endpoint words it (the HTTP layer's error table). */
  refusal(error: ServiceError): string;
}

/**
 * What a subscriber is shown of an event, or undefined for nothing: events of records
 * their access lets them see, as their rights stand now. What only the admin API tells —
 * a record's history (its former values, `changes`), who made a change (`actor`) and the
 * event's number in the bloc (`seq`) — goes to those who may use it, on its terms: a
 * reader refused the history of a record is not told its former values here either.
 */
function shown(event: StoredEvent, access: BlocAccess, principal: Principal): string | undefined {
  if (!streamedTo(event, access.visibility)) return undefined;
  const data = dataOf(event);
  const admin = usesAdminApi(principal);
  const body: Record<string, unknown> = { id: event.id, type: event.type, blocId: event.blocId, at: event.at };
  if (admin) { body.seq = event.seq; body.actor = data.actor; }
  body.record = data.record;
  if (admin && data.changes) body.changes = data.changes;
  return JSON.stringify(body);
}

function frame(id: string, type: string, data: string): string {
  return `id: ${id}\nevent: ${type}\ndata: ${data}\n\n`;
}

/** Who a stream acts for, and their access to its bloc, as they stand now. */
interface Reader {
  readonly principal: Principal;
  readonly access: BlocAccess;
}

/** The reader's token or access went while a write waited for the subscriber to read: the stream ends at once. */
class Withdrawn extends Error {}

/** Whether `promise` settles within `ms`. */
async function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => { timer = setTimeout(() => resolve(false), ms); });
  try {
    return await Promise.race([promise.then(() => true), late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Streams a bloc's events to one subscriber as Server-Sent Events until it goes away, the
 * server stops, or its token or access is withdrawn (then an `error` event ends it). Before
 * each batch, and every `recheckMs` while none comes or a write waits for the subscriber,
 * who the stream acts for is authenticated again and their access to the bloc read afresh,
 * so a revoked token, a removed grant, a narrowed profile or a new restriction applies from
 * the next event on, and ends a quiet or stalled stream within seconds. Events are read
 * after the subscriber's last one, never buffered beyond a batch, and written only as fast
 * as the subscriber reads.
 */
export async function runStream(s: StreamSession): Promise<void> {
  const { ctx, feed, blocId, signal } = s;
  const stop = feed.watch(blocId);
  let cursor = s.after;
  let wroteAt = Date.now();
  let checkedAt = Date.now();
  const current = async (): Promise<Reader | ServiceError> => {
    try {
      const principal = await authenticate(ctx, s.secret);
      const access = await requireAccess(ctx, principal, blocId, "read");
      checkedAt = Date.now();
      return { principal, access };
    } catch (error) {
      if (error instanceof ServiceError) return error;
      throw error;
    }
  };
  const write = async (text: string): Promise<void> => {
    const sent = s.write(text);
    // A subscriber that stops reading holds the write; their access is still checked meanwhile.
    while (!(await within(sent, s.recheckMs))) {
      if ((await current()) instanceof ServiceError) throw new Withdrawn();
    }
    wroteAt = Date.now();
  };
  /** The reader as they stand now; undefined (after telling the subscriber) once withdrawn. */
  const reader = async (): Promise<Reader | undefined> => {
    const now = await current();
    if (!(now instanceof ServiceError)) return now;
    await within(s.write(`event: error\ndata: ${JSON.stringify({ error: s.refusal(now) })}\n\n`), s.recheckMs);
    return undefined;
  };
  // The ID is the reader's last visible event up to `seq`, not `seq`: it moves only when they may see something new.
  const reset = async (seq: number): Promise<boolean> => {
    const now = await reader();
    if (!now) return false;
    const last = await s.lastVisible.upTo(blocId, now.access.visibility, seq);
    await write(frame(s.ids.seal(last), "reset",
      JSON.stringify({ reason: "Some events are no longer kept (or the Last-Event-ID is not this service's): the stream goes on from here" })));
    return true;
  };
  try {
    feed.saw(blocId, cursor);
    await write(`retry: 2000\nevent: ready\ndata: ${JSON.stringify({ blocId })}\n\n`);
    if (s.lost && !(await reset(cursor))) return;
    while (!signal.aborted) {
      const batch = await feed.read(blocId, cursor, BATCH);
      if (batch.length === 0) {
        const known = feed.known(blocId);
        if (known > cursor) {
          // Numbers up to `known` exist: either not yet visible to a shared read begun earlier, or pruned.
          if ((await ctx.store.events.eventsAfter(blocId, cursor, 1, 1)).length === 0) {
            cursor = known;
            if (!(await reset(cursor))) return;
          }
          continue;
        }
        await feed.changed(blocId, cursor, signal, Math.min(s.keepAliveMs, s.recheckMs));
        if (signal.aborted) break;
        if (Date.now() - checkedAt >= s.recheckMs && !(await reader())) return;
        if (Date.now() - wroteAt >= s.keepAliveMs) await write(": keep-alive\n\n");
        continue;
      }
      if (batch[0]!.seq > cursor + 1 && !(await reset(batch[0]!.seq - 1))) return;
      const now = await reader();
      if (!now) return;
      let text = "";
      for (const event of batch) {
        const data = shown(event, now.access, now.principal);
        if (data !== undefined) text += frame(s.ids.seal(event.seq), event.type, data);
        cursor = event.seq;
      }
      feed.saw(blocId, cursor);
      if (text !== "") await write(text);
    }
  } catch (error) {
    if (!(error instanceof Withdrawn)) throw error;
  } finally {
    stop();
  }
}

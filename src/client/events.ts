import type { Readable } from "node:stream";
import { BlocApiError } from "./errors.js";
import type { BlocId } from "./types.js";
import type { NodeTransport } from "./transport.js";

/** The event types a webhook may ask for; a live stream carries the two record ones. */
export type EventType = "record.added" | "record.updated" | "record.deleted" | "record.restored" | "bloc.updated" | "access.updated";
type RecordEventType = "record.added" | "record.updated" | "record.deleted" | "record.restored";
const RECORD_EVENTS: readonly string[] = ["record.added", "record.updated", "record.deleted", "record.restored"];

export interface WebhookInput {
  readonly url: string;
  /** The blocs whose events it receives; left out or null: every bloc, present and future. */
  readonly blocs?: readonly BlocId[] | null;
  /** Default: the four record.* types. */
  readonly events?: readonly EventType[];
  /** 16 to 256 printable characters; generated when left out. */
  readonly secret?: string;
}

export interface Webhook {
  readonly id: string;
  readonly url: string;
  readonly blocs: readonly string[] | null;
  readonly events: readonly EventType[];
  readonly createdAt: string;
}

export interface WebhookDelivery {
  readonly id: number;
  readonly webhookId: string;
  readonly blocId: string;
  readonly seq: number;
  readonly eventId: string;
  readonly type: EventType;
  readonly attempt: number;
  readonly at: string;
  readonly statusCode: number | null;
  readonly error: string | null;
  readonly durationMs: number;
  readonly outcome: "delivered" | "failed" | "gave-up" | "resent" | "resend-failed";
}

/** One event of a live stream: a record added, updated, deleted or restored, or a `reset` (events before it are no longer kept). */
export interface StreamEvent {
  /** Pass the last one seen as `lastEventId` to resume after it. */
  readonly id: string | undefined;
  readonly type: RecordEventType | "reset";
  readonly data: {
    readonly id?: string;
    readonly blocId?: string;
    readonly at?: string;
    readonly record?: Readonly<Record<string, string | number>>;
    /** record.updated, to those who may read the record's history (admins with an unscoped token) only. */
    readonly changes?: Readonly<Record<string, { readonly from: string; readonly to: string }>>;
    readonly [key: string]: unknown;
  };
}

export interface StreamOptions {
  /** Resume right after this event (a StreamEvent's `id`). */
  readonly lastEventId?: string;
  /** Ends the stream. */
  readonly signal?: AbortSignal;
}

/** The events of a text/event-stream body, as EventSource parses them (comments skipped). */
async function* parse(body: Readable): AsyncGenerator<{ id: string | undefined; event: string; data: string }> {
  let buffer = "";
  body.setEncoding("utf8");
  for await (const chunk of body as AsyncIterable<string>) {
    buffer += chunk;
    let end: number;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let id: string | undefined;
      let event = "message";
      const data: string[] = [];
      for (const line of block.split("\n")) {
        if (line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
        if (field === "id") id = value; else if (field === "event") event = value; else if (field === "data") data.push(value);
      }
      if (data.length > 0) yield { id, event, data: data.join("\n") };
    }
  }
}

/**
 * A bloc's live events (GET /api/events): those of records the token may see, as they
 * are committed. It ends when `signal` aborts or the service closes the stream; an `error`
 * event (token or access withdrawn) is thrown as a BlocApiError. To resume without a gap,
 * open it again with the last event's `id` as `lastEventId`.
 */
export async function* streamEvents(transport: NodeTransport, blocId: BlocId, options: StreamOptions = {}): AsyncGenerator<StreamEvent> {
  const path = `/api/events?blocId=${encodeURIComponent(String(blocId))}`;
  const headers: Record<string, string> = { accept: "text/event-stream" };
  if (options.lastEventId !== undefined) headers["last-event-id"] = options.lastEventId;
  const incoming = await transport.stream({ method: "GET", path, headers });
  const stop = (): void => { incoming.body.destroy(); };
  options.signal?.addEventListener("abort", stop);
  try {
    for await (const message of parse(incoming.body)) {
      if (message.event === "error") {
        const text = (JSON.parse(message.data) as { error?: string }).error ?? message.data;
        throw new BlocApiError(401, "/api/events", text);
      }
      if (RECORD_EVENTS.includes(message.event) || message.event === "reset") {
        yield { id: message.id, type: message.event as StreamEvent["type"], data: JSON.parse(message.data) as StreamEvent["data"] };
      }
    }
  } catch (error) {
    if (!options.signal?.aborted) throw error;
  } finally {
    options.signal?.removeEventListener("abort", stop);
    stop();
  }
}

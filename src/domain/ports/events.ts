import type { EventType } from "../event-types.js";

/*
 * What the store keeps for events (domain/events.ts) and webhooks (domain/webhooks.ts):
 * the outbox, numbered per bloc; the webhooks; one delivery lane per webhook and bloc,
 * claimed by one process at a time through the database; and a log of attempts.
 */

/** One event as the domain writes it, inside the transaction of the change it tells of. */
export interface NewEvent {
  /** A UUID: what receivers deduplicate by (X-Bloc-Event-Id). */
  readonly id: string;
  readonly type: EventType;
  /** `YYYY-MM-DD HH:MM:SS` in the service's time zone. */
  readonly at: string;
  /** Milliseconds since the epoch, for how long it is kept. */
  readonly atMs: number;
  readonly recordId: number | null;
  /** The event's data after its envelope, as JSON object text (domain/events.ts eventBody). */
  readonly data: string;
}

export interface StoredEvent extends NewEvent {
  readonly blocId: string;
  /** Its number in its bloc: 1, 2, 3, … in commit order, with no gaps. */
  readonly seq: number;
}

export interface Webhook {
  readonly id: string;
  readonly url: string;
  /** The blocs it receives events of; null: every bloc, present and future. */
  readonly blocs: readonly string[] | null;
  readonly events: readonly EventType[];
  /** Signs each delivery (HMAC-SHA256); kept as given, since signing needs it. */
  readonly secret: string;
  readonly createdAt: string;
}

/** Where one webhook stands in one bloc's events. */
export interface Lane {
  readonly webhookId: string;
  readonly blocId: string;
  /** Every event up to this one is delivered (or skipped, or given up on). */
  readonly deliveredSeq: number;
  /** Failed attempts at the next event so far. */
  readonly attempts: number;
  /** When the next event's first attempt failed (ms), while it keeps failing. */
  readonly firstFailedMs: number | null;
}

/** What a lane's holder writes back: its new position, and when to try next. */
export interface LaneProgress extends Omit<Lane, "webhookId" | "blocId"> {
  /** No attempt before this (ms since the epoch). */
  readonly nextAttemptMs: number;
  /** Lets go of the lane (caught up, waiting to retry, or stopping), else keeps it until `leaseUntilMs`. */
  readonly release: boolean;
}

/** Automatic attempts: delivered, failed (to be retried) or gave-up (after BLOC_WEBHOOK_RETRY_FOR_MS); manual re-sends: resent or resend-failed. */
export type DeliveryOutcome = "delivered" | "failed" | "gave-up" | "resent" | "resend-failed";

/** One attempt to deliver one event to one webhook. */
export interface NewDelivery {
  readonly webhookId: string;
  readonly blocId: string;
  readonly seq: number;
  readonly eventId: string;
  readonly type: EventType;
  /** 1 for the first attempt at this event, 2 for the next, …; a manual re-send counts on. */
  readonly attempt: number;
  /** `YYYY-MM-DD HH:MM:SS`, when it was sent. */
  readonly at: string;
  /** The receiver's status, or null when none came (refused connection, time-out). */
  readonly statusCode: number | null;
  /** Why it failed, in a line; null when delivered. */
  readonly error: string | null;
  readonly durationMs: number;
  readonly outcome: DeliveryOutcome;
}

export interface Delivery extends NewDelivery {
  readonly id: number;
}

/** Writes inside a unit of work (Tx): each joins the transaction of the change it belongs to. */
export interface EventWrites {
  /**
   * Appends events of one bloc to the outbox, numbered after the bloc's last. Holds the
   * bloc's numbering until the transaction ends (so numbers follow commit order): call it
   * last in a unit, after any lock the unit takes.
   */
  appendEvents(blocId: string, events: readonly NewEvent[]): Promise<void>;
  /** The webhook, and a lane for each of its blocs that starts after the bloc's last event. */
  createWebhook(webhook: Webhook): Promise<void>;
}

/** Reads and bookkeeping of events and webhooks, outside any unit of work. */
export interface EventStore {
  /** A random key (hex) made with the instance, the same for every process: it seals live streams' event IDs. */
  eventIdKey(): Promise<string>;
  /** The number of a bloc's last event; 0 when it has none. */
  lastEventSeq(blocId: string): Promise<number>;
  /**
   * A bloc's events after `afterSeq`, in order, at most `limit`, and stopping before the
   * event that would take their data past `maxBytes` (the first is always returned), so
   * that events of large records cannot make a batch hold more.
   */
  eventsAfter(blocId: string, afterSeq: number, limit: number, maxBytes: number): Promise<StoredEvent[]>;
  findEvent(blocId: string, seq: number): Promise<StoredEvent | undefined>;

  listWebhooks(): Promise<Webhook[]>;
  findWebhook(id: string): Promise<Webhook | undefined>;
  /** Removes a webhook, its lanes and its log; false when there was none. */
  deleteWebhook(id: string): Promise<boolean>;
  /** A webhook's attempts, newest first, at most `limit`, older than `beforeId` when given. */
  listDeliveries(webhookId: string, limit: number, beforeId?: number): Promise<Delivery[]>;
  findDelivery(webhookId: string, id: number): Promise<Delivery | undefined>;
  /** Logs attempts made outside a lane (a manual re-send); returns the first one's ID. */
  addDeliveries(deliveries: readonly NewDelivery[]): Promise<number>;

  /**
   * Claims lanes that have events to deliver and no live holder, and whose next attempt
   * is due, for `owner` until `leaseUntilMs`: each lane is held by one process at a time.
   * Lanes of the webhooks in `busy` are left to others. At most `limit`.
   */
  claimLanes(owner: string, nowMs: number, leaseUntilMs: number, limit: number, busy: readonly string[]): Promise<Lane[]>;
  /**
   * Writes a held lane's progress and the attempts made, if `owner` still holds it (else
   * nothing, and false: another process took it over after the lease ran out).
   */
  saveLane(owner: string, webhookId: string, blocId: string, progress: LaneProgress, deliveries: readonly NewDelivery[],
    leaseUntilMs: number): Promise<boolean>;
  /** Makes a waiting lane's next attempt due now. */
  retryLaneNow(webhookId: string, blocId: string): Promise<void>;
  /**
   * Deletes events kept since before `beforeMs` that every lane of their bloc is past,
   * at most about `limit`; returns how many.
   */
  pruneEvents(beforeMs: number, limit: number): Promise<number>;
  /** Deletes attempts older than each webhook's `keep` newest, about `limit` per webhook at most; returns how many. */
  pruneDeliveries(keep: number, limit: number): Promise<number>;
}

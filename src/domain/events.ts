import crypto from "node:crypto";
import { STATUS_KEY, type StoredRecord, type Visibility } from "./model.js";
import type { Context } from "./context.js";
import type { EventType } from "./event-types.js";
import type { Changes, HistoryEntry, NewEvent, StoredEvent, TransactionOptions, Tx } from "./ports/store.js";

/**
 * Events: what changed, written to the outbox (the `events` table) in the transaction of
 * the change itself, so that an event exists exactly when its change committed. Each
 * bloc numbers its events 1, 2, 3, … in commit order (`seq`); webhooks deliver them in
 * that order and the live stream resumes from a number.
 */

export { EVENT_TYPES, RECORD_EVENT_TYPES, isEventType, type EventType } from "./event-types.js";

/** Who made a change. */
export interface EventActor {
  readonly userId: string;
  /** The token it came through; null for the CLI, which needs none. */
  readonly tokenId: string | null;
}

/** A record as an event shows it: the spec's system values, then the fields it holds. */
export type EventRecord = Record<string, string | number>;

/** The part of a record event after its envelope, as stored (JSON text) and delivered. */
export interface RecordEventData {
  readonly actor: EventActor;
  readonly record: EventRecord;
  /** record.updated: each changed field (or submitted_status), from what to what. */
  readonly changes?: Changes;
}

/** The part of a bloc or access event after its envelope. */
export interface ConfigEventData {
  readonly actor: EventActor | null;
  /** What changed: `kind` names it ("field.added", "grant.set", …), the rest is its detail. */
  readonly change: { readonly kind: string } & Readonly<Record<string, unknown>>;
}

/** An event as it reaches a receiver: its envelope, then its data. */
export interface EventBody {
  readonly id: string;
  readonly type: EventType;
  readonly blocId: string;
  readonly seq: number;
  readonly at: string;
}

/** A lone surrogate half, which both engines store as U+FFFD: the event shows the value as stored. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

function eventRecord(record: Pick<StoredRecord, "id" | "createdAt" | "userId" | "submittedStatus" | "values">): EventRecord {
  const view: EventRecord = {
    service_entry_row_id: record.id,
    created_at: record.createdAt,
    user_id: record.userId,
    submitted_status: record.submittedStatus,
  };
  for (const [slug, value] of Object.entries(record.values)) view[slug] = value.replace(LONE_SURROGATE, "\uFFFD");
  return view;
}

function newEvent(type: EventType, at: string, recordId: number | null, data: RecordEventData | ConfigEventData): NewEvent {
  return { id: crypto.randomUUID(), type, at, atMs: Date.now(), recordId, data: JSON.stringify(data) };
}

/** The event of a record just added. */
export function recordAdded(record: StoredRecord, tokenId: string | null): NewEvent {
  return newEvent("record.added", record.createdAt, record.id, {
    actor: { userId: record.userId, tokenId }, record: eventRecord(record),
  });
}

/**
 * One event per record an update changed (its history entries), each with the record as
 * the update left it and the values it changed, from what to what.
 */
export function recordsUpdated(before: readonly StoredRecord[], entries: readonly HistoryEntry[]): NewEvent[] {
  const byId = new Map(before.map((record) => [record.id, record]));
  return entries.map((entry) => {
    const record = byId.get(entry.recordId)!;
    const values: Record<string, string> = { ...record.values };
    let status = record.submittedStatus;
    for (const [key, { to }] of Object.entries(entry.changes)) {
      if (key === STATUS_KEY) status = Number(to); else values[key] = to;
    }
    return newEvent("record.updated", entry.at, record.id, {
      actor: { userId: entry.userId, tokenId: entry.tokenId },
      record: eventRecord({ ...record, submittedStatus: status, values }),
      changes: entry.changes,
    });
  });
}

/**
 * The event of a record deleted or restored: the record as it was deleted (or is again),
 * so that a reader's visibility decides on it as on any record event.
 */
export function recordRemovedOrRestored(type: "record.deleted" | "record.restored", record: StoredRecord,
  actor: EventActor, at: string): NewEvent {
  return newEvent(type, at, record.id, { actor, record: eventRecord(record) });
}

/** An event of a change to a bloc's settings or fields, or to who may do what on it. */
export function configChanged(type: "bloc.updated" | "access.updated", at: string, change: ConfigEventData["change"]): NewEvent {
  return newEvent(type, at, null, { actor: null, change });
}

/**
 * The JSON text delivered for an event: the envelope's keys first, then the stored data's,
 * spliced as text so that the bytes signed are the bytes sent, every time it is sent.
 */
export function eventBody(event: StoredEvent): string {
  const envelope: EventBody = { id: event.id, type: event.type, blocId: event.blocId, seq: event.seq, at: event.at };
  const head = JSON.stringify(envelope);
  return event.data === "{}" ? head : `${head.slice(0, -1)},${event.data.slice(1)}`;
}

/**
 * Whether a reader with `visibility` sees the record an event shows: the same rule the
 * engines put into every query (store/sqlite/sql.ts visibilitySql), here on one record in
 * memory: no record at all, only the reader's own, and each profile-filtered field holding
 * one of the reader's values (a field never set reads "").
 */
export function canSee(visibility: Visibility, record: EventRecord): boolean {
  if (visibility.none) return false;
  if (visibility.ownerId !== undefined && String(record.user_id) !== visibility.ownerId) return false;
  for (const condition of visibility.match ?? []) {
    const value = Object.hasOwn(record, condition.key) ? String(record[condition.key]) : "";
    if (!condition.values.includes(value)) return false;
  }
  return true;
}

/**
 * Runs a change of a bloc's settings, fields or access and appends its event, in one
 * transaction: the event exists exactly when the change does.
 */
export async function changeWithEvent<T>(ctx: Context, blocId: string, change: (tx: Tx) => Promise<T>,
  event: () => NewEvent, options?: Pick<TransactionOptions, "recount">): Promise<T> {
  const result = await ctx.store.transaction(async (tx) => {
    const value = await change(tx);
    await tx.events.appendEvents(blocId, [event()]);
    return value;
  }, options);
  ctx.events.appended(blocId);
  return result;
}

/* The kinds of event (events.ts), apart so that the ports (ports/events.ts) can name them without importing the domain's logic. */

export const EVENT_TYPES = [
  "record.added", "record.updated", "record.deleted", "record.restored", "bloc.updated", "access.updated",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];
/** What the live stream carries: records, which a subscriber's visibility decides on. */
export const RECORD_EVENT_TYPES: readonly EventType[] = ["record.added", "record.updated", "record.deleted", "record.restored"];

export function isEventType(value: string): value is EventType {
  return (EVENT_TYPES as readonly string[]).includes(value);
}

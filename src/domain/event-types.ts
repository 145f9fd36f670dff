/**
 * The kinds of event, on their own so that the storage ports can name them without
 * importing what makes events (events.ts imports the ports).
 */
export const EVENT_TYPES = [
  "record.added", "record.updated", "record.deleted", "record.restored", "bloc.updated", "access.updated",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

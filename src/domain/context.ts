import type { IdStyle } from "../config.js";
import type { ConfigWrites, Store, StoreReads } from "./ports/store.js";
import type { Blobs } from "./ports/blobs.js";
import type { Clock } from "./clock.js";
import type { EventSignal } from "./event-signal.js";
import type { RecordLimits } from "./values.js";

/** What config operations need; its store may be a transaction, so that several commit together. */
export interface ConfigContext {
  readonly store: StoreReads & ConfigWrites;
  readonly now: Clock;
}

/** What the domain reports as it works, for metrics; it never changes what the domain does. */
export interface Telemetry {
  recordsAdded(n: number): void;
  recordsUpdated(n: number): void;
  /** Rows of a report handed to its writer. */
  reportRows(n: number): void;
  /** One webhook delivery attempt and how it ended (ports/events.ts DeliveryOutcome). */
  webhookAttempt(outcome: string): void;
  /** Live event streams opened (1) or closed (-1). */
  eventStreams(delta: number): void;
}

/** What every domain operation needs, built once at start-up. */
export interface Context extends ConfigContext {
  readonly store: Store;
  /** Where uploaded files' content lives. */
  readonly blobs: Blobs;
  readonly now: Clock;
  readonly idStyle: IdStyle;
  /** get-data's fieldCounts lists at most this many values per field (the most frequent); 0 lists all. */
  readonly fieldCountsLimit: number;
  /** How long add-data remembers an Idempotency-Key, in milliseconds. */
  readonly idempotencyMs: number;
  /** What one record write may carry. */
  readonly limits: RecordLimits;
  /** A new, unguessable reference for an uploaded file. */
  readonly newFileRef: () => string;
  readonly telemetry: Telemetry;
  /** Told of every commit that appends events, for this process's listeners. */
  readonly events: EventSignal;
}

import type { AccessReads, AccessStore } from "./access.js";
import type { AccountReads, AccountWrites } from "./accounts.js";
import type { BlocReads, BlocStore } from "./blocs.js";
import type { Capabilities } from "./capabilities.js";
import type { CounterReads, CounterStore } from "./counters.js";
import type { EventWrites } from "./events.js";
import type { FileReads, FileWrites } from "./files.js";
import type { IdempotencyKeys } from "./idempotency.js";
import type { RecordReads, RecordWrites } from "./records.js";
import type { TokenReads, TokenWrites } from "./tokens.js";

/*
 * The store by concern: each concern a small interface, offered as a view (`records`,
 * `accounts`, …) alike by the Store (outside any transaction), by a snapshot and by a
 * unit of work (one connection, one transaction).
 */

/** Reads every engine answers, alike inside a transaction, a snapshot or on their own. */
export interface StoreReads {
  readonly records: RecordReads;
  readonly files: FileReads;
  readonly counters: CounterReads;
  readonly accounts: AccountReads;
  readonly tokens: TokenReads;
  readonly blocs: BlocReads;
  readonly access: AccessReads;
}

/** Changes to users, tokens, blocs and access: each atomic on its own, alike on the Store and in a unit of work. */
export interface ConfigWrites {
  readonly accounts: AccountReads & AccountWrites;
  readonly tokens: TokenReads & TokenWrites;
  readonly blocs: BlocStore;
  readonly access: AccessStore;
}

/**
 * What an engine offers on one open transaction: every view, reads and writes on its
 * connection. Everything read sees the transaction's own writes.
 */
export interface TxViews extends StoreReads, ConfigWrites {
  readonly capabilities: Capabilities;
  readonly records: RecordWrites;
  readonly files: FileWrites;
  readonly counters: CounterStore;
  readonly accounts: AccountReads & AccountWrites;
  readonly tokens: TokenReads & TokenWrites;
  readonly blocs: BlocStore;
  readonly access: AccessStore;
  readonly events: EventWrites;
  readonly idempotency: IdempotencyKeys;
}

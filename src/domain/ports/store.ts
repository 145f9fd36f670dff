import type { CounterDeltas } from "../counting/deltas.js";
import type { Layout } from "../counting/keys.js";
import type { AccessStore } from "./access.js";
import type { AccountStore } from "./accounts.js";
import type { BlocStore } from "./blocs.js";
import type { Capabilities } from "./capabilities.js";
import type { CounterReads } from "./counters.js";
import type { EventStore } from "./events.js";
import type { ContentHolds } from "./files.js";
import type { IdempotencyPurge } from "./idempotency.js";
import type { Maintenance } from "./maintenance.js";
import type { RecordReads } from "./records.js";
import type { TokenStore } from "./tokens.js";
import type { StoreReads, TxViews } from "./views.js";

/*
 * What the domain needs from storage, one file per concern beside this one; this file
 * puts them together as the Store and its units of work, and re-exports them so that a
 * caller can take every port from one place.
 */

export type * from "./access.js";
export type * from "./accounts.js";
export type * from "./blocs.js";
export type * from "./capabilities.js";
export type * from "./counters.js";
export type * from "./events.js";
export type * from "./files.js";
export type * from "./idempotency.js";
export type * from "./maintenance.js";
export type * from "./records.js";
export type * from "./tokens.js";
export type * from "./views.js";
export { COUNTER_TABLES, TABLES } from "./maintenance.js";

/**
 * One unit of work inside a transaction: every view on the transaction's connection, and
 * the counter changes that the domain adds up as it writes (domain/counting/deltas.ts)
 * and settles before the commit (domain/transactions.ts).
 */
export interface Tx extends TxViews {
  /** Counter changes of this unit; written when the transaction commits. */
  readonly deltas: CounterDeltas;
  /**
   * Counter changes of units that ran earlier in the same transaction (a group commit)
   * and are not in the counter tables yet.
   */
  readonly pending: CounterDeltas;
  /**
   * Bloc layouts read in this transaction, under the bloc's lock: the units of a group
   * commit read a bloc's once. Emptied when a unit fails (its rollback may let go of a
   * lock it took).
   */
  readonly layouts: Map<string, Layout>;
}

export interface TransactionOptions {
  /**
   * A bloc ID: units of the same bloc that arrive together may share one transaction
   * (group commit), each in a savepoint of its own, so that one refused unit undoes only itself.
   */
  readonly group?: string | undefined;
  /**
   * The unit counts a bloc's records again (the bloc's restriction to or from `own`, an
   * owner's restriction, a profile filter): its time grows with the bloc, so the request's
   * store deadline does not apply to it, and an engine that cuts connections that stay
   * silent too long (an outage's sign on PostgreSQL) runs it where none is cut. Never grouped.
   */
  readonly recount?: boolean | undefined;
}

/**
 * Everything the service keeps. One implementation per engine (store/<engine>/); the
 * domain sees only this interface.
 *
 * Reads and config writes may be called directly on the views; each is atomic. Record
 * writes, and any change that must commit with others, run in `transaction`. A read that
 * must agree with itself (a page with its counts) runs in `snapshot`. Neither nests:
 * inside `work`, use only the `tx`/`view` it is given.
 */
export interface Store extends StoreReads {
  readonly capabilities: Capabilities;
  readonly records: RecordReads;
  readonly files: ContentHolds;
  readonly counters: CounterReads;
  readonly accounts: AccountStore;
  readonly tokens: TokenStore;
  readonly blocs: BlocStore;
  readonly access: AccessStore;
  readonly events: EventStore;
  readonly idempotency: IdempotencyPurge;
  readonly maintenance: Maintenance;

  /** Runs `work` in one write transaction; if it throws, nothing it did is kept. */
  transaction<T>(work: (tx: Tx) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /** Runs `work` against one consistent snapshot of the store. */
  snapshot<T>(work: (view: StoreReads) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

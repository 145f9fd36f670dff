import postgres from "postgres";
import { Deadline } from "./deadline.js";
import { translate } from "./errors.js";
import type { Sockets } from "./sockets.js";

/**
 * The connection to PostgreSQL: the `postgres` package (porsager), whose pools
 * pipeline queries and keep each SQL text prepared once per connection.
 */

/** 64-bit integers (IDs, counts, sums cast back to bigint) come back as JavaScript numbers: all stay below 2^53. */
const TYPES = {
  int8: { to: 20, from: [20], serialize: (value: number): string => String(value), parse: (raw: string): number => Number(raw) },
};

export type Pg = postgres.Sql<{ int8: number }>;
export type PgTransaction = postgres.TransactionSql<{ int8: number }>;
/** A pool or an open transaction (or one of its savepoints). */
export type Queryable = Pg | PgTransaction;
export type Param = postgres.ParameterOrJSON<number>;

/** What a pool does when the network to PostgreSQL fails. */
export interface Outages {
  /** Makes the pool's sockets, so that silent ones can be found and cut (sockets.ts). */
  readonly sockets: Sockets;
  /** BLOC_STORE_TIMEOUT_MS: also the longest a new connection may take to be ready. */
  readonly timeoutMs: number;
}

/**
 * The wait before a connection is opened again after one failed, in seconds, doubling
 * with each failure in a row. The driver's own grows to 20 s, so that a store back
 * after a few seconds' outage was used again only up to 20 s later.
 */
function reconnectDelay(failures: number): number {
  return Math.min(0.05 * 2 ** failures, 1);
}

/**
 * TCP keepalives the server sends on each of the service's sessions: after 30 s of silence,
 * every 10 s, 3 unanswered ending the session. A session whose process or route a partition
 * took away is otherwise kept by the server until its own keepalive gives up (by default
 * two hours), holding one of its connection slots: under repeated partitions they fill
 * them all (a stress of 40 black holes filled 100), and every new connection of every
 * client is refused until then. Only the server side: the service's own side is watched by
 * its deadlines (deadline.ts, sockets.ts).
 */
const SERVER_KEEPALIVES = { tcp_keepalives_idle: "30", tcp_keepalives_interval: "10", tcp_keepalives_count: "3" } as const;

/**
 * A pool of `max` connections. `settings` are sent when each connection opens (as
 * `SET` would, but also on every connection the pool opens again later).
 */
export function connect(url: string, max: number, settings: Readonly<Record<string, string>> = {}, outages?: Outages): Pg {
  return postgres(url, {
    max,
    ...(outages ? {
      socket: (options: Parameters<Sockets["make"]>[0]) => outages.sockets.make(options),
      // Whole seconds: a route that accepts and never answers fails the connection attempt by then.
      connect_timeout: Math.max(1, Math.ceil(outages.timeoutMs / 1000)),
      backoff: reconnectDelay,
    } : {}),
    types: TYPES,
    // CREATE INDEX IF NOT EXISTS and friends announce what they skipped: nothing to act on.
    onnotice: () => undefined,
    // No parallel workers: every statement of the service reads a page, a few counters or an
    // index's handful of entries, and launching workers costs tens of milliseconds — which the
    // planner pays whenever it overestimates a lookup (a search by a value sent as a list
    // parameter: estimated 49,000 rows, found 1, 48 ms instead of 0.07 at 1,000,000 records).
    connection: { application_name: "bloc-data", max_parallel_workers_per_gather: "0", ...SERVER_KEEPALIVES, ...settings },
    transform: { undefined: null },
  });
}

export interface RunOptions {
  /**
   * False for a text whose shape a client chose (which fields a report filters or an
   * update searches by): sent as an unnamed statement, planned for its values and kept
   * by no connection. Default true.
   */
  readonly prepare?: boolean;
}

/**
 * Runs one statement. The driver keeps a prepared statement per distinct text on each
 * connection, for the connection's life, on both sides (here and in the server
 * process), so only texts of a bounded set are prepared: lists travel as one array
 * parameter, and texts whose shape a client chooses are sent unprepared (RunOptions).
 * Driver errors leave as the domain's errors (errors.ts).
 */
export async function run<T extends object>(
  db: Queryable, text: string, params: readonly Param[] = [], options: RunOptions = {},
): Promise<T[]> {
  try {
    const rows = await db.unsafe(text, params as Param[], { prepare: options.prepare ?? true });
    // A plain array: the driver's result array carries extra properties (count, columns, …).
    return Array.from(rows) as unknown as T[];
  } catch (error) {
    throw translate(error);
  }
}

/**
 * PostgreSQL text cannot hold U+0000. No stored text holds it, so a lookup of a text
 * holding it finds nothing and is not sent at all; a write of one is refused (errors.ts).
 */
export function storable(text: string): boolean {
  return !text.includes("\u0000");
}

/** Where something reads or writes: a pool, or a transaction whose current savepoint may change between calls. */
export interface Db {
  run<T extends object>(text: string, params?: readonly Param[], options?: RunOptions): Promise<T[]>;
}

/**
 * A write whose answer nobody reads, as one statement for any number of rows, so that a
 * group commit can send the rows of all its units in one (write-transaction.ts).
 */
export interface AheadWrite<R> {
  /** Rows of one key go in one statement (events: one bloc's, numbered together). */
  key(row: R): string;
  statement(rows: readonly R[]): { text: string; params: Param[] };
}

/** One write transaction's connection (write-transaction.ts). */
export interface TxDb extends Db {
  /**
   * Writes a row without waiting for its answer. Its failure fails the unit it was sent
   * in; once units run ahead (`pipelining`), the whole transaction (UnitWritesFailedError).
   * With `pipelining` the row is held and sent, with the same write's rows of the units
   * after it, in one statement before the next statement of any kind.
   */
  ahead<R>(write: AheadWrite<R>, row: R): void;
  /** Whether the transaction's units go on without waiting for their writes' answers (a group commit of several). */
  readonly pipelining: boolean;
  /** An ID for a new record, taken from the sequence ahead of its INSERT (with `pipelining`). */
  recordId(): Promise<number>;
}

/** Statements on a pool, or on one transaction's connection. */
export function onPool(pool: Queryable): Db {
  return { run: (text, params, options) => run(pool, text, params, options) };
}

/** Statements on a pool, each failing as the store being unavailable if unanswered after `timeoutMs` (deadline.ts). */
export function onPoolWithin(pool: Queryable, timeoutMs: number, sockets: Sockets): Db {
  return { run: (text, params, options) => Deadline.in(timeoutMs, sockets).run(() => run(pool, text, params, options)) };
}

/**
 * Keys of advisory locks, as (class, object) pairs: the class says what is locked, the
 * object which one (a hash of its name). A hash collision only makes two unrelated
 * writers wait for each other, never lets two writers of one thing run together.
 */
export const LOCK = {
  /** Held for the whole of start-up migrations (a session lock). */
  migrations: 1114402560,
  /** One bloc's record writers (transaction locks). */
  bloc: 1114402561,
  /** One content hash: holds, releases and the files that take the content. */
  content: 1114402562,
  /** Creating one index at run time. */
  ddl: 1114402563,
  /** One user's Idempotency-Key (transaction locks, only ever tried: see idempotency.ts). */
  idempotency: 1114402564,
} as const;

/** Takes an advisory lock held until the transaction ends. */
export async function lockUntilCommit(db: Db, kind: keyof typeof LOCK, name: string): Promise<void> {
  await db.run("SELECT pg_advisory_xact_lock($1::integer, hashtext($2::text))", [LOCK[kind], name]);
}

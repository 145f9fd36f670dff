import postgres from "postgres";
import { translate } from "./errors.js";

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

export function connect(url: string, max: number): Pg {
  return postgres(url, {
    max,
    types: TYPES,
    // CREATE INDEX IF NOT EXISTS and friends announce what they skipped: nothing to act on.
    onnotice: () => undefined,
    connection: { application_name: "bloc-data" },
    transform: { undefined: null },
    // synchronous_commit stays at the server's default (on): an answered write has reached
    // the write-ahead log on disk, as SQLite's synchronous = FULL promises for that engine.
  });
}

/**
 * Runs one statement. Every SQL text the engine sends is one of a bounded set (lists
 * travel as one array parameter), so each is prepared once per connection and reused.
 * Driver errors leave as the domain's errors (errors.ts).
 */
export async function run<T extends object>(db: Queryable, text: string, params: readonly Param[] = []): Promise<T[]> {
  try {
    const rows = await db.unsafe(text, params as Param[], { prepare: true });
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
  run<T extends object>(text: string, params?: readonly Param[]): Promise<T[]>;
}

export function onPool(pool: Pg): Db {
  return { run: (text, params) => run(pool, text, params) };
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
} as const;

/** Takes an advisory lock held until the transaction ends. */
export async function lockUntilCommit(db: Db, kind: keyof typeof LOCK, name: string): Promise<void> {
  await db.run("SELECT pg_advisory_xact_lock($1::integer, hashtext($2::text))", [LOCK[kind], name]);
}

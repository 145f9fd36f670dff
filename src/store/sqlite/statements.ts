import type Database from "better-sqlite3";

export type Param = string | number | null;

/** Prepared statements a connection keeps at most; the least recently used is dropped past this. */
export const STATEMENT_CACHE_SIZE = 256;

/**
 * Prepared statements of one connection, each prepared once and kept while it is among
 * the most recently used: preparing costs more than most reads. Lists travel as one
 * JSON parameter (sql.ts), so a statement's text depends only on which conditions a
 * query has, never on how many values it lists; yet the combinations a client can ask
 * for (report columns, filters on any subset of fields) are too many to keep them all,
 * so the cache is bounded. A dropped statement is finalised when it is garbage-collected.
 */
export class Statements {
  /** In use order, least recent first (a Map keeps insertion order). */
  private readonly cache = new Map<string, Database.Statement>();

  constructor(readonly db: Database.Database, private readonly capacity = STATEMENT_CACHE_SIZE) {}

  get(sql: string): Database.Statement {
    const cached = this.cache.get(sql);
    if (cached) {
      this.cache.delete(sql);
      this.cache.set(sql, cached);
      return cached;
    }
    const statement = this.db.prepare(sql);
    this.cache.set(sql, statement);
    if (this.cache.size > this.capacity) this.cache.delete(this.cache.keys().next().value!);
    return statement;
  }

  /** Statements kept now. */
  get size(): number {
    return this.cache.size;
  }
}

/** A JSON path naming one field; slugs are validated to [A-Za-z0-9_], so inlining one is safe. */
export function fieldPath(slug: string): string {
  return `$."${slug}"`;
}

/**
 * A list as one parameter: `IN (SELECT value FROM json_each(?))` takes it whatever its
 * length, so that the statement's text is the same for every length and no list can
 * pass SQLite's limit on the number of parameters.
 */
export function jsonList(values: readonly string[]): string {
  return JSON.stringify(values);
}

/** `IN` over a list sent as one parameter (jsonList). */
export const IN_LIST = "IN (SELECT value FROM json_each(?))";

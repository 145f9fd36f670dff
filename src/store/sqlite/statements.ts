import type Database from "better-sqlite3";
import { ConflictError } from "../../domain/errors.js";

export type Param = string | number | null;

/**
 * Prepared statements of one connection, each prepared once: filters produce a
 * handful of distinct SQL texts, and preparing costs more than most reads.
 */
export class Statements {
  private readonly cache = new Map<string, Database.Statement>();

  constructor(readonly db: Database.Database) {}

  get(sql: string): Database.Statement {
    let statement = this.cache.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.cache.set(sql, statement);
    }
    return statement;
  }

  /** Runs a write, turning a unique-key violation into the domain's ConflictError. */
  write<T>(work: () => T): T {
    try {
      return work();
    } catch (error) {
      if (error instanceof Error && "code" in error &&
        (error.code === "SQLITE_CONSTRAINT_PRIMARYKEY" || error.code === "SQLITE_CONSTRAINT_UNIQUE")) {
        throw new ConflictError("already exists");
      }
      throw error;
    }
  }

  /** Runs `work` in a transaction that takes the write lock first, so its reads cannot go stale. */
  immediate<T>(work: () => T): T {
    return this.db.transaction(work).immediate();
  }
}

/** Integer IDs inside, strings outside; a string that is no integer names nothing (null matches no row). */
export function internalId(id: string): number | null {
  return /^\d{1,15}$/.test(id) ? Number(id) : null;
}

/** A JSON path naming one field; slugs are validated to [A-Za-z0-9_], so inlining one is safe. */
export function fieldPath(slug: string): string {
  return `$."${slug}"`;
}

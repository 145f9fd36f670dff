import type Database from "better-sqlite3";

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


}


/** A JSON path naming one field; slugs are validated to [A-Za-z0-9_], so inlining one is safe. */
export function fieldPath(slug: string): string {
  return `$."${slug}"`;
}

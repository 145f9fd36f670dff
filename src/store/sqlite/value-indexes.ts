import type Database from "better-sqlite3";
import { fieldPath } from "./statements.js";

/*
 * Every field is searchable by value without an admin marking it (issue 10): each field
 * slug has one partial expression index, shared by every bloc (slugs are field_1,
 * field_2, … in each bloc), on (bloc_id, value) of the records that hold a non-empty
 * value there. Partial, so that a record costs an entry only in the indexes of the
 * fields it holds: a bloc with 100 fields gives the table 100 indexes, but a record of a
 * 10-field bloc is entered in 10 of them. Queries that want an index add the index's
 * condition (`<> ''`) to theirs (sql.ts: valueSql), since SQLite uses a partial index
 * only when the query's WHERE holds its condition as a term.
 */

/** The index of one slug's values. */
export function valueIndexName(slug: string): string {
  return `records_by_value_${slug}`;
}

/** A field's value in `records AS r`, as its value index keys it; null when absent. */
export function valueSql(slug: string, alias = "r"): string {
  return `json_extract(${alias === "" ? "" : `${alias}.`}data, '${fieldPath(slug)}')`;
}

/** The term that lets a query use the slug's partial index: implied by any `= v` with v non-empty. */
export function indexedTerm(slug: string, alias = "r"): string {
  return `${valueSql(slug, alias)} <> ''`;
}

/** Creates the slug's value index unless it exists (within the caller's transaction, if any). */
export function ensureValueIndex(db: Database.Database, slug: string): void {
  db.exec(`CREATE INDEX IF NOT EXISTS "${valueIndexName(slug)}"
    ON records (bloc_id, ${valueSql(slug, "")}) WHERE ${indexedTerm(slug, "")}`);
}

/**
 * Creates every missing value index, one per slug any bloc has: what an upgrade runs,
 * and what a bulk load that dropped them (to load faster) runs after loading, since an
 * index built over loaded rows is built set-based (sorted once).
 */
export function ensureValueIndexes(db: Database.Database): void {
  const slugs = db.prepare("SELECT DISTINCT slug FROM fields").pluck().all() as string[];
  for (const slug of slugs) ensureValueIndex(db, slug);
}

/** The indexes field lookups had before every field got one (only some fields had them, not partial). */
export function dropOldValueIndexes(db: Database.Database): void {
  const names = db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'records' AND name GLOB 'records_value_*'")
    .pluck().all() as string[];
  for (const name of names) db.exec(`DROP INDEX "${name.replace(/"/g, '""')}"`);
}

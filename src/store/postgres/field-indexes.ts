import crypto from "node:crypto";
import { lockUntilCommit, type Db } from "./driver.js";
import { fieldHead, fieldSql, indexedTerm, literal } from "./filters.js";
import { FIELD_HEAD, headTail } from "./key-heads.js";

/**
 * Every field is searchable by value without an admin marking it (issue 10): each field
 * slug has one partial expression index, shared by every bloc (slugs are field_1,
 * field_2, … in each bloc), on (bloc_id, head, tail) of the non-empty values (schema.ts:
 * a value is never a raw index key, since it can be far larger than an entry may be).
 * Partial, so that a record costs an entry only in the indexes of the fields it holds:
 * a bloc with 100 fields gives `records` 100 indexes, a record of a 10-field bloc is
 * entered in 10. Queries compare head and tail, then the value, and carry the index's
 * condition (filters.ts: fieldEquals, fieldIn); the head, in byte order, also serves
 * autogenerate's ordered prefix reads.
 */

/** PostgreSQL names are at most 63 bytes and a slug up to 64 characters: the name carries a hash of it. */
export function indexName(slug: string): string {
  return `records_by_value_${crypto.createHash("md5").update(slug).digest("hex")}`;
}

/** The name of a slug's statistics on its value (its name carries a hash of the slug, as the index's does). */
function statisticsName(slug: string): string {
  return `records_value_stats_${crypto.createHash("md5").update(slug).digest("hex")}`;
}

/**
 * Statistics on a field's value: without them PostgreSQL guesses that a value any profile
 * filter or search names is held by 0.5% of the records, and reads a profile-filtered
 * reader's newest records by sorting all of theirs instead of walking the time index.
 * Gathered by ANALYZE, as every other statistic.
 */
export function statisticsSql(slug: string): string {
  return `CREATE STATISTICS IF NOT EXISTS ${statisticsName(slug)} ON ${fieldSql(slug, "")} FROM records`;
}

/** The statement creating a slug's value index, if missing. */
function createSql(slug: string): string {
  const [, tail] = headTail(fieldSql(slug, ""), FIELD_HEAD);
  return `CREATE INDEX IF NOT EXISTS ${indexName(slug)} ON records (bloc_id, (${fieldHead(slug, "")}), ${tail})
    WHERE ${indexedTerm(slug, "")}`;
}

/**
 * Creates the field's index if it has none, inside the caller's transaction (it
 * commits with the field).
 *
 * Building it holds a lock on `records` that stops every insert until the transaction
 * ends, so first, in this order: the bloc's lock, which the domain may ask for next
 * (rebuilding counters): waiting for it while holding `records` would deadlock with a
 * writer of the bloc waiting for `records`; then a lock on the index's name, so that
 * two processes adding the same slug create it one after the other, the second
 * finding it there. Only a slug no bloc had before builds one (a bloc's field_12 when
 * no bloc had 12 fields): the others find theirs.
 */
export async function ensureFieldIndex(db: Db, blocId: string, field: { readonly slug: string }): Promise<void> {
  const name = indexName(field.slug);
  const [exists] = await db.run<{ name: string | null }>("SELECT to_regclass($1::text)::text AS name", [name]);
  if (exists?.name) return;
  await lockUntilCommit(db, "bloc", blocId);
  await lockUntilCommit(db, "ddl", name);
  await db.run(createSql(field.slug));
  await db.run(statisticsSql(field.slug));
}

/**
 * A PL/pgSQL statement running `statement` for every slug any bloc has: the statement is
 * made for a marker slug and turned into a format() template, so that an upgrade's step
 * runs the very text run-time code does. `prefix` is what the object's name starts with
 * before the slug's md5.
 */
function forEverySlug(statement: (slug: string) => string, name: (slug: string) => string, prefix: string): string {
  const marker = "\u0001slug\u0001";
  const template = statement(marker).replace(name(marker), "%I").split(literal(marker)).join("%L");
  return `FOR slug IN SELECT DISTINCT f.slug FROM fields f ORDER BY 1 LOOP
      EXECUTE format(${literal(template)}, '${prefix}' || md5(slug), ${Array(template.split("%L").length - 1).fill("slug").join(", ")});
    END LOOP;`;
}

/** SQL (a DO block) creating the statistics of every slug's value that has none: an upgrade's step. */
export function valueStatisticsMigration(): string {
  return `
  DO $$
  DECLARE
    slug text;
  BEGIN
    ${forEverySlug(statisticsSql, statisticsName, "records_value_stats_")}
  END $$;`;
}

/**
 * SQL (a DO block) that drops the field indexes of before (only some fields had one,
 * not partial) and creates every slug's value index: the upgrade's step. It is made
 * from createSql itself, so that the indexes it builds are the ones queries are written for.
 */
export function valueIndexesMigration(): string {
  return `
  DO $$
  DECLARE
    old text;
    slug text;
  BEGIN
    FOR old IN SELECT indexname FROM pg_indexes
      WHERE schemaname = current_schema() AND tablename = 'records' AND indexname LIKE 'records\\_field\\_%'
    LOOP
      EXECUTE format('DROP INDEX %I', old);
    END LOOP;
    ${forEverySlug(createSql, indexName, "records_by_value_")}
  END $$;`;
}

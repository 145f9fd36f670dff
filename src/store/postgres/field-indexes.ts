import crypto from "node:crypto";
import type { Field } from "../../domain/model.js";
import { lockUntilCommit, type Db } from "./driver.js";
import { fieldHead, fieldSql } from "./filters.js";
import { FIELD_HEAD, headTail } from "./schema.js";

/**
 * Fields looked up by value (unique checks, autogenerate, profile filters, searches on
 * `indexed` fields) get an expression index on (bloc_id, head, tail) of the value
 * (schema.ts: a value is never a raw index key, since it can be far larger than an
 * entry may be). Queries compare head and tail, then the value (filters.ts:
 * fieldEquals); the head, in byte order, also serves autogenerate's ordered prefix
 * reads. One index per slug serves every bloc.
 */
export function needsIndex(field: Pick<Field, "indexed" | "unique" | "applyProfileFilter" | "type">): boolean {
  return field.indexed || field.unique || field.applyProfileFilter || field.type === "autogenerate";
}

/** PostgreSQL names are at most 63 bytes and a slug up to 64 characters: the name carries a hash of it. */
export function indexName(slug: string): string {
  return `records_field_${crypto.createHash("md5").update(slug).digest("hex")}`;
}

/**
 * Creates the field's index if it needs one and has none, inside the caller's
 * transaction (it commits with the field).
 *
 * Building it holds a lock on `records` that stops every insert until the transaction
 * ends, so first, in this order: the bloc's lock, which the domain may ask for next
 * (rebuilding counters): waiting for it while holding `records` would deadlock with a
 * writer of the bloc waiting for `records`; then a lock on the index's name, so that
 * two processes adding the same slug create it one after the other, the second
 * finding it there.
 */
export async function ensureFieldIndex(
  db: Db, blocId: string, field: Pick<Field, "slug" | "indexed" | "unique" | "applyProfileFilter" | "type">,
): Promise<void> {
  if (!needsIndex(field)) return;
  const name = indexName(field.slug);
  const [exists] = await db.run<{ name: string | null }>("SELECT to_regclass($1::text)::text AS name", [name]);
  if (exists?.name) return;
  await lockUntilCommit(db, "bloc", blocId);
  await lockUntilCommit(db, "ddl", name);
  const [, tail] = headTail(fieldSql(field.slug, ""), FIELD_HEAD);
  await db.run(`CREATE INDEX IF NOT EXISTS ${name} ON records (bloc_id, (${fieldHead(field.slug, "")}), ${tail})`);
}

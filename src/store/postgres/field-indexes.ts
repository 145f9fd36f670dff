import crypto from "node:crypto";
import type { Field } from "../../domain/model.js";
import { LOCK, type Db } from "./driver.js";
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
 * transaction (it commits with the field). A transaction lock on the index's name makes
 * two processes adding the same slug at once create it one after the other, the second
 * finding it there, instead of both racing to create it.
 */
export async function ensureFieldIndex(db: Db, field: Pick<Field, "slug" | "indexed" | "unique" | "applyProfileFilter" | "type">): Promise<void> {
  if (!needsIndex(field)) return;
  const name = indexName(field.slug);
  await db.run("SELECT pg_advisory_xact_lock($1::integer, hashtext($2::text))", [LOCK.ddl, name]);
  const [, tail] = headTail(fieldSql(field.slug, ""), FIELD_HEAD);
  await db.run(`CREATE INDEX IF NOT EXISTS ${name} ON records (bloc_id, (${fieldHead(field.slug, "")}), ${tail})`);
}

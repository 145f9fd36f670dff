import type { SequenceTemplate } from "../../domain/autogenerate.js";
import type { RecordFilter } from "../../domain/model.js";
import type { NewFile, NewRecord } from "../../domain/ports/store.js";
import { lockUntilCommit, type Db, type Param, type TxDb } from "./driver.js";
import { Params, whereSql } from "./filters.js";
import { drivingField } from "./value-driver.js";

/*
 * Record writes, inside a unit's transaction. The rules (unique values, autogenerate
 * numbering, scan limits, counter changes) are checked above the engines, under the
 * bloc's lock; these only persist.
 */

/**
 * Values travel as two text arrays (slugs, values) and become the JSONB object in SQL:
 * JSON text would carry a lone surrogate as an escape that jsonb refuses, where a text
 * parameter carries it as U+FFFD, as SQLite stores it.
 */
function objectParams(values: Readonly<Record<string, string>>): [string[], string[]] {
  const entries = Object.entries(values);
  return [entries.map(([slug]) => slug), entries.map(([, value]) => value)];
}

const RECORD_COLUMNS = "bloc_id, created_at, user_id, submitted_status, job_id, data";
const RECORD_VALUES = "$1::text, $2::text, $3::text, $4::integer, $5::text, jsonb_object($6::text[], $7::text[])";

/**
 * In a group commit of several units the record's ID is taken ahead (db.recordId) and the
 * INSERT sent without waiting, so the next unit starts at once; alone, it waits.
 */
export async function insertRecord(db: TxDb, record: NewRecord): Promise<number> {
  const params: Param[] = [record.blocId, record.createdAt, record.userId, record.submittedStatus, record.jobId, ...objectParams(record.values)];
  if (db.pipelining) {
    const id = await db.recordId();
    db.ahead(`INSERT INTO records (id, ${RECORD_COLUMNS}) VALUES ($8::bigint, ${RECORD_VALUES})`, [...params, id]);
    return id;
  }
  const [row] = await db.run<{ id: number }>(`INSERT INTO records (${RECORD_COLUMNS}) VALUES (${RECORD_VALUES}) RETURNING id`, params);
  return row!.id;
}

/** Serialises everything that decides whether some content is in use (content.ts). */
export async function lockContent(db: Db, sha256: string): Promise<void> {
  await lockUntilCommit(db, "content", sha256);
}

export async function insertFile(db: Db, file: NewFile, blocId: string, recordId: number, createdAt: string): Promise<void> {
  await lockContent(db, file.sha256);
  await db.run(`INSERT INTO files (ref, bloc_id, record_id, slug, sha256, name, type, size, created_at)
    VALUES ($1::text, $2::text, $3::bigint, $4::text, $5::text, $6::text, $7::text, $8::bigint, $9::text)`,
  [file.ref, blocId, recordId, file.slug, file.sha256, file.name, file.type, file.size, createdAt]);
  await db.run("DELETE FROM content_holds WHERE id = $1::text", [file.hold]);
}

/** Merges `fields` into every selected record (jsonb ||: given keys replaced, others kept); IDs ascending. */
export async function updateValues(
  db: Db, filter: RecordFilter, fields: Readonly<Record<string, string>>, status: number | undefined,
): Promise<number[]> {
  const params = new Params([...objectParams(fields), status ?? null]);
  const driver = await drivingField(db, filter);
  const rows = await db.run<{ id: number }>(`
    UPDATE records AS r SET data = r.data || jsonb_object($1::text[], $2::text[]),
      submitted_status = COALESCE($3::integer, r.submitted_status)
    WHERE ${whereSql(filter, params, driver)} RETURNING r.id`, params.values, params.options);
  return rows.map((row) => row.id).sort((a, b) => a - b);
}

export async function saveSequence(db: Db, blocId: string, slug: string, t: SequenceTemplate, last: number): Promise<void> {
  await db.run(`
    INSERT INTO sequences AS s (bloc_id, slug, grp, prefix, suffix, last)
    VALUES ($1::text, $2::text, $3::text, $4::text, $5::text, $6::bigint)
    ON CONFLICT (bloc_id, slug, grp_head, grp_tail, prefix_head, prefix_tail, suffix_head, suffix_tail) DO UPDATE SET last = GREATEST(s.last, excluded.last)`,
  [blocId, slug, t.group, t.prefix, t.suffix, last]);
}

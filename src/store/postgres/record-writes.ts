import type { SequenceTemplate } from "../../domain/autogenerate.js";
import type { RecordFilter } from "../../domain/model.js";
import type { NewFile, NewRecord } from "../../domain/ports/store.js";
import { lockUntilCommit, type AheadWrite, type Db, type Param, type TxDb } from "./driver.js";
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

/** A record to insert with its ID taken ahead: its columns as they were when it was written, its values as two arrays. */
interface HeldRecord {
  readonly id: number;
  readonly columns: readonly [string, string, string, number, string | null];
  readonly slugs: readonly string[];
  readonly texts: readonly string[];
}

/**
 * Records whose IDs were taken ahead, any number in one statement: their values' slugs and
 * texts travel as two flat arrays, each record's from its `first` to its `last` element.
 */
const INSERT_RECORDS: AheadWrite<HeldRecord> = {
  key: () => "",
  statement(rows) {
    const firsts: number[] = [];
    const lasts: number[] = [];
    let last = 0;
    for (const row of rows) {
      firsts.push(last + 1);
      last += row.slugs.length;
      lasts.push(last);
    }
    const column = <I extends 0 | 1 | 2 | 3 | 4>(index: I): HeldRecord["columns"][I][] => rows.map((row) => row.columns[index]);
    return {
      text: `INSERT INTO records (id, ${RECORD_COLUMNS})
        SELECT r.id, r.bloc_id, r.created_at, r.user_id, r.submitted_status, r.job_id,
          jsonb_object(($9::text[])[r.first:r.last], ($10::text[])[r.first:r.last])
        FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::integer[], $6::text[], $7::integer[], $8::integer[])
          AS r(id, bloc_id, created_at, user_id, submitted_status, job_id, first, last)`,
      params: [rows.map((row) => row.id), column(0), column(1), column(2), column(3), column(4), firsts, lasts,
        rows.flatMap((row) => row.slugs), rows.flatMap((row) => row.texts)],
    };
  },
};

/**
 * In a group commit of several units the record's ID is taken ahead (db.recordId) and the
 * record held, to be inserted with the other units' in one statement, so the next unit
 * starts at once; alone, it waits.
 */
export async function insertRecord(db: TxDb, record: NewRecord): Promise<number> {
  const columns = [record.blocId, record.createdAt, record.userId, record.submittedStatus, record.jobId] as const;
  const [slugs, texts] = objectParams(record.values);
  if (db.pipelining) {
    const id = await db.recordId();
    db.ahead(INSERT_RECORDS, { id, columns, slugs, texts });
    return id;
  }
  const params: Param[] = [...columns, slugs, texts];
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

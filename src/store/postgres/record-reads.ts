import type { SequenceTemplate } from "../../domain/autogenerate.js";
import type { RecordFilter, StoredFile, StoredRecord } from "../../domain/model.js";
import type { ProjectedRow, RowColumn, RowPage, ValueCounts, ValueLookup } from "../store.js";
import type { Db } from "./driver.js";
import { fieldEquals, fieldSql, orderSql, Params, whereSql } from "./filters.js";
import { SEQUENCE_HEAD, headTail } from "./schema.js";

/*
 * Plain queries over the records: which of them answers what, and when the counters
 * answer instead, is decided above the engines (domain/record-queries.ts).
 */

interface RecordRow {
  id: number;
  created_at: string;
  user_id: string;
  submitted_status: number;
  job_id: string | null;
  /** JSONB, parsed by the driver. */
  data: Record<string, string>;
}

const RECORD_COLUMNS = "r.id, r.created_at, r.user_id, r.submitted_status, r.job_id, r.data";

/** Values are read in batches of this many records, so that no read holds a bloc's values in memory at once. */
const BATCH = 1000;

export async function countRecords(db: Db, filter: RecordFilter): Promise<number> {
  const params = new Params();
  const [row] = await db.run<{ n: number }>(`SELECT count(*) AS n FROM records r WHERE ${whereSql(filter, params)}`, params.values);
  return row!.n;
}

/** A page by offset, or strictly after a position and then by offset, in the page's order. */
async function page(db: Db, filter: RecordFilter, page: RowPage): Promise<RecordRow[]> {
  const params = new Params();
  let where = whereSql(filter, params);
  if (page.after) {
    const position = `(${params.add(page.after.createdAt)}::text, ${params.add(page.after.id)}::bigint)`;
    where += page.order === "oldest" ? ` AND (r.created_at, r.id) > ${position}` : ` AND (r.created_at, r.id) < ${position}`;
  }
  const limit = params.add(page.limit);
  const offset = params.add(page.offset);
  return db.run<RecordRow>(
    `SELECT ${RECORD_COLUMNS} FROM records r WHERE ${where} ORDER BY ${orderSql(page.order)} LIMIT ${limit}::bigint OFFSET ${offset}::bigint`,
    params.values);
}

function toRecord(row: RecordRow): StoredRecord {
  return {
    id: row.id, createdAt: row.created_at, userId: row.user_id, submittedStatus: row.submitted_status,
    jobId: row.job_id, values: row.data,
  };
}

export async function listRecords(db: Db, filter: RecordFilter, rowPage: RowPage): Promise<StoredRecord[]> {
  return (await page(db, filter, rowPage)).map(toRecord);
}

function columnValue(row: RecordRow, column: RowColumn): string {
  switch (column.source) {
    case "created_at": return row.created_at;
    case "user_id": return row.user_id;
    case "time_stamp": return row.created_at.slice(11);
    case "date_stamp": return row.created_at.slice(0, 10);
    // Own keys only: a slug such as "constructor" must not find Object's.
    default: return Object.hasOwn(row.data, column.source.field) ? row.data[column.source.field]! : "";
  }
}

/**
 * Report rows as JSON object texts, built here rather than in SQL: jsonb does not keep
 * key order, and the keys must follow the columns. Written out pair by pair, since a
 * JavaScript object would move integer-like keys first.
 */
export async function listRows(db: Db, filter: RecordFilter, rowPage: RowPage, columns: readonly RowColumn[]): Promise<ProjectedRow[]> {
  const keys = columns.map((column) => JSON.stringify(column.key));
  return (await page(db, filter, rowPage)).map((row) => ({
    json: `{${columns.map((column, i) => `${keys[i]}:${JSON.stringify(columnValue(row, column))}`).join(",")}}`,
    createdAt: row.created_at,
    id: row.id,
  }));
}

/** Value counts per field, most frequent first, ties by value in byte (= code-point) order; `limit` per field, 0 for all. */
export async function tallyValues(db: Db, filter: RecordFilter, slugs: readonly string[], limit: number): Promise<ValueCounts> {
  const params = new Params([[...slugs], limit]);
  const rows = await db.run<{ key: string; value: string; n: number }>(`
    WITH counted AS (
      SELECT e.key, e.value, count(*) AS n
      FROM records r CROSS JOIN LATERAL jsonb_each_text(r.data) AS e(key, value)
      WHERE ${whereSql(filter, params)} AND e.key = ANY($1::text[]) AND e.value <> ''
      GROUP BY e.key, e.value)
    SELECT key, value, n FROM (
      SELECT key, value, n, row_number() OVER (PARTITION BY key ORDER BY n DESC, value COLLATE "C") AS rank FROM counted) ranked
    WHERE $2::bigint = 0 OR rank <= $2::bigint
    ORDER BY key, rank`, params.values);
  // Maps until the end, so that a value such as "__proto__" is a value like any other.
  const counts = new Map<string, [string, number][]>(slugs.map((slug) => [slug, []]));
  for (const row of rows) counts.get(row.key)?.push([row.value, row.n]);
  return Object.fromEntries([...counts].map(([slug, ranked]) => [slug, Object.fromEntries(ranked)]));
}

/** The group part of a lookup: a record without the group field holds "" there. */
function groupSql(group: { slug: string } | undefined, params: Params, value: string | undefined, alias = "r"): string {
  return group === undefined ? "" : ` AND COALESCE(${fieldSql(group.slug, alias)}, '') = ${params.add(value ?? "")}::text`;
}

export async function holders(db: Db, blocId: string, lookup: ValueLookup, limit: number): Promise<number[]> {
  const params = new Params([blocId]);
  const value = params.add(lookup.value);
  const group = groupSql(lookup.group, params, lookup.group?.value);
  const rows = await db.run<{ id: number }>(`
    SELECT r.id FROM records r WHERE r.bloc_id = $1::text AND ${fieldEquals(lookup.slug, value)}${group}
    ORDER BY r.id LIMIT ${params.add(limit)}::bigint`, params.values);
  return rows.map((row) => row.id);
}

/**
 * Values of `slug` starting with the template's prefix (within its group). The bloc's
 * records are walked in position order, a window of BATCH at a time along the
 * (bloc_id, created_at, id) index, whatever they hold: a query whose LIMIT counted only
 * matching records could make the planner scan the whole table for every batch. Each
 * window is a query of its own, so the caller may run other queries on the same
 * transaction between batches.
 */
export async function* valuesWithPrefix(db: Db, blocId: string, slug: string, template: SequenceTemplate): AsyncIterable<string> {
  const params = new Params([blocId, template.prefix, "", 0, BATCH]);
  const group = groupSql(template.groupBy === null ? undefined : { slug: template.groupBy }, params, template.group, "w");
  const sql = `
    SELECT w.created_at, w.id, CASE WHEN starts_with(w.value, $2::text)${group} THEN w.value END AS value
    FROM (SELECT r.created_at, r.id, r.data, ${fieldSql(slug)} AS value FROM records r
      WHERE r.bloc_id = $1::text AND (r.created_at, r.id) > ($3::text, $4::bigint)
      ORDER BY r.created_at, r.id LIMIT $5::bigint) AS w
    ORDER BY w.created_at, w.id`;
  const values = [...params.values];
  for (;;) {
    const rows = await db.run<{ created_at: string; id: number; value: string | null }>(sql, values);
    for (const row of rows) if (row.value !== null) yield row.value;
    if (rows.length < BATCH) return;
    const last = rows[rows.length - 1]!;
    values[2] = last.created_at;
    values[3] = last.id;
  }
}

export async function lastSequence(db: Db, blocId: string, slug: string, t: SequenceTemplate): Promise<number | undefined> {
  const key = (placeholder: string): string => {
    const [head, tail] = headTail(`${placeholder}::text`, SEQUENCE_HEAD);
    return `${head}, ${tail}`;
  };
  const [row] = await db.run<{ last: number }>(`
    SELECT last FROM sequences WHERE bloc_id = $1::text AND slug = $2::text
      AND (grp_head, grp_tail, prefix_head, prefix_tail, suffix_head, suffix_tail) = (${key("$3")}, ${key("$4")}, ${key("$5")})`,
  [blocId, slug, t.group, t.prefix, t.suffix]);
  return row?.last;
}

export async function findFile(db: Db, ref: string): Promise<StoredFile | undefined> {
  const [row] = await db.run<{ ref: string; bloc_id: string; record_id: number; slug: string; sha256: string; name: string; type: string; size: number }>(
    "SELECT ref, bloc_id, record_id, slug, sha256, name, type, size FROM files WHERE ref = $1::text", [ref]);
  return row && {
    ref: row.ref, blocId: row.bloc_id, recordId: row.record_id, slug: row.slug,
    sha256: row.sha256, name: row.name, type: row.type, size: row.size,
  };
}

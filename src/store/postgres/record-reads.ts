import type { SequenceTemplate } from "../../domain/autogenerate.js";
import type { RecordFilter, StoredFile, StoredRecord } from "../../domain/model.js";
import { LISTED_VALUE_MAX } from "../../domain/field-counts.js";
import type { ProjectedRow, RowColumn, RowPage, ValueCount, ValueCounts, ValueLookup } from "../../domain/ports/store.js";
import { storable, type Db } from "./driver.js";
import { fieldEquals, fieldHead, fieldSql, indexedTerm, orderSql, Params, whereSql } from "./filters.js";
import { FIELD_HEAD, SEQUENCE_HEAD, headTail } from "./key-heads.js";
import { drivingField } from "./value-driver.js";

/*
 * Plain queries over the records: which of them answers what, and when the counters
 * answer instead, is decided above the engines (domain/record-queries.ts).
 */

export interface RecordRow {
  id: number;
  created_at: string;
  user_id: string;
  submitted_status: number;
  job_id: string | null;
  /** JSONB, parsed by the driver. */
  data: Record<string, string>;
}

export const RECORD_COLUMNS = "r.id, r.created_at, r.user_id, r.submitted_status, r.job_id, r.data";

export async function countRecords(db: Db, filter: RecordFilter): Promise<number> {
  const params = new Params();
  const where = whereSql(filter, params, await drivingField(db, filter));
  const [row] = await db.run<{ n: number }>(`SELECT count(*) AS n FROM records r WHERE ${where}`, params.values, params.options);
  return row!.n;
}

/**
 * A page by offset, or strictly after a position and then by offset, in the page's
 * order. With a byte budget, the page's positions and sizes are found first, and only
 * the records within the budget (the first always) are read: the others' data never
 * leaves the database.
 */
async function page(db: Db, filter: RecordFilter, page: RowPage): Promise<RecordRow[]> {
  const params = new Params();
  const driver = await drivingField(db, filter, page.offset + page.limit);
  let where = whereSql(filter, params, driver);
  if (page.after) {
    const position = `(${params.add(page.after.createdAt)}::text, ${params.add(page.after.id)}::bigint)`;
    where += page.order === "oldest" ? ` AND (r.created_at, r.id) > ${position}` : ` AND (r.created_at, r.id) < ${position}`;
  }
  const limit = params.add(page.limit);
  const offset = params.add(page.offset);
  const order = `ORDER BY ${orderSql(page.order, "r", driver !== undefined)} LIMIT ${limit}::bigint OFFSET ${offset}::bigint`;
  if (page.maxBytes === undefined) {
    return db.run<RecordRow>(`SELECT ${RECORD_COLUMNS} FROM records r WHERE ${where} ${order}`, params.values, params.options);
  }
  const budget = params.add(page.maxBytes);
  return db.run<RecordRow>(`
    WITH sized AS (
      SELECT r.id, r.created_at, octet_length(r.data::text) AS size FROM records r WHERE ${where} ${order}),
    running AS (
      SELECT s.id, row_number() OVER w AS k, sum(s.size) OVER w AS upto FROM sized s
      WINDOW w AS (ORDER BY ${orderSql(page.order, "s")} ROWS UNBOUNDED PRECEDING))
    SELECT ${RECORD_COLUMNS} FROM running w JOIN records r ON r.id = w.id
    WHERE w.k = 1 OR w.upto <= ${budget}::bigint
    ORDER BY ${orderSql(page.order)}`, params.values, params.options);
}

export function toRecord(row: RecordRow): StoredRecord {
  return {
    id: row.id, createdAt: row.created_at, userId: row.user_id, submittedStatus: row.submitted_status,
    jobId: row.job_id, values: row.data,
  };
}

/** Every record the filter selects, unordered: a value index alone may find them. */
export async function findRecords(db: Db, filter: RecordFilter): Promise<StoredRecord[]> {
  const params = new Params();
  const where = whereSql(filter, params, await drivingField(db, filter));
  return (await db.run<RecordRow>(`SELECT ${RECORD_COLUMNS} FROM records r WHERE ${where}`, params.values, params.options))
    .map(toRecord);
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

/**
 * Value counts per field, most frequent first, ties by value in byte (= code-point)
 * order; `limit` per field, or 0 for all of them unranked; a long value's text stays in
 * the database.
 */
export async function tallyValues(db: Db, filter: RecordFilter, slugs: readonly string[], limit: number): Promise<ValueCounts> {
  const params = new Params([[...slugs]]);
  const driver = await drivingField(db, filter);
  const listed = `CASE WHEN length(value) <= ${LISTED_VALUE_MAX} THEN value END AS value`;
  const counted = `
    WITH counted AS (
      SELECT e.key, e.value, count(*) AS n
      FROM records r CROSS JOIN LATERAL jsonb_each_text(r.data) AS e(key, value)
      WHERE ${whereSql(filter, params, driver)} AND e.key = ANY($1::text[]) AND e.value <> ''
      GROUP BY e.key, e.value)`;
  // All of them unranked: the ranking's sort was a third of the statement for the 13,000 values of a shift's 3,333 records.
  const rows = await db.run<{ key: string; value: string | null; n: number }>(limit === 0
    ? `${counted} SELECT key, ${listed}, n FROM counted`
    : `${counted}
    SELECT key, ${listed}, n FROM (
      SELECT key, value, n, row_number() OVER (PARTITION BY key ORDER BY n DESC, value COLLATE "C") AS rank FROM counted) ranked
    WHERE rank <= ${params.add(limit)}::bigint
    ORDER BY key, rank`, params.values, params.options);
  // Maps, so that a value or slug such as "__proto__" is a key like any other.
  const counts = new Map<string, ValueCount[]>(slugs.map((slug) => [slug, []]));
  for (const row of rows) counts.get(row.key)?.push([row.value, row.n]);
  return counts;
}

/** The group part of a lookup: a record without the group field holds "" there. */
function groupSql(group: { slug: string } | undefined, params: Params, value: string | undefined, alias = "r"): string {
  return group === undefined ? "" : ` AND COALESCE(${fieldSql(group.slug, alias)}, '') = ${params.add(value ?? "")}::text`;
}

export async function holders(db: Db, blocId: string, lookup: ValueLookup, limit: number): Promise<number[]> {
  if (!storable(lookup.value) || !storable(lookup.group?.value ?? "")) return [];
  const params = new Params([blocId]);
  const value = params.add(lookup.value);
  const group = groupSql(lookup.group, params, lookup.group?.value);
  const rows = await db.run<{ id: number }>(`
    SELECT r.id FROM records r WHERE r.bloc_id = $1::text AND ${fieldEquals(lookup.slug, value, lookup.value !== "")}${group}
    ORDER BY r.id LIMIT ${params.add(limit)}::bigint`, params.values, params.options);
  return rows.map((row) => row.id);
}

/**
 * The least text greater than every text starting with `prefix`, in code-point order
 * (its last code point moved up by one), or null when there is none or it cannot be
 * told (a lone surrogate, which reaches PostgreSQL as U+FFFD).
 */
export function prefixEnd(prefix: string): string | null {
  if (/\p{Surrogate}/u.test(prefix)) return null;
  const points = Array.from(prefix, (c) => c.codePointAt(0)!);
  while (points.length > 0) {
    const last = points.pop()!;
    if (last < 0x10ffff) {
      points.push(last === 0xd7ff ? 0xe000 : last + 1);
      return String.fromCodePoint(...points);
    }
  }
  return null;
}

/**
 * Values of `slug` starting with the template's prefix (within its group), in byte
 * (= code-point) order, after `after`, at most `limit`: read in order off the field's
 * index (autogenerate fields always have one). The conditions are put on the value's
 * head wherever that is exact (prefix and `after` no longer than the head), so that the
 * planner sees how many records the range holds and walks the index in order rather
 * than sorting the whole bloc for each batch.
 */
export async function valuesWithPrefix(
  db: Db, blocId: string, slug: string, template: SequenceTemplate, after: string | null, limit: number,
): Promise<string[]> {
  if (![template.prefix, template.group].every(storable)) return [];
  const head = fieldHead(slug);
  const value = `${fieldSql(slug)} COLLATE "C"`;
  const params = new Params([blocId, limit]);
  const parts = ["r.bloc_id = $1::text"];
  const prefix = params.add(template.prefix);
  parts.push(`${head} >= left(${prefix}::text, ${FIELD_HEAD})`);
  const end = prefixEnd(template.prefix);
  if (end !== null) parts.push(`${head} < ${params.add(end)}::text`);
  // Values starting with a prefix that fits in the head are exactly that range of heads.
  if (end === null || Array.from(template.prefix).length > FIELD_HEAD) parts.push(`starts_with(${fieldSql(slug)}, ${prefix}::text)`);
  const from = after ?? "";
  const position = params.add(from);
  // Past a text shorter than the head is past it in the head; a longer one may share its head.
  parts.push(Array.from(from).length < FIELD_HEAD
    ? `${head} > ${position}::text`
    : `(${head} > left(${position}::text, ${FIELD_HEAD}) OR (${head} = left(${position}::text, ${FIELD_HEAD}) AND ${value} > ${position}::text))`);
  // Values past `after` (at least "") are non-empty: the index's condition holds, and lets the slug's value index serve.
  parts.push(indexedTerm(slug));
  const group = groupSql(template.groupBy === null ? undefined : { slug: template.groupBy }, params, template.group);
  const rows = await db.run<{ value: string }>(`
    SELECT ${fieldSql(slug)} AS value FROM records r WHERE ${parts.join(" AND ")}${group}
    ORDER BY ${head}, ${value} LIMIT $2::bigint`, params.values, params.options);
  return rows.map((row) => row.value);
}

export async function lastSequence(db: Db, blocId: string, slug: string, t: SequenceTemplate): Promise<number | undefined> {
  if (![t.group, t.prefix, t.suffix].every(storable)) return undefined;
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
  if (!storable(ref)) return undefined;
  const [row] = await db.run<{ ref: string; bloc_id: string; record_id: number; slug: string; sha256: string; name: string; type: string; size: number }>(
    "SELECT ref, bloc_id, record_id, slug, sha256, name, type, size FROM files WHERE ref = $1::text", [ref]);
  return row && {
    ref: row.ref, blocId: row.bloc_id, recordId: row.record_id, slug: row.slug,
    sha256: row.sha256, name: row.name, type: row.type, size: row.size,
  };
}

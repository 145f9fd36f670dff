import type { SequenceTemplate } from "../../domain/autogenerate.js";
import type { RecordFilter, StoredRecord } from "../../domain/model.js";
import crypto from "node:crypto";
import { tooLongToList } from "../../domain/field-counts.js";
import type { NewRecord, ProjectedRow, RowColumn, RowPage, ValueCount, ValueCounts, ValueLookup } from "../../domain/ports/store.js";
import { RECORDS, likePrefix, orderBy, sourceSql, whereClause, type Projection } from "./sql.js";
import { indexedTerm, valueSql } from "./value-indexes.js";
import { drivingField } from "./value-driver.js";
import { fieldPath, type Param, type Statements } from "./statements.js";

/** The index of a bloc's records by owner, then time (schema.ts). */
export const OWNER_TIME_INDEX = "records_by_bloc_user_time";

/**
 * Records in the SQLite engine: plain queries and writes, no rules. With their history
 * and their deleted copies (views.ts), Tx.records; locking a bloc is not needed here (a
 * write transaction holds the database's one write lock).
 */
export class SqliteRecords {
  constructor(private readonly sql: Statements) {}

  /** The filter's condition, driven by the value index the counters pick (value-plan.ts); `rows` for ordered reads. */
  private where(filter: RecordFilter, rows?: number): { sql: string; params: Param[]; driven: boolean } {
    const driver = drivingField(this.sql, filter, rows);
    return { ...whereClause(filter, driver), driven: driver !== undefined };
  }

  async countRecords(filter: RecordFilter): Promise<number> {
    const where = this.where(filter);
    return (this.sql.get(`SELECT COUNT(*) AS n FROM records r WHERE ${where.sql}`).get(...where.params) as { n: number }).n;
  }

  private select<T>(filter: RecordFilter, page: RowPage, projection: Projection<T>): T[] {
    const where = this.where(filter, page.offset + page.limit);
    // One owner's records in time order: SQLite, which keeps no statistics here, walks the
    // bloc's time index for them (both give the order) and reads every owner's records in
    // the range, twenty times as many rows for a bloc of twenty owners; the owner's index
    // reads only theirs.
    const from = filter.visibility?.ownerId !== undefined && !where.driven ? `records r INDEXED BY ${OWNER_TIME_INDEX}` : "records r";
    let query = `SELECT ${projection.columns} FROM ${from} WHERE ${where.sql}`;
    const params: Param[] = [...projection.params, ...where.params];
    if (page.after) {
      const position = where.driven ? "(+r.created_at, +r.id)" : "(r.created_at, r.id)";
      query += page.order === "oldest" ? ` AND ${position} > (?, ?)` : ` AND ${position} < (?, ?)`;
      params.push(page.after.createdAt, page.after.id);
    }
    const statement = this.sql.get(`${query} ORDER BY ${orderBy(page.order, where.driven)} LIMIT ? OFFSET ?`);
    if (page.maxBytes === undefined) {
      return (statement.all(...params, page.limit, page.offset) as Record<string, unknown>[]).map(projection.map);
    }
    // Row by row, so that no more than the budget (and the one record past it) is ever read.
    const results: T[] = [];
    let bytes = 0;
    for (const row of statement.iterate(...params, page.limit, page.offset) as Iterable<Record<string, unknown>>) {
      bytes += Buffer.byteLength(row[projection.sized] as string);
      if (bytes > page.maxBytes && results.length > 0) break;
      results.push(projection.map(row));
    }
    return results;
  }

  async listRecords(filter: RecordFilter, page: RowPage): Promise<StoredRecord[]> {
    return this.select(filter, page, RECORDS);
  }

  async findRecords(filter: RecordFilter): Promise<StoredRecord[]> {
    const where = this.where(filter);
    return (this.sql.get(`SELECT ${RECORDS.columns} FROM records r WHERE ${where.sql}`).all(...where.params) as Record<string, unknown>[])
      .map(RECORDS.map);
  }

  /** Report rows as JSON object texts built by SQLite: no record is parsed or re-serialised in JavaScript. */
  async listRows(filter: RecordFilter, page: RowPage, columns: readonly RowColumn[]): Promise<ProjectedRow[]> {
    const pairs = columns.flatMap((column) => [column.key, sourceSql(column)]);
    // SQLite functions take at most 127 arguments: build the object in slices and merge them in order.
    const slices: string[] = [];
    const params: Param[] = [];
    for (let i = 0; i < pairs.length; i += 100) {
      const slice = pairs.slice(i, i + 100);
      slices.push(`json_object(${slice.map((_, k) => (k % 2 === 0 ? "?" : slice[k]!)).join(", ")})`);
      params.push(...slice.filter((_, k) => k % 2 === 0));
    }
    const json = slices.length === 0 ? "'{}'" : slices.reduce((merged, slice) => `json_patch(${merged}, ${slice})`);
    return this.select(filter, page, {
      columns: `${json} AS json, r.created_at, r.id`, params, sized: "json",
      map: (row) => ({ json: row.json as string, createdAt: row.created_at as string, id: row.id as number }),
    });
  }

  async tallyValues(filter: RecordFilter, slugs: readonly string[], limit: number): Promise<ValueCounts> {
    // Counted here rather than with json_each in SQL: parsing each record once in
    // JavaScript is about twice as fast. Maps, not objects, so that "__proto__" is a value like any other.
    // A long value is counted under a digest of itself (after U+0000, which no stored value
    // holds), so that memory holds its digest, not its text, and it comes back as null.
    const counts = new Map<string, Map<string, number>>(slugs.map((slug) => [slug, new Map()]));
    const where = this.where(filter);
    for (const [data] of this.sql.get(`SELECT r.data FROM records r WHERE ${where.sql}`).raw().iterate(...where.params) as Iterable<[string]>) {
      const values = JSON.parse(data) as Record<string, string>;
      for (const slug in values) {
        const value = values[slug]!;
        const bucket = counts.get(slug);
        if (value === "" || !bucket) continue;
        const key = tooLongToList(value) ? `\u0000${crypto.createHash("sha256").update(value).digest("base64")}` : value;
        bucket.set(key, (bucket.get(key) ?? 0) + 1);
      }
    }
    return new Map([...counts].map(([slug, bucket]): [string, ValueCount[]] => {
      const all = [...bucket];
      const kept = limit > 0 ? all.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).slice(0, limit) : all;
      return [slug, kept.map(([value, n]): ValueCount => [value.startsWith("\u0000") ? null : value, n])];
    }));
  }

  async holders(blocId: string, lookup: ValueLookup, limit: number): Promise<number[]> {
    // The slug's value index serves the lookup of a non-empty value (its condition is added).
    let query = `SELECT r.id FROM records r WHERE r.bloc_id = ? AND ${valueSql(lookup.slug)} = ?`
      + (lookup.value === "" ? "" : ` AND ${indexedTerm(lookup.slug)}`);
    const params: Param[] = [blocId, lookup.value];
    if (lookup.group) {
      query += " AND COALESCE(json_extract(r.data, ?), '') = ?";
      params.push(fieldPath(lookup.group.slug), lookup.group.value);
    }
    return (this.sql.get(`${query} LIMIT ?`).all(...params, limit) as { id: number }[]).map((row) => row.id);
  }

  async lastSequence(blocId: string, slug: string, t: SequenceTemplate): Promise<number | undefined> {
    const row = this.sql.get("SELECT last FROM sequences WHERE bloc_id = ? AND slug = ? AND grp = ? AND prefix = ? AND suffix = ?")
      .get(blocId, slug, t.group, t.prefix, t.suffix) as { last: number } | undefined;
    return row?.last;
  }

  async valuesWithPrefix(blocId: string, slug: string, t: SequenceTemplate, after: string | null, limit: number): Promise<string[]> {
    // Values above `after` (at least "") are non-empty: the index's condition holds, and lets the slug's value index serve.
    const value = valueSql(slug);
    let query = `SELECT ${value} AS v FROM records r WHERE r.bloc_id = ? AND ${value} LIKE ? ESCAPE '\\' AND ${value} > ?
      AND ${indexedTerm(slug)}`;
    const params: Param[] = [blocId, likePrefix(t.prefix), after ?? ""];
    if (t.groupBy !== null) {
      query += " AND COALESCE(json_extract(r.data, ?), '') = ?";
      params.push(fieldPath(t.groupBy), t.group);
    }
    return (this.sql.get(`${query} ORDER BY v LIMIT ?`).all(...params, limit) as { v: string }[]).map((row) => row.v);
  }

  async insertRecord(record: NewRecord): Promise<number> {
    return (this.sql.get(`INSERT INTO records (bloc_id, created_at, user_id, submitted_status, job_id, data)
      VALUES (?, ?, ?, ?, ?, ?) RETURNING id`)
      .get(record.blocId, record.createdAt, record.userId, record.submittedStatus, record.jobId,
        JSON.stringify(record.values)) as { id: number }).id;
  }

  async updateValues(filter: RecordFilter, fields: Readonly<Record<string, string>>, status: number | undefined): Promise<number[]> {
    const where = this.where(filter);
    const rows = this.sql.get(`UPDATE records AS r SET data = json_patch(r.data, ?),
        submitted_status = COALESCE(?, r.submitted_status)
      WHERE ${where.sql} RETURNING id`)
      .all(JSON.stringify(fields), status ?? null, ...where.params) as { id: number }[];
    return rows.map((row) => row.id).sort((a, b) => a - b);
  }

  async saveSequence(blocId: string, slug: string, t: SequenceTemplate, last: number): Promise<void> {
    this.sql.get(`INSERT INTO sequences (bloc_id, slug, grp, prefix, suffix, last) VALUES (?, ?, ?, ?, ?, ?)
      ON CONFLICT (bloc_id, slug, grp, prefix, suffix) DO UPDATE SET last = MAX(last, excluded.last)`)
      .run(blocId, slug, t.group, t.prefix, t.suffix, last);
  }
}

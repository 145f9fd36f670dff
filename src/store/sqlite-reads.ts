import {
  type RecordCursor, type RecordFilter, type StoredFile, type StoredRecord, type Visibility,
} from "../domain/model.js";
import type { Page, ProjectedRow, RowColumn, RowPage, ScanCount, ValueCounts } from "./store.js";
import type { SqliteCounters } from "./sqlite-counters.js";
import { RECORDS, maxTime, minTime, orderBy, sourceSql, whereClause, type Projection } from "./sqlite-sql.js";
import type { Param, Statements } from "./sqlite-statements.js";

/**
 * Record reads of the SQLite engine: counts, pages, report rows and value counts, from
 * the counters wherever they can answer, from the records otherwise.
 */
export class SqliteReads {
  constructor(private readonly sql: Statements, private readonly counters: SqliteCounters) {}

  count(filter: RecordFilter): number {
    // One read transaction: the simplification and the query see the same snapshot.
    return this.sql.db.transaction(() => this.countNow(this.counters.simplify(filter)))();
  }

  private countNow(filter: RecordFilter): number {
    if (filter.visibility?.none) return 0;
    const segments = this.counters.segments(filter);
    if (segments) return this.days(filter, segments).reduce((sum, day) => sum + day.n, 0);
    return this.countRecords(filter);
  }

  /** Records per day from the counters, partial edge days counted from the records. */
  private days(filter: RecordFilter, segments: readonly string[]): { day: string; n: number }[] {
    return this.counters.days(filter, segments, (from, to) => this.countRecords({ ...filter, from, to }));
  }

  private countRecords(filter: RecordFilter): number {
    const where = whereClause(filter);
    return (this.sql.get(`SELECT COUNT(*) AS n FROM records r WHERE ${where.sql}`).get(...where.params) as { n: number }).n;
  }

  /** A page of records by offset (see `select` for how deep offsets are found). */
  list(filter: RecordFilter, page: Page): StoredRecord[] {
    // One read transaction: the simplification and the query see the same snapshot.
    return this.sql.db.transaction(() => this.select(this.counters.simplify(filter), page, undefined, RECORDS))();
  }

  /** Report rows as JSON object texts built by SQLite: no record is parsed or re-serialised in JavaScript. */
  rows(filter: RecordFilter, page: RowPage, columns: readonly RowColumn[]): ProjectedRow[] {
    const pairs = columns.flatMap((column) => [column.key, sourceSql(column)]);
    // SQLite functions take at most 127 arguments: build the object in slices and merge them in order.
    const slices: string[] = [];
    const params: Param[] = [];
    for (let i = 0; i < pairs.length; i += 100) {
      const slice = pairs.slice(i, i + 100);
      slices.push(`json_object(${slice.map((_, k) => (k % 2 === 0 ? "?" : slice[k]!)).join(", ")})`);
      params.push(...slice.filter((_, k) => k % 2 === 0));
    }
    const json = slices.reduce((merged, slice) => `json_patch(${merged}, ${slice})`);
    const projection: Projection<ProjectedRow> = {
      columns: `${slices.length === 0 ? "'{}'" : json} AS json, r.created_at, r.id`, params,
      map: (row) => ({ json: row.json as string, createdAt: row.created_at as string, id: row.id as number }),
    };
    return this.sql.db.transaction(() => this.select(this.counters.simplify(filter), page, page.after, projection))();
  }

  /**
   * A page of a filter by offset, or after a cursor. Where the counters cover the filter,
   * a deep offset becomes a seek: the per-day counts find the day the page starts in,
   * and only that day's records are skipped one by one.
   */
  private select<T>(filter: RecordFilter, page: Page, after: RecordCursor | undefined, projection: Projection<T>): T[] {
    let bounded = filter;
    let offset = page.offset;
    const segments = offset > 0 ? this.counters.segments(filter) : undefined;
    if (segments) {
      const days = this.days(filter, segments);
      if (page.order === "newest") days.reverse();
      const start = days.find(({ n }) => {
        if (offset < n) return true;
        offset -= n;
        return false;
      });
      if (!start) return [];
      bounded = page.order === "newest"
        ? { ...filter, to: minTime(filter.to, `${start.day} 23:59:59`) }
        : { ...filter, from: maxTime(filter.from, `${start.day} 00:00:00`) };
    }
    const where = whereClause(bounded);
    let query = `SELECT ${projection.columns} FROM records r WHERE ${where.sql}`;
    const params: Param[] = [...projection.params, ...where.params];
    if (after) {
      query += page.order === "oldest" ? " AND (r.created_at, r.id) > (?, ?)" : " AND (r.created_at, r.id) < (?, ?)";
      params.push(after.createdAt, after.id);
    }
    const rows = this.sql.get(`${query} ORDER BY ${orderBy(page.order)} LIMIT ? OFFSET ?`)
      .all(...params, page.limit, offset) as Record<string, unknown>[];
    return rows.map(projection.map);
  }

  /** Value counts per field: the `limit` most frequent values of each (all when 0). */
  countValues(filter: RecordFilter, slugs: readonly string[], limit: number): ValueCounts {
    // One read transaction: the simplification and the query see the same snapshot.
    return this.sql.db.transaction(() => this.countValuesNow(this.counters.simplify(filter), slugs, limit))();
  }

  private countValuesNow(filter: RecordFilter, slugs: readonly string[], limit: number): ValueCounts {
    if (filter.visibility?.none) return Object.fromEntries(slugs.map((slug) => [slug, {}]));
    const segments = filter.from === undefined && filter.to === undefined ? this.counters.segments(filter) : undefined;
    if (segments) return this.counters.values(filter.blocId, segments, slugs, limit);
    // Counted here rather than with json_each in SQL: parsing each record once in
    // JavaScript is about twice as fast. Maps, not objects, so that "__proto__" is a value like any other.
    const counts = new Map<string, Map<string, number>>(slugs.map((slug) => [slug, new Map()]));
    const where = whereClause(filter);
    for (const [data] of this.sql.get(`SELECT r.data FROM records r WHERE ${where.sql}`).raw().iterate(...where.params) as Iterable<[string]>) {
      const values = JSON.parse(data) as Record<string, string>;
      for (const slug in values) {
        const value = values[slug]!;
        const bucket = counts.get(slug);
        if (value !== "" && bucket) bucket.set(value, (bucket.get(value) ?? 0) + 1);
      }
    }
    return Object.fromEntries([...counts].map(([slug, bucket]) => {
      const ranked = [...bucket].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
      return [slug, Object.fromEntries(limit > 0 ? ranked.slice(0, limit) : ranked)];
    }));
  }

  /** Records of the bloc created at or after `since`, through the counters where they cover the visibility. */
  countSince(blocId: string, since: string | null, visibility: Visibility | undefined): number {
    return this.count({ blocId, ...(visibility ? { visibility } : {}), ...(since === null ? {} : { from: since }) });
  }

  scanCount(blocId: string, since: string | null, limit: number | null, visibility: Visibility | undefined): ScanCount {
    const total = this.countSince(blocId, since, undefined);
    const counted = visibility === undefined ? total : this.countSince(blocId, since, visibility);
    const reached = limit !== null && total >= limit;
    let reachedAt: string | null = null;
    if (reached) {
      const parts = ["r.bloc_id = ?"];
      const params: Param[] = [blocId];
      if (since !== null) { parts.push("r.created_at >= ?"); params.push(since); }
      const row = this.sql.get(`SELECT r.created_at FROM records r WHERE ${parts.join(" AND ")}
        ORDER BY r.created_at, r.id LIMIT 1 OFFSET ?`).get(...params, limit - 1) as { created_at: string } | undefined;
      reachedAt = row?.created_at ?? null;
    }
    return { counted, reached, reachedAt };
  }

  findFile(ref: string): StoredFile | undefined {
    const row = this.sql.get(`SELECT ref, bloc_id, record_id, slug, sha256, name, type, size FROM files WHERE ref = ?`)
      .get(ref) as { ref: string; bloc_id: string; record_id: number; slug: string; sha256: string; name: string; type: string; size: number } | undefined;
    return row && {
      ref: row.ref, blocId: row.bloc_id, recordId: row.record_id, slug: row.slug,
      sha256: row.sha256, name: row.name, type: row.type, size: row.size,
    };
  }
}

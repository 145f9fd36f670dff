import crypto from "node:crypto";
import { LimitReachedError } from "../domain/errors.js";
import { MAX_SEQUENCE, render, sequenceOf, type SequenceTemplate } from "../domain/autogenerate.js";
import { uniqueViolation } from "../domain/field-rules.js";
import {
  RECORD_ID_KEY, STATUS_KEY,
  type MatchCondition, type Order, type RecordCursor, type RecordFilter, type StoredFile,
  type StoredRecord, type Visibility,
} from "../domain/model.js";
import type {
  AutogeneratePlan, InsertPlan, Inserted, NewRecord, Page, ProjectedRow, Replacement, RowColumn, RowPage, ScanCount, UniqueKey, ValueCounts,
} from "./store.js";
import { CounterDeltas, SqliteCounters } from "./sqlite-counters.js";
import { fieldPath, type Param, type Statements } from "./sqlite-statements.js";

interface RecordRow {
  id: number;
  created_at: string;
  user_id: string;
  submitted_status: number;
  job_id: string | null;
  data: string;
}

/** What a query selects from `records AS r`, with its parameters, and how a row becomes a result. */
interface Projection<T> {
  readonly columns: string;
  readonly params: readonly Param[];
  readonly map: (row: Record<string, unknown>) => T;
}

const RECORDS: Projection<StoredRecord> = {
  columns: "r.id, r.created_at, r.user_id, r.submitted_status, r.job_id, r.data", params: [],
  map: (row) => toRecord(row as unknown as RecordRow),
};

/** The SQL for one report column's value. */
function sourceSql(column: RowColumn): string {
  switch (column.source) {
    case "created_at": return "r.created_at";
    case "user_id": return "r.user_id";
    case "time_stamp": return "substr(r.created_at, 12)";
    case "date_stamp": return "substr(r.created_at, 1, 10)";
    default: return `COALESCE(json_extract(r.data, '${fieldPath(column.source.field)}'), '')`;
  }
}

function toRecord(row: RecordRow): StoredRecord {
  return {
    id: row.id,
    createdAt: row.created_at,
    userId: row.user_id,
    submittedStatus: row.submitted_status,
    jobId: row.job_id,
    values: JSON.parse(row.data) as Record<string, string>,
  };
}

/** `key IN (values)` over `records AS r`; an empty list matches everything or nothing, as asked. */
function conditionSql(condition: MatchCondition, empty: "all" | "none", parts: string[], params: Param[]): void {
  if (condition.values.length === 0) {
    if (empty === "none") parts.push("0 = 1");
    return;
  }
  const marks = condition.values.map(() => "?").join(", ");
  if (condition.key === RECORD_ID_KEY) {
    parts.push(`CAST(r.id AS TEXT) IN (${marks})`);
  } else if (condition.key === STATUS_KEY) {
    parts.push(`CAST(r.submitted_status AS TEXT) IN (${marks})`);
  } else if (condition.values.includes("")) {
    // A field never set reads "", so it must match a search for "".
    parts.push(`COALESCE(json_extract(r.data, ?), '') IN (${marks})`);
    params.push(fieldPath(condition.key));
  } else {
    // The path is inlined, not bound, so that the field's expression index (if any) serves the lookup.
    parts.push(`json_extract(r.data, '${fieldPath(condition.key)}') IN (${marks})`);
  }
  params.push(...condition.values);
}

function visibilitySql(visibility: Visibility | undefined, parts: string[], params: Param[]): void {
  if (visibility?.none) parts.push("0 = 1");
  if (visibility?.ownerId !== undefined) { parts.push("r.user_id = ?"); params.push(visibility.ownerId); }
  for (const condition of visibility?.match ?? []) conditionSql(condition, "none", parts, params);
}

/** The SQL condition and its parameters for a filter, visibility included, over `records AS r`. */
function whereClause(filter: RecordFilter): { sql: string; params: Param[] } {
  const parts = ["r.bloc_id = ?"];
  const params: Param[] = [filter.blocId];
  visibilitySql(filter.visibility, parts, params);
  if (filter.from !== undefined) { parts.push("r.created_at >= ?"); params.push(filter.from); }
  if (filter.to !== undefined) { parts.push("r.created_at <= ?"); params.push(filter.to); }
  for (const condition of filter.match ?? []) conditionSql(condition, "all", parts, params);
  return { sql: parts.join(" AND "), params };
}

function orderBy(order: Order): string {
  return order === "newest" ? "r.created_at DESC, r.id DESC" : "r.created_at ASC, r.id ASC";
}

function minTime(a: string | undefined, b: string): string {
  return a !== undefined && a < b ? a : b;
}

function maxTime(a: string | undefined, b: string): string {
  return a !== undefined && a > b ? a : b;
}

/** Escapes LIKE's wildcards so that a prefix is matched literally. */
function likePrefix(text: string): string {
  return `${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

interface QueuedInsert {
  readonly record: NewRecord;
  readonly plan: InsertPlan;
  readonly resolve: (inserted: Inserted) => void;
  readonly reject: (error: unknown) => void;
}

/** Record reads and writes of the SQLite engine. */
export class SqliteRecords {
  private readonly counters: SqliteCounters;
  private queue: QueuedInsert[] = [];

  constructor(private readonly sql: Statements) {
    this.counters = new SqliteCounters(sql);
  }

  /** Whether another record of the bloc holds `value` in `slug` (within the template's group, if any). */
  private taken(blocId: string, slug: string, value: string, group?: { slug: string; value: string }): boolean {
    // The path is inlined so that an expression index on it can serve the lookup.
    let query = `SELECT 1 FROM records r WHERE r.bloc_id = ? AND json_extract(r.data, '${fieldPath(slug)}') = ?`;
    const params: Param[] = [blocId, value];
    if (group) {
      query += " AND COALESCE(json_extract(r.data, ?), '') = ?";
      params.push(fieldPath(group.slug), group.value);
    }
    return this.sql.get(`${query} LIMIT 1`).get(...params) !== undefined;
  }

  /** The last counter handed out for this template, starting from the highest value already in the bloc. */
  private lastSequence(blocId: string, slug: string, t: SequenceTemplate): number {
    const row = this.sql.get("SELECT last FROM sequences WHERE bloc_id = ? AND slug = ? AND grp = ? AND prefix = ? AND suffix = ?")
      .get(blocId, slug, t.group, t.prefix, t.suffix) as { last: number } | undefined;
    if (row) return row.last;
    let query = `SELECT json_extract(r.data, '${fieldPath(slug)}') AS v FROM records r
      WHERE r.bloc_id = ? AND json_extract(r.data, '${fieldPath(slug)}') LIKE ? ESCAPE '\\'`;
    const params: Param[] = [blocId, likePrefix(t.prefix)];
    if (t.groupBy !== null) {
      query += " AND COALESCE(json_extract(r.data, ?), '') = ?";
      params.push(fieldPath(t.groupBy), t.group);
    }
    let highest = 0;
    for (const { v } of this.sql.get(query).iterate(...params) as Iterable<{ v: string }>) {
      highest = Math.max(highest, sequenceOf(t, v) ?? 0);
    }
    return highest;
  }

  private saveSequence(blocId: string, slug: string, t: SequenceTemplate, last: number): void {
    this.sql.get(`INSERT INTO sequences (bloc_id, slug, grp, prefix, suffix, last) VALUES (?, ?, ?, ?, ?, ?)
      ON CONFLICT (bloc_id, slug, grp, prefix, suffix) DO UPDATE SET last = MAX(last, excluded.last)`)
      .run(blocId, slug, t.group, t.prefix, t.suffix, last);
  }

  private scanLimitCheck(blocId: string, plan: NonNullable<InsertPlan["scanLimit"]>, pending: number): void {
    const counted = this.countSince(blocId, plan.since, undefined) + pending;
    if (counted >= plan.limit) {
      throw new LimitReachedError(
        `This bloc has reached its scan limit of ${plan.limit} records${plan.period ? ` for this ${plan.period}` : ""}`,
      );
    }
  }

  /** Records of the bloc created at or after `since`, through the counters where they cover the visibility. */
  private countSince(blocId: string, since: string | null, visibility: Visibility | undefined): number {
    return this.count({ blocId, ...(visibility ? { visibility } : {}), ...(since === null ? {} : { from: since }) });
  }

  /**
   * Group commit: inserts that arrive while one transaction is being prepared share
   * it, so that many answers cost one sync to disk. Each insert runs in a savepoint
   * of its own, so one refused insert does not undo the others, and no answer is
   * given before the transaction holding it has committed.
   */
  insert(record: NewRecord, plan: InsertPlan): Promise<Inserted> {
    return new Promise((resolve, reject) => {
      this.queue.push({ record, plan, resolve, reject });
      if (this.queue.length === 1) setImmediate(() => this.flush());
    });
  }

  private flush(): void {
    const batch = this.queue;
    this.queue = [];
    const outcomes: ({ inserted: Inserted } | { error: unknown })[] = [];
    try {
      this.sql.immediate(() => {
        // Counters of the whole batch are written once: most adds share a day, a segment and values.
        const deltas = new CounterDeltas();
        const added = new Map<string, number>();
        for (const item of batch) {
          try {
            const pending = added.get(item.record.blocId) ?? 0;
            const inserted = this.sql.db.transaction(() => this.insertOne(item.record, item.plan, pending))();
            deltas.add({ ...item.record, values: inserted.values }, this.counters.profileSlugs(item.record.blocId), 1);
            added.set(item.record.blocId, pending + 1);
            outcomes.push({ inserted });
          } catch (error) {
            outcomes.push({ error });
          }
        }
        this.counters.apply(deltas);
      });
    } catch (error) {
      for (const item of batch) item.reject(error);
      return;
    }
    batch.forEach((item, index) => {
      const outcome = outcomes[index]!;
      if ("inserted" in outcome) item.resolve(outcome.inserted); else item.reject(outcome.error);
    });
  }

  /**
   * One insert, inside a batch whose counters are written at its end: `pending` records
   * of this bloc were added earlier in the batch and are not in the counters yet.
   */
  private insertOne(record: NewRecord, plan: InsertPlan, pending: number): Inserted {
    if (plan.scanLimit) this.scanLimitCheck(record.blocId, plan.scanLimit, pending);
    const values: Record<string, string> = { ...record.values };
    const replacements = plan.autogenerate.flatMap((autogenerate) => this.autogenerate(record.blocId, autogenerate, values));
    for (const field of plan.unique) {
      const value = values[field.slug];
      if (value !== undefined && value !== "" && this.taken(record.blocId, field.slug, value)) {
        throw uniqueViolation(field, value);
      }
    }
    const { id } = this.sql.get(`INSERT INTO records (bloc_id, created_at, user_id, submitted_status, job_id, data)
      VALUES (?, ?, ?, ?, ?, ?) RETURNING id`)
      .get(record.blocId, record.createdAt, record.userId, record.submittedStatus, record.jobId,
        JSON.stringify(values)) as { id: number };
    for (const file of plan.files) {
      this.sql.get(`INSERT INTO files (ref, bloc_id, record_id, slug, sha256, name, type, size, created_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`)
        .run(file.ref, record.blocId, id, file.slug, file.sha256, file.name, file.type, file.size, record.createdAt);
      this.sql.get("DELETE FROM content_holds WHERE id = ?").run(file.hold);
    }
    return { id, values, replacements };
  }

  /**
   * Fills one autogenerate field in `values`: the client's value when free, else the next
   * free counter value. Returns the replacement to report, if the client's was taken.
   */
  private autogenerate(blocId: string, { field, template, sent }: AutogeneratePlan, values: Record<string, string>): Replacement[] {
    const group = template.groupBy === null ? undefined : { slug: template.groupBy, value: template.group };
    if (sent !== "" && !this.taken(blocId, field.slug, sent, group)) {
      values[field.slug] = sent;
      const seq = sequenceOf(template, sent);
      if (seq !== null) this.saveSequence(blocId, field.slug, template, seq);
      return [];
    }
    let seq = this.lastSequence(blocId, field.slug, template);
    let value: string;
    do {
      seq += 1;
      if (seq > MAX_SEQUENCE) throw new LimitReachedError(`${field.slug} (${field.name}) has used up its counter`);
      value = render(template, seq);
    } while (this.taken(blocId, field.slug, value, group));
    this.saveSequence(blocId, field.slug, template, seq);
    values[field.slug] = value;
    return sent === "" ? [] : [{ field: field.slug, sent, value }];
  }

  /** Inserts records as they are, with no rules to check (imports and seeding), in one transaction. */
  importMany(records: readonly NewRecord[]): number[] {
    return this.sql.immediate(() => {
      const insert = this.sql.get(`INSERT INTO records (bloc_id, created_at, user_id, submitted_status, job_id, data)
        VALUES (?, ?, ?, ?, ?, ?) RETURNING id`);
      const deltas = new CounterDeltas();
      const profiles = new Map<string, string[]>();
      const ids = records.map((record) => {
        let profileSlugs = profiles.get(record.blocId);
        if (!profileSlugs) profiles.set(record.blocId, profileSlugs = this.counters.profileSlugs(record.blocId));
        deltas.add(record, profileSlugs, 1);
        return (insert.get(record.blocId, record.createdAt, record.userId, record.submittedStatus, record.jobId,
          JSON.stringify(record.values)) as { id: number }).id;
      });
      this.counters.apply(deltas);
      return ids;
    });
  }

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

  /**
   * Refuses an update that would leave two records with one value of a unique key:
   * among the updated records themselves, or between one of them and a record the
   * update does not touch. Values are compared within the key's group, if it has one.
   */
  private checkUnique(blocId: string, where: { sql: string; params: Param[] },
    fields: Readonly<Record<string, string>>, keys: readonly UniqueKey[]): void {
    const rows = this.sql.get(`SELECT r.id, r.data FROM records r WHERE ${where.sql}`).all(...where.params) as { id: number; data: string }[];
    const updated = new Set(rows.map((row) => row.id));
    for (const key of keys) {
      const seen = new Set<string>();
      for (const row of rows) {
        const after: Record<string, string> = { ...(JSON.parse(row.data) as Record<string, string>), ...fields };
        const value = after[key.field.slug] ?? "";
        if (value === "") continue;
        const group = key.groupBy === null ? undefined : { slug: key.groupBy, value: after[key.groupBy] ?? "" };
        const identity = JSON.stringify([group?.value ?? null, value]);
        if (seen.has(identity)) throw uniqueViolation(key.field, value);
        seen.add(identity);
        let query = `SELECT r.id FROM records r WHERE r.bloc_id = ? AND json_extract(r.data, '${fieldPath(key.field.slug)}') = ?`;
        const params: Param[] = [blocId, value];
        if (group) { query += " AND COALESCE(json_extract(r.data, ?), '') = ?"; params.push(fieldPath(group.slug), group.value); }
        const holders = this.sql.get(`${query} LIMIT ?`).all(...params, updated.size + 1) as { id: number }[];
        if (holders.some((holder) => !updated.has(holder.id))) throw uniqueViolation(key.field, value);
      }
    }
  }

  update(filter: RecordFilter, values: Readonly<Record<string, string>>, unique: readonly UniqueKey[]): number[] {
    const where = whereClause(filter);
    const { [STATUS_KEY]: status, ...fields } = values;
    const affected = unique.filter((k) => k.field.slug in fields || (k.groupBy !== null && k.groupBy in fields));
    return this.sql.immediate(() => {
      if (affected.length > 0) this.checkUnique(filter.blocId, where, fields, affected);
      // The old values leave the counters and the new ones enter, in this transaction.
      const before = this.sql.get(`SELECT r.id, r.created_at, r.user_id, r.data FROM records r WHERE ${where.sql}`)
        .all(...where.params) as { id: number; created_at: string; user_id: string; data: string }[];
      if (before.length === 0) return [];
      const deltas = new CounterDeltas();
      const profileSlugs = this.counters.profileSlugs(filter.blocId);
      for (const row of before) {
        const old = JSON.parse(row.data) as Record<string, string>;
        const counted = { blocId: filter.blocId, createdAt: row.created_at, userId: row.user_id, values: old };
        const changed = Object.entries(fields).filter(([slug, value]) => (old[slug] ?? "") !== value);
        if (changed.some(([slug]) => profileSlugs.includes(slug))) {
          // The record moves between profile segments: it leaves them whole and enters the new ones whole.
          deltas.add(counted, profileSlugs, -1);
          deltas.add({ ...counted, values: { ...old, ...fields } }, profileSlugs, 1);
          continue;
        }
        for (const [slug, value] of changed) {
          deltas.addValue(counted, profileSlugs, slug, old[slug] ?? "", -1);
          deltas.addValue(counted, profileSlugs, slug, value, 1);
        }
      }
      const rows = this.sql.get(`UPDATE records AS r SET data = json_patch(r.data, ?),
          submitted_status = COALESCE(?, r.submitted_status)
        WHERE ${where.sql} RETURNING id`)
        .all(JSON.stringify(fields), status === undefined ? null : Number(status), ...where.params) as { id: number }[];
      this.counters.apply(deltas);
      return rows.map((row) => row.id).sort((a, b) => a - b);
    });
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

  /** Recounts a bloc's counters, in a transaction, after its profile-filtered fields changed. */
  rebuildCounters(blocId: string): void {
    this.sql.immediate(() => this.counters.rebuild(blocId));
  }

  holdContent(sha256: string, createdAt: string): string {
    const id = crypto.randomUUID();
    this.sql.get("INSERT INTO content_holds (id, sha256, created_at) VALUES (?, ?, ?)").run(id, sha256, createdAt);
    return id;
  }

  releaseContent(hold: string, sha256: string, remove: () => void): void {
    this.sql.immediate(() => {
      this.sql.get("DELETE FROM content_holds WHERE id = ?").run(hold);
      const used = this.sql.get(`SELECT 1 FROM files WHERE sha256 = ?
        UNION ALL SELECT 1 FROM content_holds WHERE sha256 = ? LIMIT 1`).get(sha256, sha256) !== undefined;
      // Removed inside the transaction: an upload of the same content takes its hold only after this commits.
      if (!used) remove();
    });
  }
}

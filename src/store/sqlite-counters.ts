import type { MatchCondition, RecordFilter } from "../domain/model.js";
import type { ValueCounts } from "./store.js";
import { COUNTER_REBUILD } from "./sqlite-schema.js";
import type { Param, Statements } from "./sqlite-statements.js";

/** The part of a record the counters follow. */
export interface Counted {
  readonly blocId: string;
  readonly createdAt: string;
  readonly userId: string;
  readonly values: Readonly<Record<string, string>>;
}

const DAY_START = " 00:00:00";
const DAY_END = " 23:59:59";

/**
 * The segments a record belongs to: every record is in '' (all records) and in its
 * owner's; a record holding a value in a profile-filtered field is also in that
 * value's segment. A reader whose view is one segment, or a union of disjoint ones,
 * is answered from the counters.
 */
export function segmentsOf(record: Counted, profileSlugs: readonly string[]): string[] {
  const segments = ["", `u:${record.userId}`];
  for (const slug of profileSlugs) {
    const value = record.values[slug] ?? "";
    if (value !== "") segments.push(`p:${slug}:${value}`);
  }
  return segments;
}

/**
 * Changes to the counters, gathered in memory and written once: a bulk import or an
 * update of many records touches each counter row once, not once per record.
 */
export class CounterDeltas {
  /** Key columns, then the change in n last. */
  readonly days = new Map<string, (string | number)[]>();
  readonly values = new Map<string, (string | number)[]>();

  /** A whole record enters (1) or leaves (-1) its segments. */
  add(record: Counted, profileSlugs: readonly string[], sign: 1 | -1): void {
    const day = record.createdAt.slice(0, 10);
    for (const segment of segmentsOf(record, profileSlugs)) {
      bump(this.days, [record.blocId, segment, day], sign);
      for (const [slug, value] of Object.entries(record.values)) {
        if (value !== "") bump(this.values, [record.blocId, segment, slug, value], sign);
      }
    }
  }

  /** One value of a record that stays in the same segments enters or leaves their counts. */
  addValue(record: Counted, profileSlugs: readonly string[], slug: string, value: string, sign: 1 | -1): void {
    if (value === "") return;
    for (const segment of segmentsOf(record, profileSlugs)) bump(this.values, [record.blocId, segment, slug, value], sign);
  }
}

function bump(map: Map<string, (string | number)[]>, key: string[], sign: number): void {
  // NUL cannot occur in the parts (JSON text), so joining with it is unambiguous and cheaper than JSON.
  const id = key.join("\u0000");
  const entry = map.get(id);
  if (entry) entry[entry.length - 1] = (entry[entry.length - 1] as number) + sign;
  else map.set(id, [...key, sign]);
}

/**
 * Counters of records per bloc, segment and day, and of values per bloc, segment and
 * field, maintained in the transaction of every write. Whole days are read from them;
 * only the partial days at a window's edges are counted from records.
 */
export class SqliteCounters {
  constructor(private readonly sql: Statements) {}

  apply(deltas: CounterDeltas): void {
    const write = (table: string, key: string[], entries: Iterable<(string | number)[]>): void => {
      const insert = this.sql.get(`INSERT INTO ${table} (${key.join(", ")}, n) VALUES (${key.map(() => "?").join(", ")}, ?)
        ON CONFLICT (${key.join(", ")}) DO UPDATE SET n = n + excluded.n`);
      const prune = this.sql.get(`DELETE FROM ${table} WHERE ${key.map((k) => `${k} = ?`).join(" AND ")} AND n <= 0`);
      for (const entry of entries) {
        const n = entry[entry.length - 1] as number;
        if (n === 0) continue;
        insert.run(...entry);
        if (n < 0) prune.run(...entry.slice(0, -1));
      }
    };
    write("day_counts", ["bloc_id", "segment", "day"], deltas.days.values());
    write("value_totals", ["bloc_id", "segment", "slug", "value"], deltas.values.values());
  }

  /** The bloc's profile-filtered fields, whose values make segments. */
  profileSlugs(blocId: string): string[] {
    return (this.sql.get("SELECT slug FROM fields WHERE bloc_id = ? AND apply_profile_filter = 1 ORDER BY position")
      .all(blocId) as { slug: string }[]).map((row) => row.slug);
  }

  /** Recounts a bloc's counters from its records, after its profile-filtered fields changed. */
  rebuild(blocId: string): void {
    this.sql.get("DELETE FROM day_counts WHERE bloc_id = ?").run(blocId);
    this.sql.get("DELETE FROM value_totals WHERE bloc_id = ?").run(blocId);
    for (const statement of COUNTER_REBUILD("r.bloc_id = ?").split(";").map((s) => s.trim()).filter(Boolean)) {
      const marks = (statement.match(/\?/g) ?? []).length;
      this.sql.get(statement).run(...Array.from({ length: marks }, () => blocId));
    }
  }

  /**
   * Drops visibility conditions that every record of the bloc meets, such as a profile
   * filter listing every site the bloc's records hold: the counters then cover the
   * filter. A record without a value never meets a condition, so it keeps it.
   */
  simplify(filter: RecordFilter): RecordFilter {
    const conditions = filter.visibility?.match;
    if (!conditions || conditions.length === 0) return filter;
    const total = this.total(filter.blocId, [""]);
    const kept = conditions.filter((condition) => {
      if (condition.values.length === 0 || condition.values.length > 500) return true;
      const marks = condition.values.map(() => "?").join(", ");
      const admitted = (this.sql.get(`SELECT COALESCE(SUM(n), 0) AS n FROM value_totals
        WHERE bloc_id = ? AND segment = '' AND slug = ? AND value IN (${marks})`)
        .get(filter.blocId, condition.key, ...condition.values) as { n: number }).n;
      return admitted !== total;
    });
    return kept.length === conditions.length ? filter : { ...filter, visibility: { ...filter.visibility, match: kept } };
  }

  private total(blocId: string, segments: readonly string[]): number {
    return (this.sql.get(`SELECT COALESCE(SUM(n), 0) AS n FROM day_counts WHERE bloc_id = ? AND segment IN (${segments.map(() => "?").join(", ")})`)
      .get(blocId, ...segments) as { n: number }).n;
  }

  /**
   * The disjoint segments whose union is exactly what the filter selects, or undefined
   * when the counters cannot answer (value conditions, or an owner and a profile at once).
   */
  segments(filter: RecordFilter): string[] | undefined {
    if ((filter.match ?? []).some((c) => c.values.length > 0) || filter.visibility?.none) return undefined;
    const owner = filter.visibility?.ownerId;
    const conditions: readonly MatchCondition[] = filter.visibility?.match ?? [];
    if (conditions.length === 0) return [owner === undefined ? "" : `u:${owner}`];
    const [condition] = conditions;
    if (owner !== undefined || conditions.length > 1 || condition!.values.includes("")) return undefined;
    if (!this.profileSlugs(filter.blocId).includes(condition!.key)) return undefined;
    return [...new Set(condition!.values)].map((value) => `p:${condition!.key}:${value}`);
  }

  /**
   * Records per day (ascending) of the given segments: whole days from the counters, the
   * window's first and last day counted exactly (by `exact`) when only partly inside.
   */
  days(filter: RecordFilter, segments: readonly string[], exact: (from: string, to: string) => number): { day: string; n: number }[] {
    const parts = ["bloc_id = ?", `segment IN (${segments.map(() => "?").join(", ")})`];
    const params: Param[] = [filter.blocId, ...segments];
    if (filter.from !== undefined) { parts.push("day >= ?"); params.push(filter.from.slice(0, 10)); }
    if (filter.to !== undefined) { parts.push("day <= ?"); params.push(filter.to.slice(0, 10)); }
    const rows = this.sql.get(`SELECT day, SUM(n) AS n FROM day_counts WHERE ${parts.join(" AND ")} GROUP BY day ORDER BY day`)
      .all(...params) as { day: string; n: number }[];
    return rows.map((row) => {
      const from = filter.from !== undefined && filter.from > row.day + DAY_START ? filter.from : undefined;
      const to = filter.to !== undefined && filter.to < row.day + DAY_END ? filter.to : undefined;
      if (from === undefined && to === undefined) return row;
      return { day: row.day, n: exact(from ?? row.day + DAY_START, to ?? row.day + DAY_END) };
    }).filter((row) => row.n > 0);
  }

  /**
   * Value counts of the given segments over all time: per field the `limit` most frequent
   * values (all when 0). One segment is read off an index in that order; several are summed.
   */
  values(blocId: string, segments: readonly string[], slugs: readonly string[], limit: number): ValueCounts {
    const single = segments.length === 1;
    const statement = this.sql.get(single
      ? `SELECT value, n FROM value_totals WHERE bloc_id = ? AND segment = ? AND slug = ? ORDER BY n DESC, value${limit > 0 ? " LIMIT ?" : ""}`
      : `SELECT value, SUM(n) AS n FROM value_totals WHERE bloc_id = ? AND segment IN (${segments.map(() => "?").join(", ")}) AND slug = ?
         GROUP BY value ORDER BY n DESC, value${limit > 0 ? " LIMIT ?" : ""}`);
    return Object.fromEntries(slugs.map((slug) => {
      const rows = statement.all(blocId, ...segments, slug, ...(limit > 0 ? [limit] : [])) as { value: string; n: number }[];
      return [slug, Object.fromEntries(rows.map((row) => [row.value, row.n]))];
    }));
  }
}

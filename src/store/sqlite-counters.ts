import type { RecordFilter } from "../domain/model.js";
import type { ValueCounts } from "./store.js";
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
 * Changes to the counters, gathered in memory and written once: a bulk import or an
 * update of many records touches each counter row once, not once per record.
 */
export class CounterDeltas {
  /** Key columns, then the change in n last. */
  readonly days = new Map<string, (string | number)[]>();
  readonly values = new Map<string, (string | number)[]>();
  readonly ownerValues = new Map<string, (string | number)[]>();

  add(record: Counted, sign: 1 | -1): void {
    const day = record.createdAt.slice(0, 10);
    bump(this.days, [record.blocId, day, record.userId], sign);
    for (const [slug, value] of Object.entries(record.values)) this.addValue(record, slug, value, sign);
  }

  addValue(record: Counted, slug: string, value: string, sign: 1 | -1): void {
    if (value === "") return;
    bump(this.values, [record.blocId, slug, value], sign);
    bump(this.ownerValues, [record.blocId, record.userId, slug, value], sign);
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
 * Counters of records per bloc, day and owner, and of values per bloc and field (and
 * owner), maintained in the transaction of every write. Whole days and whole blocs are
 * read from them; only the partial days at a window's edges are counted from records.
 */
export class SqliteCounters {
  constructor(private readonly sql: Statements) {}

  apply(deltas: CounterDeltas): void {
    const upsert = (table: string, columns: string[], key: string[], entries: Iterable<(string | number)[]>): void => {
      const marks = columns.map(() => "?").join(", ");
      const insert = this.sql.get(`INSERT INTO ${table} (${columns.join(", ")}, n) VALUES (${marks}, ?)
        ON CONFLICT (${key.join(", ")}) DO UPDATE SET n = n + excluded.n`);
      const prune = this.sql.get(`DELETE FROM ${table} WHERE ${key.map((k) => `${k} = ?`).join(" AND ")} AND n <= 0`);
      for (const entry of entries) {
        const n = entry[entry.length - 1] as number;
        if (n === 0) continue;
        insert.run(...entry);
        if (n < 0) prune.run(...entry.slice(0, -1));
      }
    };
    upsert("day_counts", ["bloc_id", "day", "user_id"], ["bloc_id", "day", "user_id"], deltas.days.values());
    upsert("value_totals", ["bloc_id", "slug", "value"], ["bloc_id", "slug", "value"], deltas.values.values());
    upsert("owner_value_totals", ["bloc_id", "user_id", "slug", "value"], ["bloc_id", "user_id", "slug", "value"],
      deltas.ownerValues.values());
  }

  /**
   * Drops visibility conditions that every record of the bloc meets, such as a profile
   * filter listing every site the bloc's records hold: the counters then cover the
   * filter. A record without a value never meets a condition, so it keeps it.
   */
  simplify(filter: RecordFilter): RecordFilter {
    const conditions = filter.visibility?.match;
    if (!conditions || conditions.length === 0) return filter;
    const total = (this.sql.get("SELECT COALESCE(SUM(n), 0) AS n FROM day_counts WHERE bloc_id = ?")
      .get(filter.blocId) as { n: number }).n;
    const kept = conditions.filter((condition) => {
      if (condition.values.length === 0 || condition.values.length > 500) return true;
      const marks = condition.values.map(() => "?").join(", ");
      const admitted = (this.sql.get(`SELECT COALESCE(SUM(n), 0) AS n FROM value_totals
        WHERE bloc_id = ? AND slug = ? AND value IN (${marks})`).get(filter.blocId, condition.key, ...condition.values) as { n: number }).n;
      return admitted !== total;
    });
    return kept.length === conditions.length ? filter : { ...filter, visibility: { ...filter.visibility, match: kept } };
  }

  /** Whether the counters can answer for this filter: no value conditions, nothing hidden by field values. */
  static covers(filter: RecordFilter): boolean {
    const byValue = (filter.match ?? []).some((c) => c.values.length > 0) || (filter.visibility?.match ?? []).length > 0;
    return !byValue && !filter.visibility?.none;
  }

  /**
   * Records per day (ascending) for a filter the counters cover: whole days from the
   * counters, the window's first and last day counted exactly when only partly inside.
   */
  days(filter: RecordFilter): { day: string; n: number }[] {
    const owner = filter.visibility?.ownerId;
    const parts = ["bloc_id = ?"];
    const params: Param[] = [filter.blocId];
    if (owner !== undefined) { parts.push("user_id = ?"); params.push(owner); }
    if (filter.from !== undefined) { parts.push("day >= ?"); params.push(filter.from.slice(0, 10)); }
    if (filter.to !== undefined) { parts.push("day <= ?"); params.push(filter.to.slice(0, 10)); }
    const rows = this.sql.get(`SELECT day, SUM(n) AS n FROM day_counts WHERE ${parts.join(" AND ")} GROUP BY day ORDER BY day`)
      .all(...params) as { day: string; n: number }[];
    const exact = (day: string): number => {
      const from = filter.from !== undefined && filter.from > day + DAY_START ? filter.from : day + DAY_START;
      const to = filter.to !== undefined && filter.to < day + DAY_END ? filter.to : day + DAY_END;
      const ownerSql = owner === undefined ? "" : " AND user_id = ?";
      return (this.sql.get(`SELECT COUNT(*) AS n FROM records WHERE bloc_id = ?${ownerSql} AND created_at BETWEEN ? AND ?`)
        .get(...[filter.blocId, ...(owner === undefined ? [] : [owner]), from, to]) as { n: number }).n;
    };
    return rows.map((row) => {
      const partial = (filter.from !== undefined && filter.from > row.day + DAY_START) ||
        (filter.to !== undefined && filter.to < row.day + DAY_END);
      return partial ? { day: row.day, n: exact(row.day) } : row;
    }).filter((row) => row.n > 0);
  }

  /**
   * Value counts from the totals, for a filter the counters cover without a date window:
   * per field the `limit` most frequent values (all when 0), read off an index in that order.
   */
  values(filter: RecordFilter, slugs: readonly string[], limit: number): ValueCounts {
    const owner = filter.visibility?.ownerId;
    const table = owner === undefined ? "value_totals" : "owner_value_totals";
    const ownerSql = owner === undefined ? "" : " AND user_id = ?";
    const statement = this.sql.get(`SELECT value, n FROM ${table} WHERE bloc_id = ?${ownerSql} AND slug = ?
      ORDER BY n DESC, value${limit > 0 ? " LIMIT ?" : ""}`);
    return Object.fromEntries(slugs.map((slug) => {
      const params: Param[] = [filter.blocId, ...(owner === undefined ? [] : [owner]), slug, ...(limit > 0 ? [limit] : [])];
      const rows = statement.all(...params) as { value: string; n: number }[];
      return [slug, Object.fromEntries(rows.map((row) => [row.value, row.n]))];
    }));
  }
}

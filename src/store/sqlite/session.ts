import { CounterDeltas } from "../../domain/counters.js";
import type { GenerationCache } from "../generation-cache.js";
import type { DayCount, Tx } from "../store.js";
import { SqliteRecords } from "./record-queries.js";
import type { Param, Statements } from "./statements.js";

/** Writes counter changes: upserts adding each change, then drops rows that reached zero. */
export function writeCounters(sql: Statements, deltas: CounterDeltas): void {
  const write = (table: string, key: string[], entries: readonly (readonly (string | number)[])[]): void => {
    const insert = sql.get(`INSERT INTO ${table} (${key.join(", ")}, n) VALUES (${key.map(() => "?").join(", ")}, ?)
      ON CONFLICT (${key.join(", ")}) DO UPDATE SET n = n + excluded.n`);
    const prune = sql.get(`DELETE FROM ${table} WHERE ${key.map((k) => `${k} = ?`).join(" AND ")} AND n <= 0`);
    for (const entry of entries) {
      insert.run(...entry);
      if ((entry[entry.length - 1] as number) < 0) prune.run(...entry.slice(0, -1));
    }
  };
  write("day_counts", ["bloc_id", "segment", "day"], deltas.days());
  write("value_totals", ["bloc_id", "segment", "slug", "value"], deltas.values());
}

function marks(list: readonly unknown[]): string {
  return list.map(() => "?").join(", ");
}

/**
 * The SQLite engine's view of its one connection: every read and write of the Store
 * interface, and, inside a transaction, a unit's counter changes. Locking a bloc costs
 * nothing here: a write transaction (BEGIN IMMEDIATE) already holds the database's one
 * write lock, across processes.
 */
export class SqliteSession extends SqliteRecords implements Tx {
  constructor(sql: Statements, cache: GenerationCache, readonly counters: CounterDeltas, readonly pending: CounterDeltas) {
    super(sql, cache);
  }

  async lockBloc(): Promise<void> {}

  async dayCounts(blocId: string, segments: readonly string[], fromDay: string | undefined, toDay: string | undefined): Promise<DayCount[]> {
    const parts = ["bloc_id = ?", `segment IN (${marks(segments)})`];
    const params: Param[] = [blocId, ...segments];
    if (fromDay !== undefined) { parts.push("day >= ?"); params.push(fromDay); }
    if (toDay !== undefined) { parts.push("day <= ?"); params.push(toDay); }
    return this.sql.get(`SELECT day, SUM(n) AS n FROM day_counts WHERE ${parts.join(" AND ")} GROUP BY day ORDER BY day`)
      .all(...params) as DayCount[];
  }

  async valueTotals(blocId: string, segments: readonly string[], slug: string, limit: number): Promise<[string, number][]> {
    // One segment is read off an index in that order; several are summed.
    const statement = this.sql.get(segments.length === 1
      ? `SELECT value, n FROM value_totals WHERE bloc_id = ? AND segment = ? AND slug = ? ORDER BY n DESC, value${limit > 0 ? " LIMIT ?" : ""}`
      : `SELECT value, SUM(n) AS n FROM value_totals WHERE bloc_id = ? AND segment IN (${marks(segments)}) AND slug = ?
         GROUP BY value ORDER BY n DESC, value${limit > 0 ? " LIMIT ?" : ""}`);
    return statement.raw().all(blocId, ...segments, slug, ...(limit > 0 ? [limit] : [])) as [string, number][];
  }

  async valueTotal(blocId: string, segment: string, slug: string, values: readonly string[]): Promise<number> {
    return (this.sql.get(`SELECT COALESCE(SUM(n), 0) AS n FROM value_totals
      WHERE bloc_id = ? AND segment = ? AND slug = ? AND value IN (${marks(values)})`)
      .get(blocId, segment, slug, ...values) as { n: number }).n;
  }

  async clearCounters(blocId: string): Promise<void> {
    this.sql.get("DELETE FROM day_counts WHERE bloc_id = ?").run(blocId);
    this.sql.get("DELETE FROM value_totals WHERE bloc_id = ?").run(blocId);
  }

  async flushCounters(): Promise<void> {
    writeCounters(this.sql, this.counters);
    this.counters.clear();
  }
}

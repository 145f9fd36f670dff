import { CounterDeltas } from "../../domain/counters.js";
import type { GenerationCache } from "../generation-cache.js";
import { LISTED_VALUE_MAX } from "../../domain/field-counts.js";
import type { DayCount, HistoryEntry, IdempotencyEntry, NewEvent, Tx, ValueCount, Webhook } from "../store.js";
import * as events from "./events.js";
import * as history from "./history.js";
import * as idempotency from "./idempotency.js";
import { SqliteRecords } from "./record-queries.js";
import { IN_LIST, jsonList, type Param, type Statements } from "./statements.js";

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
  write("period_values", ["bloc_id", "segment", "slug", "period", "value"], deltas.periods());
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
    const parts = ["bloc_id = ?", `segment ${IN_LIST}`];
    const params: Param[] = [blocId, jsonList(segments)];
    if (fromDay !== undefined) { parts.push("day >= ?"); params.push(fromDay); }
    if (toDay !== undefined) { parts.push("day <= ?"); params.push(toDay); }
    return this.sql.get(`SELECT day, SUM(n) AS n FROM day_counts WHERE ${parts.join(" AND ")} GROUP BY day ORDER BY day`)
      .all(...params) as DayCount[];
  }

  async valueTotals(blocId: string, segments: readonly string[], slug: string, limit: number): Promise<ValueCount[]> {
    // One segment is read off an index in that order; several are summed. A long value's
    // text stays in the database (ValueCount); LIMIT -1 is no limit.
    const listed = `CASE WHEN length(value) <= ${LISTED_VALUE_MAX} THEN value END`;
    const statement = this.sql.get(segments.length === 1
      ? `SELECT ${listed}, n FROM value_totals WHERE bloc_id = ? AND segment = ? AND slug = ? ORDER BY n DESC, value LIMIT ?`
      : `SELECT ${listed}, n FROM (SELECT value, SUM(n) AS n FROM value_totals WHERE bloc_id = ? AND segment ${IN_LIST} AND slug = ?
         GROUP BY value ORDER BY n DESC, value LIMIT ?)`);
    const segmentParam = segments.length === 1 ? segments[0]! : jsonList(segments);
    return statement.raw().all(blocId, segmentParam, slug, limit > 0 ? limit : -1) as [string | null, number][];
  }

  async periodValues(blocId: string, segments: readonly string[], slug: string, periods: readonly string[], limit: number,
    only?: readonly string[]): Promise<ValueCount[]> {
    const listed = `CASE WHEN length(value) <= ${LISTED_VALUE_MAX} THEN value END`;
    if (only !== undefined) {
      return this.sql.get(`SELECT value, SUM(n) AS n FROM period_values WHERE bloc_id = ? AND segment ${IN_LIST} AND slug = ?
        AND period ${IN_LIST} AND value ${IN_LIST} GROUP BY value`)
        .raw().all(blocId, jsonList(segments), slug, jsonList(periods), jsonList(only)) as [string, number][];
    }
    // One segment and one period are read off the top index in order, like valueTotals; more are summed.
    const statement = this.sql.get(segments.length === 1 && periods.length === 1
      ? `SELECT ${listed}, n FROM period_values WHERE bloc_id = ? AND segment = ? AND slug = ? AND period = ?
         ORDER BY n DESC, value LIMIT ?`
      : `SELECT ${listed}, n FROM (SELECT value, SUM(n) AS n FROM period_values
         WHERE bloc_id = ? AND segment ${IN_LIST} AND slug = ? AND period ${IN_LIST}
         GROUP BY value ORDER BY n DESC, value LIMIT ?)`);
    const one = segments.length === 1 && periods.length === 1;
    return statement.raw().all(blocId, one ? segments[0]! : jsonList(segments), slug, one ? periods[0]! : jsonList(periods),
      limit > 0 ? limit : -1) as [string | null, number][];
  }

  async valueTotal(blocId: string, segment: string, slug: string, values: readonly string[]): Promise<number> {
    return (this.sql.get(`SELECT COALESCE(SUM(n), 0) AS n FROM value_totals
      WHERE bloc_id = ? AND segment = ? AND slug = ? AND value ${IN_LIST}`)
      .get(blocId, segment, slug, jsonList(values)) as { n: number }).n;
  }

  async clearCounters(blocId: string): Promise<void> {
    this.sql.get("DELETE FROM day_counts WHERE bloc_id = ?").run(blocId);
    this.sql.get("DELETE FROM value_totals WHERE bloc_id = ?").run(blocId);
    this.sql.get("DELETE FROM period_values WHERE bloc_id = ?").run(blocId);
  }

  async flushCounters(): Promise<void> {
    writeCounters(this.sql, this.counters);
    this.counters.clear();
  }

  async recordHistory(blocId: string, recordId: number): Promise<HistoryEntry[] | undefined> {
    return history.recordHistory(this.sql, blocId, recordId);
  }

  async insertHistory(blocId: string, entries: readonly HistoryEntry[]): Promise<void> {
    history.insertHistory(this.sql, blocId, entries);
  }

  /** Always free: this transaction holds the database's one write lock. */
  async claimIdempotencyKey(): Promise<boolean> {
    return true;
  }

  async findIdempotencyKey(userId: string, keyHash: string, notBefore: number): Promise<IdempotencyEntry | undefined> {
    return idempotency.findIdempotencyKey(this.sql, userId, keyHash, notBefore);
  }

  async saveIdempotencyKey(entry: IdempotencyEntry): Promise<void> {
    idempotency.saveIdempotencyKey(this.sql, entry);
  }

  async appendEvents(blocId: string, list: readonly NewEvent[]): Promise<void> {
    events.appendEvents(this.sql, blocId, list);
  }

  async createWebhook(webhook: Webhook): Promise<void> {
    events.createWebhook(this.sql, webhook);
  }
}

import type { MatchCondition, RecordFilter } from "../../domain/model.js";
import { ALL_TIME, EVERYONE, dayKey } from "../../domain/counting/keys.js";
import { candidates, valuesDrive, walkedSegment } from "../value-plan.js";
import { IN_LIST, jsonList, type Statements } from "./statements.js";

/**
 * Records of the bloc holding one of the values, from the counters (everyone's all-time
 * scope), or undefined when that scope does not count values (a small bloc). A value
 * without a count is held by one record at most: counted as one.
 */
function matches(sql: Statements, blocId: string, condition: MatchCondition): number | undefined {
  const row = sql.get(`SELECT c.id, c.counted, (SELECT COALESCE(SUM(v.n), 0) || ',' || COUNT(*) FROM value_counts v
      WHERE v.scope_id = c.id AND v.slug = ? AND v.value ${IN_LIST}) AS found
    FROM counter_scopes c WHERE c.bloc_id = ? AND c.segment = ? AND c.period = ?`)
    .get(condition.key, jsonList(condition.values), blocId, EVERYONE.key, ALL_TIME) as { counted: number; found: string } | undefined;
  if (!row || row.counted !== 1) return undefined;
  const [n, listed] = row.found.split(",").map(Number) as [number, number];
  return n + (new Set(condition.values).size - listed);
}

/** Records a walk in time order would cover, from the day scopes. */
function walked(sql: Statements, filter: RecordFilter): number {
  const { segment, fromDay, toDay } = walkedSegment(filter);
  return (sql.get("SELECT COALESCE(SUM(n), 0) AS n FROM counter_scopes WHERE bloc_id = ? AND segment = ? AND period >= ? AND period <= ?")
    .get(filter.blocId, segment, dayKey(fromDay ?? "0000-00-00"), dayKey(toDay ?? "9999-99-99")) as { n: number }).n;
}

/**
 * The field whose value index is to drive the query (../value-plan.ts), or undefined for
 * none. `rows` is how far into the matches an ordered read goes; absent when unordered.
 * In a bloc too small to count values, any value index serves.
 */
export function drivingField(sql: Statements, filter: RecordFilter, rows?: number): string | undefined {
  let best: { key: string; n: number } | undefined;
  for (const condition of candidates(filter)) {
    const n = matches(sql, filter.blocId, condition);
    if (n === undefined) return condition.key;
    if (!best || n < best.n) best = { key: condition.key, n };
  }
  return best && valuesDrive(best.n, walked(sql, filter), rows) ? best.key : undefined;
}

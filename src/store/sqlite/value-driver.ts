import type { MatchCondition, RecordFilter } from "../../domain/model.js";
import { candidates, valuesDrive, walkedSegment } from "../value-plan.js";
import { IN_LIST, jsonList, type Statements } from "./statements.js";

/** Records of the bloc holding one of the values, from the counters (all records' segment). */
function matches(sql: Statements, blocId: string, condition: MatchCondition): number {
  return (sql.get(`SELECT COALESCE(SUM(n), 0) AS n FROM value_totals WHERE bloc_id = ? AND segment = '' AND slug = ? AND value ${IN_LIST}`)
    .get(blocId, condition.key, jsonList(condition.values)) as { n: number }).n;
}

/** Records a walk in time order would cover, from the day counters. */
function walked(sql: Statements, filter: RecordFilter): number {
  const { segment, fromDay, toDay } = walkedSegment(filter);
  return (sql.get("SELECT COALESCE(SUM(n), 0) AS n FROM day_counts WHERE bloc_id = ? AND segment = ? AND day >= ? AND day <= ?")
    .get(filter.blocId, segment, fromDay ?? "", toDay ?? "\uffff") as { n: number }).n;
}

/**
 * The field whose value index is to drive the query (../value-plan.ts), or undefined for
 * none. `rows` is how far into the matches an ordered read goes; absent when unordered.
 */
export function drivingField(sql: Statements, filter: RecordFilter, rows?: number): string | undefined {
  let best: { key: string; n: number } | undefined;
  for (const condition of candidates(filter)) {
    const n = matches(sql, filter.blocId, condition);
    if (!best || n < best.n) best = { key: condition.key, n };
  }
  return best && valuesDrive(best.n, walked(sql, filter), rows) ? best.key : undefined;
}

import type { MatchCondition, RecordFilter } from "../../domain/model.js";
import { ALL_TIME, EVERYONE, dayKey } from "../../domain/counting/keys.js";
import { candidates, valuesDrive, walkedSegment } from "../value-plan.js";
import { countsOf, periodCounts, scopes } from "./counters.js";
import type { Db } from "./driver.js";

/**
 * Records of the bloc holding one of the values, from the counters (everyone's all-time
 * scope), or undefined when that scope does not count values (a small bloc). A value
 * without a count is held by one record at most: counted as one.
 */
async function matches(db: Db, blocId: string, condition: MatchCondition): Promise<number | undefined> {
  const [all] = await scopes(db, blocId, [{ segment: EVERYONE.key, period: ALL_TIME }]);
  if (!all?.counted) return undefined;
  const values = [...new Set(condition.values)];
  const counted = await countsOf(db, [all.id], condition.key, values);
  return counted.reduce((n, [, m]) => n + m, 0) + (values.length - counted.length);
}

/**
 * The field whose value index is to drive the query (../value-plan.ts), or undefined for
 * none, from the counters: records holding each condition's values, and records a walk
 * in time order would cover. `rows` is how far into the matches an ordered read goes;
 * absent when unordered. In a bloc too small to count values, any value index serves.
 */
export async function drivingField(db: Db, filter: RecordFilter, rows?: number): Promise<string | undefined> {
  const conditions = candidates(filter);
  if (conditions.length === 0) return undefined;
  let best: { key: string; n: number } | undefined;
  for (const condition of conditions) {
    const n = await matches(db, filter.blocId, condition);
    if (n === undefined) return condition.key;
    if (!best || n < best.n) best = { key: condition.key, n };
  }
  const { segment, fromDay, toDay } = walkedSegment(filter);
  const walked = (await periodCounts(db, filter.blocId, [segment], dayKey(fromDay ?? "0000-00-00"), dayKey(toDay ?? "9999-99-99")))
    .reduce((sum, day) => sum + day.n, 0);
  return valuesDrive(best!.n, walked, rows) ? best!.key : undefined;
}

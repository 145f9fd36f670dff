import type { RecordFilter } from "../../domain/model.js";
import { candidates, valuesDrive, walkedSegment } from "../value-plan.js";
import { dayCounts, valueTotal } from "./counters.js";
import type { Db } from "./driver.js";

/**
 * The field whose value index is to drive the query (../value-plan.ts), or undefined for
 * none, from the counters: records holding each condition's values, and records a walk
 * in time order would cover. `rows` is how far into the matches an ordered read goes;
 * absent when unordered.
 */
export async function drivingField(db: Db, filter: RecordFilter, rows?: number): Promise<string | undefined> {
  const conditions = candidates(filter);
  if (conditions.length === 0) return undefined;
  let best: { key: string; n: number } | undefined;
  for (const condition of conditions) {
    const n = await valueTotal(db, filter.blocId, "", condition.key, condition.values);
    if (!best || n < best.n) best = { key: condition.key, n };
  }
  const { segment, fromDay, toDay } = walkedSegment(filter);
  const walked = (await dayCounts(db, filter.blocId, [segment], fromDay, toDay)).reduce((sum, day) => sum + Number(day.n), 0);
  return valuesDrive(Number(best!.n), walked, rows) ? best!.key : undefined;
}

import type { Timestamp } from "./clock.js";
import type { Bloc, ScanLimitPeriod, Visibility } from "./model.js";
import type { StoreReads } from "./ports/store.js";
import { scanCount } from "./record-queries.js";
import { periodStartOf } from "./calendar.js";

/** When the current period began: today, this ISO week (from Monday) or this month, at 00:00:00. */
export function periodStart(period: ScanLimitPeriod | null, now: Timestamp): Timestamp | null {
  return period === null ? null : periodStartOf(period, now);
}

/** What get-data reports under `countLimitInfo`. */
export interface CountLimitInfo {
  readonly scan_limit: number | null;
  readonly scan_limit_time_logged: string | null;
  readonly scans_counted: number;
  readonly limit_reached: 0 | 1;
}

/**
 * The scan-limit state of a bloc as a reader may see it: `scans_counted` counts only
 * the records the reader may see (in the current period); whether the bloc is full,
 * and since when, is the bloc's own state and the same for everyone who may read it.
 */
export async function countLimitInfo(view: StoreReads, now: Timestamp, bloc: Bloc, visibility: Visibility): Promise<CountLimitInfo> {
  const since = periodStart(bloc.scanLimitPeriod, now);
  const count = await scanCount(view, bloc.id, since, bloc.scanLimit, visibility);
  return {
    scan_limit: bloc.scanLimit,
    scan_limit_time_logged: count.reachedAt,
    scans_counted: count.counted,
    limit_reached: count.reached ? 1 : 0,
  };
}

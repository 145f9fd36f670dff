import { hourOf, periodsOfHour, segmentsOf, tierOf, type Counted, type Layout } from "../src/domain/counting/keys.js";

/**
 * The record count of every scope the rows fall in, as counter_scopes columns: what the
 * floors of bulk.ts and add-data-floor.ts write, the least an exact `count` of every window
 * and reader keeps. Tallied per segment and day, then each day's tally added to the periods
 * holding it (keys.ts). Hours are left out (the service keeps them only in days that count
 * their values), so that a floor errs on the side of less work.
 */
export function scopeCounts(rows: readonly (readonly Counted[])[], layout: Layout): { segments: string[]; periods: string[]; counts: number[] } {
  const daysBySegment = new Map<string, Map<string, number>>();
  for (const batch of rows) {
    for (const row of batch) {
      const day = `${hourOf(row.createdAt).slice(0, 10)} 00`;
      for (const segment of segmentsOf(row, layout)) {
        let days = daysBySegment.get(segment.key);
        if (!days) daysBySegment.set(segment.key, days = new Map<string, number>());
        days.set(day, (days.get(day) ?? 0) + 1);
      }
    }
  }
  const segments: string[] = [];
  const periods: string[] = [];
  const counts: number[] = [];
  for (const [segment, days] of daysBySegment) {
    const byPeriod = new Map<string, number>();
    for (const [day, n] of days) {
      for (const period of periodsOfHour(day)) {
        if (tierOf(period) !== "h") byPeriod.set(period, (byPeriod.get(period) ?? 0) + n);
      }
    }
    for (const [period, n] of byPeriod) {
      segments.push(segment);
      periods.push(period);
      counts.push(n);
    }
  }
  return { segments, periods, counts };
}

import type { Timestamp } from "./clock.js";

/*
 * The calendar every count and limit uses: days in the service's time zone, weeks
 * from Monday, months and years. Times are `YYYY-MM-DD HH:MM:SS` text, whose order is
 * their order in time.
 */

const DAY_MS = 86_400_000;

function dayMs(day: string): number {
  return Date.UTC(Number(day.slice(0, 4)), Number(day.slice(5, 7)) - 1, Number(day.slice(8, 10)));
}

function dayOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** The day (`YYYY-MM-DD`) `days` after (or before, when negative) `day`. */
export function addDays(day: string, days: number): string {
  return dayOf(dayMs(day) + days * DAY_MS);
}

/** The Monday (`YYYY-MM-DD`) of the week a day (`YYYY-MM-DD`) falls in. */
export function mondayOf(day: string): string {
  const ms = dayMs(day);
  return dayOf(ms - ((new Date(ms).getUTCDay() + 6) % 7) * DAY_MS);
}

/** The last day (`YYYY-MM-DD`) of a month (`YYYY-MM`). */
export function lastDayOf(month: string): string {
  const next = Date.UTC(Number(month.slice(0, 4)), Number(month.slice(5, 7)), 1);
  return dayOf(next - DAY_MS);
}

export const DAY_START = " 00:00:00";
export const DAY_END = " 23:59:59";

/** The first second of the period a scan limit counts in: today, this week (from Monday) or this month. */
export function periodStartOf(period: "day" | "week" | "month", now: Timestamp): Timestamp {
  const day = now.slice(0, 10);
  if (period === "day") return `${day}${DAY_START}`;
  if (period === "month") return `${day.slice(0, 8)}01${DAY_START}`;
  return `${mondayOf(day)}${DAY_START}`;
}

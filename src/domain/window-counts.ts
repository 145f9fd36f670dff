import type { RecordFilter } from "./model.js";
import type { DayCount, StoreReads, ValueCount, ValueCounts } from "../store/store.js";
import { dayCountsIn, mondayOf } from "./counters.js";

/*
 * Value counts over a date window, from the counters. Values are counted per segment,
 * field and calendar period (day, week from Monday, month, year: counters.ts periodsOf),
 * so a window is split into the fewest whole periods that hold exactly the records it
 * holds, and the days it cuts through are counted from their records. A period is whole
 * when every record of it (in the reader's segments) lies in the window, so "this month"
 * asked on the 20th is one month period: the days after today hold no records yet.
 * A window that is one period costs what an unwindowed answer costs (the top values are
 * read off an index); several periods are summed, which costs what those periods hold.
 */

const DAY_MS = 86_400_000;

function addDays(day: string, days: number): string {
  const ms = Date.UTC(Number(day.slice(0, 4)), Number(day.slice(5, 7)) - 1, Number(day.slice(8, 10))) + days * DAY_MS;
  return new Date(ms).toISOString().slice(0, 10);
}

/** A part of one day that the window cuts through: its records are counted one by one. */
export interface Edge {
  readonly from: string;
  readonly to: string;
}

export interface WindowPlan {
  /** Disjoint period keys whose records are exactly the window's records outside the edges. */
  readonly periods: readonly string[];
  readonly edges: readonly Edge[];
}

/**
 * The days whose records every period the window touches may hold: from the start of
 * the first day's year (or week, when that starts earlier) to the end of the last day's
 * year (or week). Open ends stay open.
 */
export function periodRange(fromDay: string | undefined, toDay: string | undefined): { from?: string; to?: string } {
  const range: { from?: string; to?: string } = {};
  if (fromDay !== undefined) {
    const yearStart = `${fromDay.slice(0, 4)}-01-01`;
    const weekStart = mondayOf(fromDay);
    range.from = weekStart < yearStart ? weekStart : yearStart;
  }
  if (toDay !== undefined) {
    const yearEnd = `${toDay.slice(0, 4)}-12-31`;
    const weekEnd = addDays(mondayOf(toDay), 6);
    range.to = weekEnd > yearEnd ? weekEnd : yearEnd;
  }
  return range;
}

const LEVELS: readonly ((day: string) => string)[] = [
  (day) => `y:${day.slice(0, 4)}`,
  (day) => `m:${day.slice(0, 7)}`,
  (day) => `w:${mondayOf(day)}`,
];

/**
 * Splits a window into periods and edges. `all` is records per day of the reader's
 * segments over periodRange (every day of the periods the window touches); `inside` is
 * records per day within the window (dayCountsIn: edges counted exactly). Larger periods
 * are taken first, each only when all its days with records are whole in the window and
 * not yet covered, so the periods never overlap.
 */
export function planPeriods(all: readonly DayCount[], inside: readonly DayCount[], window: { from?: string | undefined; to?: string | undefined }): WindowPlan {
  const full = new Map(all.map((d) => [d.day, d.n]));
  const whole = new Set<string>();
  const edges: Edge[] = [];
  for (const { day, n } of inside) {
    if (n === full.get(day)) { whole.add(day); continue; }
    const start = `${day} 00:00:00`;
    const end = `${day} 23:59:59`;
    edges.push({
      from: window.from !== undefined && window.from > start ? window.from : start,
      to: window.to !== undefined && window.to < end ? window.to : end,
    });
  }
  const covered = new Set<string>();
  const periods: string[] = [];
  for (const keyOf of LEVELS) {
    const daysOf = new Map<string, string[]>();
    for (const { day } of all) {
      const key = keyOf(day);
      const days = daysOf.get(key);
      if (days) days.push(day); else daysOf.set(key, [day]);
    }
    for (const [key, days] of daysOf) {
      if (days.every((day) => whole.has(day) && !covered.has(day))) {
        periods.push(key);
        for (const day of days) covered.add(day);
      }
    }
  }
  for (const day of whole) if (!covered.has(day)) periods.push(`d:${day}`);
  return { periods, edges };
}

/** Code-point order, as the engines order values (UTF-8 bytes, SQLite's BINARY and PostgreSQL's "C"). */
function byCodePoints(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/** Most frequent first, ties in code-point order. */
function rank(counts: Map<string, number>, limit: number): ValueCount[] {
  const ranked = [...counts].sort((a, b) => b[1] - a[1] || byCodePoints(a[0], b[0]));
  return limit > 0 ? ranked.slice(0, limit) : ranked;
}

/**
 * Value counts of `slugs` over the filter's window for a reader whose view is the union
 * of `segments` (coveringSegments), exact: whole periods from the counters, edges from
 * their records. For each field the `limit` most frequent (all when 0), as tallyValues
 * ranks them.
 */
export async function windowValueCounts(
  view: StoreReads, filter: RecordFilter, segments: readonly string[], slugs: readonly string[], limit: number,
): Promise<ValueCounts> {
  const range = periodRange(filter.from?.slice(0, 10), filter.to?.slice(0, 10));
  const [all, inside] = await Promise.all([
    view.dayCounts(filter.blocId, segments, range.from, range.to),
    dayCountsIn(view, filter, segments),
  ]);
  const { periods, edges } = planPeriods(all, inside, filter);
  const edgeCounts = new Map<string, Map<string, number>>(slugs.map((slug) => [slug, new Map()]));
  for (const edge of edges) {
    const tallied = await view.tallyValues({ ...filter, ...edge }, slugs, 0);
    for (const [slug, values] of tallied) {
      const counts = edgeCounts.get(slug)!;
      for (const [value, n] of values) {
        // A value too long to list comes back without its text, so it cannot be added to its periods' count.
        if (value === null) return view.tallyValues(filter, slugs, limit);
        counts.set(value, (counts.get(value) ?? 0) + n);
      }
    }
  }
  const result = new Map<string, readonly ValueCount[]>();
  for (const slug of slugs) {
    const edge = edgeCounts.get(slug)!;
    if (edge.size === 0) {
      result.set(slug, periods.length === 0 ? [] : await view.periodValues(filter.blocId, segments, slug, periods, limit));
      continue;
    }
    // A value the edges do not hold ranks among the periods' values as it does in the
    // answer, behind at most edge.size values the edges lift: so the periods' top
    // limit + edge.size, plus the periods' counts of the edges' values, decide the answer.
    const top = periods.length === 0 ? []
      : await view.periodValues(filter.blocId, segments, slug, periods, limit > 0 ? limit + edge.size : 0);
    if (top.some(([value]) => value === null)) return view.tallyValues(filter, slugs, limit);
    const merged = new Map<string, number>();
    for (const [value, n] of top) merged.set(value!, n);
    const inPeriods = periods.length === 0 ? []
      : await view.periodValues(filter.blocId, segments, slug, periods, 0, [...edge.keys()]);
    const periodCount = new Map<string | null, number>(inPeriods);
    for (const [value, n] of edge) merged.set(value, (periodCount.get(value) ?? 0) + n);
    result.set(slug, rank(merged, limit));
  }
  return result;
}

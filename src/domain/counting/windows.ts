import type { RecordFilter } from "../model.js";
import type { Timestamp } from "../clock.js";
import { DAY_END, DAY_START, addDays, mondayOf } from "../calendar.js";
import type { StoreReads } from "../ports/store.js";
import {
  ALL_TIME, TIERS, addSecond, dayKey, hourKey, periodsBetween, spanOf, subtractSecond, type Tier,
} from "./keys.js";

/*
 * How a date window is counted from the scopes. Record counts: whole days from day
 * scopes, whole hours of the days the window cuts through from hour scopes, and the
 * seconds of the hours it cuts through from the records (at most two hours). Value
 * counts: the window split into the fewest whole periods, larger first (planWindow),
 * each answered by its scope, and the seconds left at the ends counted from records.
 */

export interface Interval {
  readonly from: Timestamp;
  readonly to: Timestamp;
}

/** Records per day, ascending. */
export interface DayCount {
  readonly day: string;
  readonly n: number;
}

function sum(rows: readonly { readonly n: number }[]): number {
  return rows.reduce((total, row) => total + Number(row.n), 0);
}

/**
 * Records of a view (the union of `segments`; `filter` selects the same records) in any
 * interval whose ends are day or hour boundaries, or the window's own ends. Day and hour
 * scopes are read once per range and kept; records are counted only for cut hours.
 */
class RangeCounter {
  private readonly days = new Map<string, number>();
  private readonly daysRead: Interval[] = [];
  private readonly hours = new Map<string, Map<string, number>>();
  private readonly hourlyDays = new Map<string, boolean>();
  private readonly cut = new Map<string, number>();

  constructor(private readonly view: StoreReads, private readonly filter: RecordFilter, private readonly segments: readonly string[]) {}

  /** Reads the day scopes of [fromDay, toDay] (YYYY-MM-DD), once. */
  async readDays(fromDay: string, toDay: string): Promise<void> {
    if (this.daysRead.some((r) => r.from <= fromDay && r.to >= toDay)) return;
    for (const row of await this.view.counters.periodCounts(this.filter.blocId, this.segments, dayKey(fromDay), dayKey(toDay))) {
      this.days.set(row.period.slice(2), Number(row.n));
    }
    this.daysRead.push({ from: fromDay, to: toDay });
  }

  /** Days with records among those read, ascending. */
  knownDays(): DayCount[] {
    return [...this.days].filter(([, n]) => n > 0).sort(([a], [b]) => (a < b ? -1 : 1)).map(([day, n]) => ({ day, n }));
  }

  /** Whether a day keeps its hours (every segment's day scope counts values), read once. */
  async hourly(day: string): Promise<boolean> {
    let known = this.hourlyDays.get(day);
    if (known === undefined) {
      const scopes = await this.view.counters.scopes(this.filter.blocId, this.segments.map((segment) => ({ segment, period: dayKey(day) })));
      known = scopes.length > 0 && scopes.every((s) => s.counted);
      this.hourlyDays.set(day, known);
    }
    return known;
  }

  /** A day's records per hour; undefined when the day keeps no hours (then its records are few: counted one by one). */
  private async hoursOf(day: string): Promise<Map<string, number> | undefined> {
    if (!(await this.hourly(day))) return undefined;
    let hours = this.hours.get(day);
    if (!hours) {
      hours = new Map();
      for (const row of await this.view.counters.periodCounts(this.filter.blocId, this.segments, hourKey(`${day} 00`), hourKey(`${day} 23`))) {
        hours.set(row.period.slice(2), Number(row.n));
      }
      this.hours.set(day, hours);
    }
    return hours;
  }

  private async records(from: Timestamp, to: Timestamp): Promise<number> {
    const key = `${from}\u0000${to}`;
    let n = this.cut.get(key);
    if (n === undefined) {
      n = await this.view.records.countRecords({ ...this.filter, from, to });
      this.cut.set(key, n);
    }
    return n;
  }

  /** Records in [from, to] (both within days already read). */
  async count(from: Timestamp, to: Timestamp): Promise<number> {
    let n = 0;
    for (let day = from.slice(0, 10); day <= to.slice(0, 10); day = addDays(day, 1)) {
      const dayFrom = later(from, day + DAY_START);
      const dayTo = earlier(to, day + DAY_END);
      const records = this.days.get(day) ?? 0;
      if (records === 0) continue;
      if (dayFrom === day + DAY_START && dayTo === day + DAY_END) { n += records; continue; }
      const hours = await this.hoursOf(day);
      if (!hours) { n += await this.records(dayFrom, dayTo); continue; }
      for (const [hour, m] of hours) {
        const hourFrom = later(dayFrom, `${hour}:00:00`);
        const hourTo = earlier(dayTo, `${hour}:59:59`);
        if (hourFrom > hourTo) continue;
        n += hourFrom === `${hour}:00:00` && hourTo === `${hour}:59:59` ? m : await this.records(hourFrom, hourTo);
      }
    }
    return n;
  }
}

async function counterFor(view: StoreReads, filter: RecordFilter, segments: readonly string[]): Promise<RangeCounter> {
  const counter = new RangeCounter(view, filter, segments);
  await counter.readDays(filter.from?.slice(0, 10) ?? "0000-00-00", filter.to?.slice(0, 10) ?? "9999-99-99");
  return counter;
}

/** Records per day of the filter's view (the union of `segments`) within its window, the days it cuts counted exactly. */
export async function dayCountsIn(view: StoreReads, filter: RecordFilter, segments: readonly string[]): Promise<DayCount[]> {
  return daysOf(await counterFor(view, filter, segments), filter);
}

async function daysOf(counter: RangeCounter, filter: RecordFilter): Promise<DayCount[]> {
  const days: DayCount[] = [];
  const first = filter.from?.slice(0, 10) ?? "";
  const last = filter.to?.slice(0, 10) ?? "\uffff";
  for (const { day, n } of counter.knownDays()) {
    if (day < first || day > last) continue;
    const from = later(filter.from, day + DAY_START);
    const to = earlier(filter.to, day + DAY_END);
    const inside = from === day + DAY_START && to === day + DAY_END ? n : await counter.count(from, to);
    if (inside > 0) days.push({ day, n: inside });
  }
  return days;
}

/** Records of the filter's view (the union of `segments`) within its window. */
export async function countIn(view: StoreReads, filter: RecordFilter, segments: readonly string[]): Promise<number> {
  if (filter.from === undefined && filter.to === undefined) {
    return sum(await view.counters.scopes(filter.blocId, segments.map((segment) => ({ segment, period: ALL_TIME }))));
  }
  return sum(await dayCountsIn(view, filter, segments));
}

/** A window split into whole periods and the seconds left at its ends. */
export interface WindowPlan {
  /** Disjoint periods whose records (of the view) are exactly the window's, but for the edges'. */
  readonly periods: readonly string[];
  /** Intervals at the window's ends (within an hour, or within a day of few records), whose records are counted one by one. */
  readonly edges: readonly Interval[];
}

/**
 * Splits a window into the fewest whole periods, larger tiers first: a period is taken
 * when it lies inside what is left of the window, or when none of its records (of the
 * view) lie outside it — so "this month" asked on the 20th is the month, the days after
 * today holding no records yet. Periods never overlap.
 */
export async function planWindow(view: StoreReads, filter: RecordFilter, segments: readonly string[]): Promise<WindowPlan> {
  if (filter.from === undefined && filter.to === undefined) return { periods: [ALL_TIME], edges: [] };
  const counter = await counterFor(view, filter, segments);
  const days = await daysOf(counter, filter);
  if (days.length === 0) return { periods: [], edges: [] };
  const total = sum(await view.counters.scopes(filter.blocId, segments.map((segment) => ({ segment, period: ALL_TIME }))));
  if (sum(days) === total) return { periods: [ALL_TIME], edges: [] };
  // The window, narrowed to the days that hold its records.
  const lo = later(filter.from, `${days[0]!.day}${DAY_START}`);
  const hi = earlier(filter.to, `${days[days.length - 1]!.day}${DAY_END}`);
  // Every day of every period that may be taken: from the start of lo's year (or week) to the end of hi's.
  const first = `${lo.slice(0, 4)}-01-01`;
  const last = `${hi.slice(0, 4)}-12-31`;
  const monday = mondayOf(lo.slice(0, 10));
  const sunday = addDays(mondayOf(hi.slice(0, 10)), 6);
  await counter.readDays(monday < first ? monday : first, sunday > last ? sunday : last);
  const periods: string[] = [];
  let left: Interval[] = [{ from: lo, to: hi }];
  const recordsOf = async (period: string): Promise<number> => {
    const span = spanOf(period)!;
    return counter.count(span.from, span.to);
  };
  for (const tier of TIERS.slice(1) as Exclude<Tier, "a">[]) {
    const next: Interval[] = [];
    for (const interval of left) {
      // What is left within a day that keeps no hours is counted from its records (a few).
      if (tier === "h" && !(await counter.hourly(interval.from.slice(0, 10)))) { next.push(interval); continue; }
      const taken: Interval[] = [];
      for (const period of periodsBetween(tier, interval.from, interval.to)) {
        const span = spanOf(period)!;
        const within = { from: later(interval.from, span.from), to: earlier(interval.to, span.to) };
        const inside = within.from === span.from && within.to === span.to;
        if (inside || await recordsOf(period) === await counter.count(within.from, within.to)) {
          periods.push(period);
          taken.push(within);
        }
      }
      next.push(...uncovered(interval, taken));
    }
    left = next;
    if (left.length === 0) break;
  }
  return { periods, edges: left };
}

/** The parts of an interval no taken part covers (taken parts are in time order and disjoint). */
function uncovered(interval: Interval, taken: readonly Interval[]): Interval[] {
  const parts: Interval[] = [];
  let from = interval.from;
  for (const part of taken) {
    if (part.from > from) parts.push({ from, to: subtractSecond(part.from) });
    from = addSecond(part.to);
  }
  if (from <= interval.to) parts.push({ from, to: interval.to });
  return parts;
}

function later(a: Timestamp | undefined, b: Timestamp): Timestamp {
  return a !== undefined && a > b ? a : b;
}

function earlier(a: Timestamp | undefined, b: Timestamp): Timestamp {
  return a !== undefined && a < b ? a : b;
}

import type { FetchBlocClient } from "../api.js";
import { countFromFieldCounts } from "./count-matching.js";
import { VIEW_COUNT_CAP } from "./load-view.js";
import { activeFilters, dataWindow, hasFilters, reportWindow, type ViewQuery } from "./view-query.js";

/*
 * Records over time, for the chart above the table: per hour when the view covers one
 * day, per day otherwise (at most MAX_DAYS, the latest ones). Each bucket is one get-data
 * call of one record over the bucket's window, whose `count` the counters answer without
 * reading the records (an hour, a day), restrictions applied as everywhere. With value
 * filters on one field, the bucket's count is the sum of the chosen values' counts in
 * that window (exact); filters on several fields are counted from one streamed
 * one-column report of the whole window, up to VIEW_COUNT_CAP records.
 */

export const MAX_DAYS = 62;
/** Bucket requests in flight at once. */
const PARALLEL = 4;

export interface Bucket {
  /** Inclusive bounds, YYYY-MM-DD HH:MM:SS. */
  readonly start: string;
  readonly end: string;
  readonly count: number;
}

export interface Timeline {
  readonly unit: "hour" | "day";
  readonly buckets: readonly Bucket[];
  /** The window was longer than MAX_DAYS: only its last MAX_DAYS days are drawn. */
  readonly clipped: boolean;
}

function addDays(day: string, n: number): string {
  const date = new Date(`${day}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() + n);
  return date.toISOString().slice(0, 10);
}

function daysFrom(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000) + 1;
}

/** The buckets of a window of whole days, from its first to its last. */
export function bucketsOf(from: string, to: string): { unit: Timeline["unit"]; bounds: { start: string; end: string }[]; clipped: boolean } {
  if (from === to) {
    const bounds = Array.from({ length: 24 }, (_, hour) => {
      const h = String(hour).padStart(2, "0");
      return { start: `${from} ${h}:00:00`, end: `${from} ${h}:59:59` };
    });
    return { unit: "hour", bounds, clipped: false };
  }
  const days = daysFrom(from, to);
  const first = days > MAX_DAYS ? addDays(to, -(MAX_DAYS - 1)) : from;
  const bounds = Array.from({ length: Math.min(days, MAX_DAYS) }, (_, i) => {
    const day = addDays(first, i);
    return { start: `${day} 00:00:00`, end: `${day} 23:59:59` };
  });
  return { unit: "day", bounds, clipped: days > MAX_DAYS };
}

/** The view's window as whole days; an open end is the day of the first or last record it holds. */
async function daysOf(client: FetchBlocClient, blocId: string, query: Pick<ViewQuery, "from" | "to">): Promise<{ from: string; to: string } | undefined> {
  if (query.from && query.to) return { from: query.from, to: query.to };
  const ends = await Promise.all([false, true].map((reverse) => client.getData({ blocId, resultLimit: 1, reverse, ...dataWindow(query) })));
  const [newest, oldest] = ends.map((page) => page.records[0]?.created_at);
  if (newest === undefined || oldest === undefined) return undefined;
  return { from: query.from || oldest.slice(0, 10), to: query.to || newest.slice(0, 10) };
}

async function inTurn<T, R>(items: readonly T[], work: (item: T) => Promise<R>, signal: AbortSignal): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length && !signal.aborted) {
      const at = next;
      next += 1;
      results[at] = await work(items[at]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL, items.length) }, worker));
  return results;
}

const CREATED = /"created_at":"([^"]{19})"/g;

/** The creation times of the records the filters match in the window, streamed; undefined past `cap`. */
async function timesByReport(client: FetchBlocClient, blocId: string, query: Pick<ViewQuery, "from" | "to" | "filters">,
  cap: number, signal: AbortSignal): Promise<string[] | undefined> {
  const window = reportWindow(query);
  const response = await client.reportResponse({
    stationID: blocId, fieldsToReport: ["created_at"], ...(window ? { requestedReportData: window } : {}),
    dataFilteringData: { filterDataToQuery: activeFilters(query.filters) },
  }, signal);
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  const times: string[] = [];
  let carried = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const text = carried + decoder.decode(value, { stream: true });
    let end = 0;
    for (const match of text.matchAll(CREATED)) {
      times.push(match[1]!);
      end = match.index + match[0].length;
    }
    // What follows the last whole time may be the start of the next one.
    carried = text.slice(Math.max(end, text.length - 40));
    if (times.length > cap) {
      await reader.cancel();
      return undefined;
    }
  }
  return times;
}

/** The chart's buckets for the view's window and filters; undefined when the view holds no record. */
export async function loadTimeline(client: FetchBlocClient, blocId: string, query: Pick<ViewQuery, "from" | "to" | "filters">,
  signal: AbortSignal): Promise<Timeline | undefined> {
  const days = await daysOf(client, blocId, query);
  if (!days) return undefined;
  const { unit, bounds, clipped } = bucketsOf(days.from, days.to);
  const filters = activeFilters(query.filters);
  const one = hasFilters(filters) && Object.keys(filters).length === 1;
  if (!hasFilters(filters) || one) {
    const counts = await inTurn(bounds, async ({ start, end }) => {
      const page = await client.getData({ blocId, resultLimit: 1, fromDate: start, toDate: end });
      return one ? countFromFieldCounts(filters, page) : page.count;
    }, signal);
    if (counts.every((n) => n !== undefined)) {
      return { unit, clipped, buckets: bounds.map((b, i) => ({ ...b, count: counts[i]! })) };
    }
  }
  const first = bounds[0]!.start.slice(0, 10);
  const last = bounds[bounds.length - 1]!.start.slice(0, 10);
  const times = await timesByReport(client, blocId, { from: first, to: last, filters }, VIEW_COUNT_CAP, signal);
  if (!times) throw new Error(`more than ${VIEW_COUNT_CAP.toLocaleString("en")} records match: narrow the dates to chart them`);
  const counts = bounds.map(() => 0);
  for (const time of times) {
    const at = unit === "hour" ? Number(time.slice(11, 13)) : daysFrom(first, time.slice(0, 10)) - 1;
    if (at >= 0 && at < counts.length) counts[at]! += 1;
  }
  return { unit, clipped, buckets: bounds.map((b, i) => ({ ...b, count: counts[i]! })) };
}

import type { FetchBlocClient } from "../api.js";
import { activeFilters, dataWindow, type ViewQuery } from "./view-query.js";

/*
 * Records over time, for the chart above the table: per hour when the view covers one
 * day, per day otherwise (at most MAX_DAYS, the latest ones), from the service's timeline
 * endpoint, which counts each bucket as get-data counts (the counters answer an hour or a
 * day without reading its records), restrictions and value filters applied. A window left
 * open at one end runs to the day of the first or last record the view holds.
 */

export const MAX_DAYS = 62;

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

/** How a window of whole days is drawn: per hour for one day, else per day from its first (or MAX_DAYS before its last) day. */
function planOf(from: string, to: string): { unit: Timeline["unit"]; from: string; clipped: boolean } {
  if (from === to) return { unit: "hour", from, clipped: false };
  const clipped = daysFrom(from, to) > MAX_DAYS;
  return { unit: "day", from: clipped ? addDays(to, -(MAX_DAYS - 1)) : from, clipped };
}

/** The view's window as whole days; an open end is the day of the first or last record it holds. */
async function daysOf(client: FetchBlocClient, blocId: string, query: Pick<ViewQuery, "from" | "to">): Promise<{ from: string; to: string } | undefined> {
  if (query.from && query.to) return { from: query.from, to: query.to };
  const ends = await Promise.all([false, true].map((reverse) => client.getData({ blocId, resultLimit: 1, reverse, ...dataWindow(query) })));
  const [newest, oldest] = ends.map((page) => page.records[0]?.created_at);
  if (newest === undefined || oldest === undefined) return undefined;
  return { from: query.from || oldest.slice(0, 10), to: query.to || newest.slice(0, 10) };
}

/** The chart's buckets for the view's window and filters; undefined when the view holds no record. */
export async function loadTimeline(client: FetchBlocClient, blocId: string, query: Pick<ViewQuery, "from" | "to" | "filters">): Promise<Timeline | undefined> {
  const days = await daysOf(client, blocId, query);
  if (!days) return undefined;
  const { unit, from, clipped } = planOf(days.from, days.to);
  const answer = await client.timeline({ blocId, from, to: days.to, unit, filters: activeFilters(query.filters) });
  return { unit, clipped, buckets: answer.buckets };
}

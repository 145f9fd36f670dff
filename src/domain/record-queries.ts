import type { Order, RecordFilter, StoredRecord, Visibility } from "./model.js";
import type { ProjectedRow, RowColumn, RowPage, StoreReads } from "./ports/store.js";
import { countVisibleRecords, dayCounts, simplify } from "./counting/answers.js";
import type { DayCount } from "./counting/windows.js";

export { countVisibleRecords, countValues } from "./counting/answers.js";

/**
 * How record reads are answered, the same on every engine: pages by a seek on the
 * counters wherever they cover the filter (so that a deep page costs what the page
 * costs, not what the bloc holds); counts in counting/answers.ts.
 */

/**
 * Where the counters cover the filter, a deep offset becomes a seek: the per-day counts
 * find the day the page starts in, and only that day's records are skipped one by one.
 * Returns the narrowed filter and the offset left within it, or undefined when the
 * offset lies past the last record.
 */
async function seek(view: StoreReads, filter: RecordFilter, page: RowPage): Promise<{ filter: RecordFilter; page: RowPage } | undefined> {
  if (page.offset === 0 || page.after !== undefined) return { filter, page };
  const days = await dayCounts(view, filter);
  if (!days) return { filter, page };
  const start = planSeek(days, page.offset, page.order);
  if (!start) return undefined;
  const bounded: RecordFilter = page.order === "newest"
    ? { ...filter, to: earlier(filter.to, `${start.day} 23:59:59`) }
    : { ...filter, from: later(filter.from, `${start.day} 00:00:00`) };
  return { filter: bounded, page: { ...page, offset: start.offset } };
}

/**
 * The day (of `days`, ascending) in which the record at `offset` lies when reading in
 * `order`, and the offset left within that day; undefined past the last record.
 */
export function planSeek(days: readonly DayCount[], offset: number, order: Order): { day: string; offset: number } | undefined {
  let left = offset;
  const ordered = order === "newest" ? [...days].reverse() : days;
  for (const { day, n } of ordered) {
    if (left < n) return { day, offset: left };
    left -= n;
  }
  return undefined;
}

function earlier(a: string | undefined, b: string): string {
  return a !== undefined && a < b ? a : b;
}

function later(a: string | undefined, b: string): string {
  return a !== undefined && a > b ? a : b;
}

export async function listVisibleRecords(view: StoreReads, filter: RecordFilter, page: RowPage): Promise<StoredRecord[]> {
  if (filter.visibility?.none) return [];
  const sought = await seek(view, await simplify(view, filter), page);
  return sought ? view.records.listRecords(sought.filter, sought.page) : [];
}

export async function listVisibleRows(view: StoreReads, filter: RecordFilter, page: RowPage, columns: readonly RowColumn[]): Promise<ProjectedRow[]> {
  if (filter.visibility?.none) return [];
  const sought = await seek(view, await simplify(view, filter), page);
  return sought ? view.records.listRows(sought.filter, sought.page, columns) : [];
}

/** Records of the bloc created at or after `since` (ever when null) that the visibility admits. */
export function countSince(view: StoreReads, blocId: string, since: string | null, visibility: Visibility | undefined): Promise<number> {
  return countVisibleRecords(view, { blocId, ...(visibility ? { visibility } : {}), ...(since === null ? {} : { from: since }) });
}

export interface ScanCount {
  /** Records since the period began (all, or those the reader may see). */
  readonly counted: number;
  /** Whether the whole bloc has reached the limit, and when the limit-th record came. */
  readonly reached: boolean;
  readonly reachedAt: string | null;
}

export async function scanCount(
  view: StoreReads, blocId: string, since: string | null, limit: number | null, visibility: Visibility | undefined,
): Promise<ScanCount> {
  const total = await countSince(view, blocId, since, undefined);
  const counted = visibility === undefined ? total : await countSince(view, blocId, since, visibility);
  const reached = limit !== null && total >= limit;
  let reachedAt: string | null = null;
  if (reached) {
    const filter: RecordFilter = { blocId, ...(since === null ? {} : { from: since }) };
    const [row] = await listVisibleRows(view, filter, { order: "oldest", limit: 1, offset: limit - 1 }, []);
    reachedAt = row?.createdAt ?? null;
  }
  return { counted, reached, reachedAt };
}

import type { Order, RecordFilter, StoredRecord, Visibility } from "./model.js";
import type { DayCount, ProjectedRow, RowColumn, RowPage, StoreReads, ValueCount, ValueCounts } from "../store/store.js";
import { coveringSegments, dayCountsIn, profileSlugsOf, simplify } from "./counters.js";
import { windowValueCounts } from "./window-counts.js";

/**
 * How record reads are answered, the same on every engine: from the counters wherever
 * they cover the filter (so that counts, value counts and deep pages cost what the
 * answer costs, not what the bloc holds), from the records otherwise.
 */

async function profileSlugs(view: StoreReads, blocId: string): Promise<string[]> {
  return profileSlugsOf((await view.findBloc(blocId))?.fields ?? []);
}

export async function countRecords(view: StoreReads, given: RecordFilter): Promise<number> {
  if (given.visibility?.none) return 0;
  const filter = await simplify(view, given);
  const segments = coveringSegments(filter, await profileSlugs(view, filter.blocId));
  if (!segments) return view.countRecords(filter);
  return (await dayCountsIn(view, filter, segments)).reduce((sum, day) => sum + day.n, 0);
}

/**
 * Where the counters cover the filter, a deep offset becomes a seek: the per-day counts
 * find the day the page starts in, and only that day's records are skipped one by one.
 * Returns the narrowed filter and the offset left within it, or undefined when the
 * offset lies past the last record.
 */
async function seek(view: StoreReads, filter: RecordFilter, page: RowPage): Promise<{ filter: RecordFilter; page: RowPage } | undefined> {
  if (page.offset === 0 || page.after !== undefined) return { filter, page };
  const segments = coveringSegments(filter, await profileSlugs(view, filter.blocId));
  if (!segments) return { filter, page };
  const start = planSeek(await dayCountsIn(view, filter, segments), page.offset, page.order);
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

export async function listRecords(view: StoreReads, filter: RecordFilter, page: RowPage): Promise<StoredRecord[]> {
  if (filter.visibility?.none) return [];
  const sought = await seek(view, await simplify(view, filter), page);
  return sought ? view.listRecords(sought.filter, sought.page) : [];
}

export async function listRows(view: StoreReads, filter: RecordFilter, page: RowPage, columns: readonly RowColumn[]): Promise<ProjectedRow[]> {
  if (filter.visibility?.none) return [];
  const sought = await seek(view, await simplify(view, filter), page);
  return sought ? view.listRows(sought.filter, sought.page, columns) : [];
}

/** Value counts per field: the `limit` most frequent values of each (all when 0), long ones as null. */
export async function countValues(view: StoreReads, given: RecordFilter, slugs: readonly string[], limit: number): Promise<ValueCounts> {
  if (given.visibility?.none) return new Map(slugs.map((slug) => [slug, []]));
  const filter = await simplify(view, given);
  const segments = coveringSegments(filter, await profileSlugs(view, filter.blocId));
  if (!segments) return view.tallyValues(filter, slugs, limit);
  if (filter.from !== undefined || filter.to !== undefined) return windowValueCounts(view, filter, segments, slugs, limit);
  const counts = new Map<string, readonly ValueCount[]>();
  for (const slug of slugs) counts.set(slug, await view.valueTotals(filter.blocId, segments, slug, limit));
  return counts;
}

/** Records of the bloc created at or after `since` (ever when null) that the visibility admits. */
export function countSince(view: StoreReads, blocId: string, since: string | null, visibility: Visibility | undefined): Promise<number> {
  return countRecords(view, { blocId, ...(visibility ? { visibility } : {}), ...(since === null ? {} : { from: since }) });
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
    const [row] = await listRows(view, filter, { order: "oldest", limit: 1, offset: limit - 1 }, []);
    reachedAt = row?.createdAt ?? null;
  }
  return { counted, reached, reachedAt };
}

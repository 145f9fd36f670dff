import type { MatchCondition, RecordFilter } from "./model.js";
import type { DayCount, StoreReads } from "../store/store.js";
import { ownValue } from "./values.js";

/**
 * The counters' rules, the same for every engine. Each bloc keeps records per segment
 * and day, and values per segment and field, changed in the transaction of every
 * write. A segment is a set of records some reader sees: '' (all), 'u:<user id>' (one
 * owner's) or 'p:<slug>:<value>' (those holding one value of a profile-filtered field).
 */

/** The part of a record the counters follow. */
export interface Counted {
  readonly blocId: string;
  readonly createdAt: string;
  readonly userId: string;
  readonly values: Readonly<Record<string, string>>;
}

const DAY_START = " 00:00:00";
const DAY_END = " 23:59:59";

/** The segments a record belongs to. */
export function segmentsOf(record: Counted, profileSlugs: readonly string[]): string[] {
  const segments = ["", `u:${record.userId}`];
  for (const slug of profileSlugs) {
    const value = ownValue(record.values, slug) ?? "";
    if (value !== "") segments.push(`p:${slug}:${value}`);
  }
  return segments;
}

/** The slugs of a bloc's profile-filtered fields, whose values make segments. */
export function profileSlugsOf(fields: readonly { slug: string; applyProfileFilter: boolean }[]): string[] {
  return fields.filter((f) => f.applyProfileFilter).map((f) => f.slug);
}

/** A day counter's key and change: bloc, segment, day, n. */
export type DayDelta = readonly [string, string, string, number];
/** A value counter's key and change: bloc, segment, slug, value, n. */
export type ValueDelta = readonly [string, string, string, string, number];

/**
 * Changes to the counters, gathered in memory and written once at commit: a group
 * commit or an update of many records touches each counter row once, not once per record.
 */
export class CounterDeltas {
  private readonly dayMap = new Map<string, [string, string, string, number]>();
  private readonly valueMap = new Map<string, [string, string, string, string, number]>();

  /** A whole record enters (1) or leaves (-1) its segments. */
  add(record: Counted, profileSlugs: readonly string[], sign: 1 | -1): void {
    const day = record.createdAt.slice(0, 10);
    for (const segment of segmentsOf(record, profileSlugs)) {
      this.bumpDay(record.blocId, segment, day, sign);
      for (const [slug, value] of Object.entries(record.values)) {
        if (value !== "") this.bumpValue(record.blocId, segment, slug, value, sign);
      }
    }
  }

  /** One value of a record that stays in the same segments enters or leaves their counts. */
  addValue(record: Counted, profileSlugs: readonly string[], slug: string, value: string, sign: 1 | -1): void {
    if (value === "") return;
    for (const segment of segmentsOf(record, profileSlugs)) this.bumpValue(record.blocId, segment, slug, value, sign);
  }

  /** Adds `n` to one day counter (a bulk load's counts, counted elsewhere by segmentsOf). */
  addCount(blocId: string, segment: string, day: string, n: number): void {
    this.bumpDay(blocId, segment, day, n);
  }

  /** Adds `n` to one value counter (a bulk load's counts, counted elsewhere by segmentsOf). */
  addValueCount(blocId: string, segment: string, slug: string, value: string, n: number): void {
    this.bumpValue(blocId, segment, slug, value, n);
  }

  /** Takes in another set of changes (a unit of a group commit that succeeded). */
  merge(other: CounterDeltas): void {
    for (const [bloc, segment, day, n] of other.dayMap.values()) this.bumpDay(bloc, segment, day, n);
    for (const [bloc, segment, slug, value, n] of other.valueMap.values()) this.bumpValue(bloc, segment, slug, value, n);
  }

  /** Records these changes add to a bloc (all segments) on `sinceDay` and later, or ever when null. */
  recordsSince(blocId: string, sinceDay: string | null): number {
    let n = 0;
    for (const [bloc, segment, day, change] of this.dayMap.values()) {
      if (bloc === blocId && segment === "" && (sinceDay === null || day >= sinceDay)) n += change;
    }
    return n;
  }

  /** Day changes that are not zero, ordered by key (so that writers lock counter rows in one order). */
  days(): DayDelta[] {
    return [...this.dayMap.values()].filter((d) => d[3] !== 0).sort(byKey);
  }

  /** Value changes that are not zero, ordered by key. */
  values(): ValueDelta[] {
    return [...this.valueMap.values()].filter((d) => d[4] !== 0).sort(byKey);
  }

  clear(): void {
    this.dayMap.clear();
    this.valueMap.clear();
  }

  get empty(): boolean {
    return this.dayMap.size === 0 && this.valueMap.size === 0;
  }

  private bumpDay(bloc: string, segment: string, day: string, n: number): void {
    // NUL cannot occur in the parts (JSON text), so joining with it is unambiguous and cheaper than JSON.
    const id = `${bloc}\u0000${segment}\u0000${day}`;
    const entry = this.dayMap.get(id);
    if (entry) entry[3] += n; else this.dayMap.set(id, [bloc, segment, day, n]);
  }

  private bumpValue(bloc: string, segment: string, slug: string, value: string, n: number): void {
    const id = `${bloc}\u0000${segment}\u0000${slug}\u0000${value}`;
    const entry = this.valueMap.get(id);
    if (entry) entry[4] += n; else this.valueMap.set(id, [bloc, segment, slug, value, n]);
  }
}

function byKey(a: readonly (string | number)[], b: readonly (string | number)[]): number {
  for (let i = 0; i < a.length - 1; i += 1) {
    if (a[i]! < b[i]!) return -1;
    if (a[i]! > b[i]!) return 1;
  }
  return 0;
}

/**
 * The disjoint segments whose union is exactly what the filter selects, or undefined
 * when the counters cannot answer (value conditions, or an owner and a profile at once).
 */
export function coveringSegments(filter: RecordFilter, profileSlugs: readonly string[]): string[] | undefined {
  if ((filter.match ?? []).some((c) => c.values.length > 0) || filter.visibility?.none) return undefined;
  const owner = filter.visibility?.ownerId;
  const conditions: readonly MatchCondition[] = filter.visibility?.match ?? [];
  if (conditions.length === 0) return [owner === undefined ? "" : `u:${owner}`];
  const [condition] = conditions;
  if (owner !== undefined || conditions.length > 1 || condition!.values.includes("")) return undefined;
  if (!profileSlugs.includes(condition!.key)) return undefined;
  return [...new Set(condition!.values)].map((value) => `p:${condition!.key}:${value}`);
}

/** Records of the bloc, all segments, from the counters. */
async function total(view: StoreReads, blocId: string): Promise<number> {
  return (await view.dayCounts(blocId, [""], undefined, undefined)).reduce((sum, d) => sum + d.n, 0);
}

/** Profile lists longer than this are not checked against the counters (one lookup would list them all). */
const SIMPLIFY_MAX_VALUES = 500;

/**
 * Drops visibility conditions that every record of the bloc meets, such as a profile
 * filter listing every site the bloc's records hold: the counters then cover the
 * filter. A record without a value never meets a condition, so it keeps it.
 */
export async function simplify(view: StoreReads, filter: RecordFilter): Promise<RecordFilter> {
  const conditions = filter.visibility?.match;
  if (!conditions || conditions.length === 0) return filter;
  const all = await total(view, filter.blocId);
  const kept: MatchCondition[] = [];
  for (const condition of conditions) {
    if (condition.values.length === 0 || condition.values.length > SIMPLIFY_MAX_VALUES ||
      (await view.valueTotal(filter.blocId, "", condition.key, condition.values)) !== all) {
      kept.push(condition);
    }
  }
  return kept.length === conditions.length ? filter : { ...filter, visibility: { ...filter.visibility, match: kept } };
}

/**
 * Records per day (ascending) of the given segments within the filter's window: whole
 * days from the counters, the window's first and last day counted exactly from the
 * records when only partly inside.
 */
export async function dayCountsIn(view: StoreReads, filter: RecordFilter, segments: readonly string[]): Promise<DayCount[]> {
  const rows = await view.dayCounts(filter.blocId, segments, filter.from?.slice(0, 10), filter.to?.slice(0, 10));
  const days: DayCount[] = [];
  for (const row of rows) {
    const from = filter.from !== undefined && filter.from > row.day + DAY_START ? filter.from : undefined;
    const to = filter.to !== undefined && filter.to < row.day + DAY_END ? filter.to : undefined;
    const n = from === undefined && to === undefined ? row.n
      : await view.countRecords({ ...filter, from: from ?? row.day + DAY_START, to: to ?? row.day + DAY_END });
    if (n > 0) days.push({ day: row.day, n });
  }
  return days;
}

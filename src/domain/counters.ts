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
/** A period's value counter's key and change: bloc, segment, slug, period, value, n. */
export type PeriodDelta = readonly [string, string, string, string, string, number];

const DAY_MS = 86_400_000;

/** The Monday (`YYYY-MM-DD`) of the week a day (`YYYY-MM-DD`) falls in. */
export function mondayOf(day: string): string {
  const ms = Date.UTC(Number(day.slice(0, 4)), Number(day.slice(5, 7)) - 1, Number(day.slice(8, 10)));
  const sinceMonday = (new Date(ms).getUTCDay() + 6) % 7;
  return new Date(ms - sinceMonday * DAY_MS).toISOString().slice(0, 10);
}

/**
 * The calendar periods a day belongs to, as period keys: the day itself (`d:2026-03-05`),
 * its week, named by its Monday (`w:2026-03-02`), its month (`m:2026-03`) and its year
 * (`y:2026`). Values are counted per segment, field and period, so that a date window
 * made of whole periods is answered from a few counter rows (window-counts.ts).
 */
export function periodsOf(day: string): [string, string, string, string] {
  return [`d:${day}`, `w:${mondayOf(day)}`, `m:${day.slice(0, 7)}`, `y:${day.slice(0, 4)}`];
}

/**
 * One value counter's changes: its key, and its change per day of the records that made
 * it (nearly always one day: the first is kept inline, others in a map). Day changes
 * become the all-time change (their sum) and the period changes (periodsOf) when read.
 */
interface ValueEntry {
  readonly key: readonly [string, string, string, string];
  day: string;
  n: number;
  others: Map<string, number> | undefined;
}

function bumpEntry(entry: ValueEntry, day: string, n: number): void {
  if (entry.day === day) { entry.n += n; return; }
  entry.others ??= new Map();
  entry.others.set(day, (entry.others.get(day) ?? 0) + n);
}

/**
 * Changes to the counters, gathered in memory and written once at commit: a group
 * commit or an update of many records touches each counter row once, not once per record.
 */
export class CounterDeltas {
  private readonly dayMap = new Map<string, [string, string, string, number]>();
  private readonly valueMap = new Map<string, ValueEntry>();

  /** A whole record enters (1) or leaves (-1) its segments. */
  add(record: Counted, profileSlugs: readonly string[], sign: 1 | -1): void {
    const day = record.createdAt.slice(0, 10);
    for (const segment of segmentsOf(record, profileSlugs)) {
      this.bumpDay(record.blocId, segment, day, sign);
      for (const [slug, value] of Object.entries(record.values)) {
        if (value !== "") this.bumpValue(record.blocId, segment, slug, value, day, sign);
      }
    }
  }

  /** One value of a record that stays in the same segments enters or leaves their counts. */
  addValue(record: Counted, profileSlugs: readonly string[], slug: string, value: string, sign: 1 | -1): void {
    if (value === "") return;
    const day = record.createdAt.slice(0, 10);
    for (const segment of segmentsOf(record, profileSlugs)) this.bumpValue(record.blocId, segment, slug, value, day, sign);
  }

  /** Takes in another set of changes (a unit of a group commit that succeeded). */
  merge(other: CounterDeltas): void {
    for (const [bloc, segment, day, n] of other.dayMap.values()) this.bumpDay(bloc, segment, day, n);
    for (const { key: [bloc, segment, slug, value], day, n, others } of other.valueMap.values()) {
      this.bumpValue(bloc, segment, slug, value, day, n);
      for (const [otherDay, m] of others ?? []) this.bumpValue(bloc, segment, slug, value, otherDay, m);
    }
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
    const deltas: ValueDelta[] = [];
    for (const { key, n, others } of this.valueMap.values()) {
      let total = n;
      for (const m of others?.values() ?? []) total += m;
      if (total !== 0) deltas.push([...key, total]);
    }
    return deltas.sort(byKey);
  }

  /** Period value changes that are not zero, ordered by key. */
  periods(): PeriodDelta[] {
    const merged = new Map<string, [string, string, string, string, string, number]>();
    const periodsOfDay = new Map<string, readonly string[]>();
    const bump = ([bloc, segment, slug, value]: ValueEntry["key"], day: string, n: number): void => {
      let periods = periodsOfDay.get(day);
      if (!periods) periodsOfDay.set(day, periods = periodsOf(day));
      for (const period of periods) {
        const id = `${bloc}\u0000${segment}\u0000${slug}\u0000${period}\u0000${value}`;
        const entry = merged.get(id);
        if (entry) entry[5] += n; else merged.set(id, [bloc, segment, slug, period, value, n]);
      }
    };
    for (const { key, day, n, others } of this.valueMap.values()) {
      if (n !== 0) bump(key, day, n);
      for (const [otherDay, m] of others ?? []) if (m !== 0) bump(key, otherDay, m);
    }
    return [...merged.values()].filter((d) => d[5] !== 0).sort(byKey);
  }

  clear(): void {
    this.dayMap.clear();
    this.valueMap.clear();
  }

  /** Counter keys held (each value key's periods are made from it when written): what these changes hold in memory. */
  get size(): number {
    return this.dayMap.size + this.valueMap.size;
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

  private bumpValue(bloc: string, segment: string, slug: string, value: string, day: string, n: number): void {
    const id = `${bloc}\u0000${segment}\u0000${slug}\u0000${value}`;
    const entry = this.valueMap.get(id);
    if (entry) bumpEntry(entry, day, n); else this.valueMap.set(id, { key: [bloc, segment, slug, value], day, n, others: undefined });
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

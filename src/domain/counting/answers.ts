import type { MatchCondition, RecordCursor, RecordFilter } from "../model.js";
import { tooLongToList } from "../field-counts.js";
import type { StoreReads, ValueCount, ValueCounts } from "../ports/store.js";
import { ALL_TIME, EVERYONE, addSecond, layoutOf, ownerSegment, profileSegment, spanOf, type Segment } from "./keys.js";
import { countIn, dayCountsIn, planWindow, type DayCount, type Interval } from "./windows.js";
import { ownerHasScopes } from "./own-readers.js";

/*
 * How `count` and `fieldCounts` are answered, the same on every engine: from the scopes
 * (keys.ts) wherever the reader's view is one segment or a union of disjoint ones, from
 * the records otherwise. Values are ranked most frequent first, ties in code-point order;
 * values that one record alone holds (in the view and window) come after them, newest
 * first: they are found by reading the view's newest records, since no counter keeps them
 * (settle.ts), and a field of serial numbers lists the latest scans.
 */

/**
 * The disjoint segments whose union is exactly what the filter selects, or undefined
 * when the counters cannot answer (value conditions, or an owner and a profile at once).
 */
export function coveringSegments(filter: RecordFilter, profileSlugs: readonly string[]): Segment[] | undefined {
  if ((filter.match ?? []).some((c) => c.values.length > 0) || filter.visibility?.none) return undefined;
  const owner = filter.visibility?.ownerId;
  const conditions: readonly MatchCondition[] = filter.visibility?.match ?? [];
  if (conditions.length === 0) return [owner === undefined ? EVERYONE : ownerSegment(owner)];
  const [condition] = conditions;
  if (owner !== undefined || conditions.length > 1 || condition!.values.includes("")) return undefined;
  if (!profileSlugs.includes(condition!.key)) return undefined;
  return [...new Set(condition!.values)].map((value) => profileSegment(condition!.key, value));
}

/** Profile lists longer than this are not checked against the counters (one lookup would list them all). */
const SIMPLIFY_MAX_VALUES = 500;

/** Records of a bloc holding one of `values` in `slug`, from the counters where they count it. */
async function holding(view: StoreReads, blocId: string, slug: string, values: readonly string[]): Promise<number> {
  const [all] = await view.counters.scopes(blocId, [{ segment: EVERYONE.key, period: ALL_TIME }]);
  if (!all?.counted) return view.records.countRecords({ blocId, match: [{ key: slug, values }] });
  const counted = new Map(await view.counters.countsOf([all.id], slug, values));
  // A value without a count is held by one record or none.
  const rest = values.filter((value) => !counted.has(value));
  const once = rest.length === 0 ? [] : await view.counters.holderCounts(blocId, rest.map((value) => ({ slug, value })), 1);
  return [...counted.values()].reduce((n, m) => n + m, 0) + once.reduce((n, m) => n + m, 0);
}

/**
 * Drops visibility conditions that every record of the bloc meets, such as a profile
 * filter listing every site the bloc's records hold: the counters then cover the
 * filter. A record without a value never meets a condition, so it keeps it.
 */
export async function simplify(view: StoreReads, filter: RecordFilter): Promise<RecordFilter> {
  const conditions = filter.visibility?.match;
  if (!conditions || conditions.length === 0) return filter;
  const all = await countIn(view, { blocId: filter.blocId }, [EVERYONE.key]);
  const kept: MatchCondition[] = [];
  for (const condition of conditions) {
    if (condition.values.length === 0 || condition.values.length > SIMPLIFY_MAX_VALUES ||
      (await holding(view, filter.blocId, condition.key, [...new Set(condition.values)])) !== all) {
      kept.push(condition);
    }
  }
  return kept.length === conditions.length ? filter : { ...filter, visibility: { ...filter.visibility, match: kept } };
}

async function segmentsFor(view: StoreReads, filter: RecordFilter): Promise<Segment[] | undefined> {
  const bloc = await view.blocs.findBloc(filter.blocId);
  if (!bloc) return undefined;
  // An owner no reader sees as `own` has no scopes (keys.ts, keepsScopes): such a view is counted from its records. So is
  // one whose all-time scope is missing: a reader whose access was read just before the owner's restriction changed
  // (the change drops or rebuilds the owner's scopes: settle.ts, followOwner) gets an exact answer, only a slower one.
  const owner = filter.visibility?.ownerId;
  if (owner !== undefined && !(await ownerHasScopes(view, bloc, owner)
    && (await view.counters.scopes(bloc.id, [{ segment: ownerSegment(owner).key, period: ALL_TIME }])).length > 0)) return undefined;
  return coveringSegments(filter, layoutOf(bloc).profileSlugs);
}

function keys(segments: readonly Segment[]): string[] {
  return segments.map((s) => s.key);
}

export async function countVisibleRecords(view: StoreReads, given: RecordFilter): Promise<number> {
  if (given.visibility?.none) return 0;
  const filter = await simplify(view, given);
  const segments = await segmentsFor(view, filter);
  return segments ? countIn(view, filter, keys(segments)) : view.records.countRecords(filter);
}

/** Records per day (ascending) the filter selects, or undefined when the counters do not cover it. */
export async function dayCounts(view: StoreReads, filter: RecordFilter): Promise<DayCount[] | undefined> {
  const segments = await segmentsFor(view, filter);
  return segments ? dayCountsIn(view, filter, keys(segments)) : undefined;
}

/** Per field: values → count (long values, whose text is never read, apart), and how many records hold a value of it. */
interface Tally {
  readonly values: Map<string, number>;
  readonly longs: number[];
  filled: number;
}

function addTallies(into: Map<string, Tally>, counts: ValueCounts): void {
  for (const [slug, values] of counts) {
    const tally = into.get(slug)!;
    for (const [value, n] of values) {
      if (value === null) tally.longs.push(n); else tally.values.set(value, (tally.values.get(value) ?? 0) + n);
      tally.filled += n;
    }
  }
}

/** What ranks first: the values two or more records hold, and how many records hold a value only one holds. */
interface Ranked {
  readonly repeated: ValueCount[];
  readonly once: number;
}

function byCodePoints(a: string | null, b: string | null): number {
  if (a === null || b === null) return a === b ? 0 : a === null ? 1 : -1;
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

function rankRepeated(counts: Iterable<readonly [string | null, number]>): ValueCount[] {
  return [...counts].filter(([, n]) => n >= 2).sort((a, b) => b[1] - a[1] || byCodePoints(a[0], b[0]));
}

/** Reads of the newest records a tail of single values may take, per value to list. */
const TAIL_READS_PER_VALUE = 4;
const TAIL_PAGE = 500;

/**
 * Values one record alone holds in the filter's view, newest record first, for each field
 * that needs some: read off the newest records, skipping the values that rank before
 * them. The reads are bounded; a field whose values were not all found ends with a null
 * entry (a value not listed).
 */
async function singles(view: StoreReads, filter: RecordFilter, needs: Map<string, { skip: ReadonlySet<string | null>; want: number; left: number }>,
  limit: number): Promise<Map<string, ValueCount[]>> {
  const found = new Map<string, ValueCount[]>([...needs.keys()].map((slug) => [slug, []]));
  const open = new Set([...needs].filter(([, need]) => need.want > 0 && need.left > 0).map(([slug]) => slug));
  let budget = Math.max(TAIL_PAGE, limit * TAIL_READS_PER_VALUE);
  // Only the fields that need values are read (as one small JSON object per record).
  const columns = [...open].map((slug, i) => ({ key: String(i), source: { field: slug } }));
  const slugAt = [...open];
  let after: RecordCursor | undefined;
  while (open.size > 0 && budget > 0) {
    const page = await view.records.listRows(filter, { order: "newest", limit: Math.min(TAIL_PAGE, budget), offset: 0, after }, columns);
    for (const row of page) {
      const values = JSON.parse(row.json) as Record<string, string>;
      for (let i = 0; i < slugAt.length; i += 1) {
        const slug = slugAt[i]!;
        if (!open.has(slug)) continue;
        const value = values[String(i)] ?? "";
        const need = needs.get(slug)!;
        if (value === "" || need.skip.has(value)) continue;
        found.get(slug)!.push([tooLongToList(value) ? null : value, 1]);
        need.want -= 1;
        need.left -= 1;
        if (need.want <= 0 || need.left <= 0) open.delete(slug);
      }
      if (open.size === 0) break;
    }
    budget -= page.length;
    if (page.length < TAIL_PAGE) break;
    const last = page[page.length - 1]!;
    after = { createdAt: last.createdAt, id: last.id };
  }
  for (const slug of open) found.get(slug)!.push([null, 1]);
  return found;
}

/** The listing of each field: repeated values ranked, then single values newest first, at most `limit`. */
async function finish(view: StoreReads, filter: RecordFilter, ranked: Map<string, Ranked>, limit: number): Promise<ValueCounts> {
  const needs = new Map<string, { skip: Set<string | null>; want: number; left: number }>();
  for (const [slug, { repeated, once }] of ranked) {
    if (repeated.length < limit && once > 0) {
      needs.set(slug, { skip: new Set(repeated.map(([value]) => value)), want: limit - repeated.length, left: once });
    }
  }
  const tails = needs.size === 0 ? new Map<string, ValueCount[]>() : await singles(view, filter, needs, limit);
  const result = new Map<string, readonly ValueCount[]>();
  for (const [slug, { repeated }] of ranked) result.set(slug, [...repeated.slice(0, limit), ...(tails.get(slug) ?? [])]);
  return result;
}

/** Value counts of the filter's records, each field's values counted from the records. */
async function fromRecords(view: StoreReads, filter: RecordFilter, slugs: readonly string[], limit: number): Promise<ValueCounts> {
  const counts = await view.records.tallyValues(filter, slugs, 0);
  const ranked = new Map<string, Ranked>();
  for (const slug of slugs) {
    const values = counts.get(slug) ?? [];
    ranked.set(slug, { repeated: rankRepeated(values), once: values.filter(([, n]) => n === 1).length });
  }
  return finish(view, filter, ranked, limit);
}

/**
 * Value counts per field: per field at most `limit` values (all when 0), the values two
 * or more records hold by count then code-point order, then the values one record holds,
 * newest first; long values as null.
 */
export async function countValues(view: StoreReads, given: RecordFilter, slugs: readonly string[], limit: number): Promise<ValueCounts> {
  if (given.visibility?.none) return new Map(slugs.map((slug) => [slug, []]));
  const most = limit > 0 ? limit : Number.MAX_SAFE_INTEGER;
  const filter = await simplify(view, given);
  const segments = await segmentsFor(view, filter);
  if (!segments) return fromRecords(view, filter, slugs, most);
  const plan = await planWindow(view, filter, keys(segments));
  const scopes = await view.counters.scopes(filter.blocId, plan.periods.flatMap((period) => segments.map((s) => ({ segment: s.key, period }))));
  const counted = scopes.filter((s) => s.counted).map((s) => s.id);
  const countedRecords = scopes.filter((s) => s.counted).reduce((n, s) => n + s.n, 0);
  // What no counter holds: the periods' scopes that do not count values, and the window's edges.
  const tallied: TallyPart[] = [];
  for (const period of plan.periods) {
    const those = scopes.filter((s) => s.period === period);
    const uncounted = those.filter((s) => !s.counted);
    if (uncounted.length === 0) continue;
    const span = spanOf(period);
    const within = span && { from: later(filter.from, span.from), to: earlier(filter.to, span.to) };
    if (uncounted.length === those.length) tallied.push({ segment: undefined, within });
    else for (const s of uncounted) tallied.push({ segment: segments.find((g) => g.key === s.segment), within });
  }
  for (const edge of plan.edges) tallied.push({ segment: undefined, within: edge });
  const tallies = new Map<string, Tally>(slugs.map((slug) => [slug, { values: new Map(), longs: [], filled: 0 }]));
  for (const part of joined(tallied)) {
    const base: RecordFilter = part.segment ? { blocId: filter.blocId, visibility: part.segment.visibility } : filter;
    const { from: _from, to: _to, ...rest } = base;
    addTallies(tallies, await view.records.tallyValues({ ...rest, ...(part.within ?? {}) }, slugs, 0));
  }
  const ranked = new Map<string, Ranked>();
  for (const slug of slugs) {
    const tally = tallies.get(slug)!;
    const merged: [string | null, number][] = [];
    let filled = tally.filled;
    if (counted.length > 0) {
      const texts = [...tally.values.keys()];
      // A value the tallies hold may count once in the scopes, which repeatedValues leaves out: countsOf has it.
      const inScopes = new Map(await view.counters.countsOf(counted, slug, [...texts, ""]));
      // The scopes keep the records holding no value of the field.
      filled += countedRecords - (inScopes.get("") ?? 0);
      inScopes.delete("");
      for (const [value, n] of await view.counters.repeatedValues(counted, slug, limit > 0 ? limit + texts.length : 0)) {
        if (value === null || !tally.values.has(value)) merged.push([value, n]);
      }
      for (const [value, n] of tally.values) merged.push([value, n + (inScopes.get(value) ?? 0)]);
    } else {
      merged.push(...tally.values);
    }
    // A long value's counts in the scopes cannot be matched with its tallies (its text is not read): each stands alone.
    for (const n of tally.longs) merged.push([null, n]);
    const repeated = rankRepeated(merged);
    ranked.set(slug, { repeated, once: Math.max(0, filled - repeated.reduce((n, [, m]) => n + m, 0)) });
  }
  return finish(view, filter, ranked, most);
}

/** Records of one segment (undefined: the filter's own view) within an interval (undefined: the whole view), to be counted one by one. */
interface TallyPart {
  readonly segment: Segment | undefined;
  readonly within: Interval | undefined;
}

/**
 * The parts, with those of one segment that touch (one ends the second before the next
 * begins) joined into one: the uncounted hours of a shift and its edges are then read
 * in one statement, not one per hour (8 of them for 06:00–14:00). Nothing lies between
 * two parts that touch, so the records read are the same.
 */
function joined(parts: readonly TallyPart[]): TallyPart[] {
  // The filter's own view, or one segment of it.
  const of = (part: TallyPart): string => (part.segment === undefined ? "" : `segment ${part.segment.key}`);
  const whole = parts.filter((part) => part.within === undefined);
  const timed = parts.filter((part): part is TallyPart & { within: Interval } => part.within !== undefined)
    .sort((a, b) => of(a).localeCompare(of(b)) || (a.within.from < b.within.from ? -1 : 1));
  const out: TallyPart[] = [...whole];
  let open: (TallyPart & { within: Interval }) | undefined;
  for (const part of timed) {
    if (open && of(open) === of(part) && addSecond(open.within.to) === part.within.from) {
      open = { segment: open.segment, within: { from: open.within.from, to: part.within.to } };
      continue;
    }
    if (open) out.push(open);
    open = part;
  }
  if (open) out.push(open);
  return out;
}

function later(a: string | undefined, b: string): string {
  return a !== undefined && a > b ? a : b;
}

function earlier(a: string | undefined, b: string): string {
  return a !== undefined && a < b ? a : b;
}

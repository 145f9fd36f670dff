import { lockBloc } from "../capabilities.js";
import type { StoredRecord } from "../model.js";
import type { TxViews } from "../ports/store.js";
import { CounterDeltas, type ValueEntry } from "./deltas.js";
import {
  ALL_TIME, countsValues, countsValuesAbove, EVERYONE, hourKey, keepsScopes, ownerSegment, readAsOwn, hourOf, layoutOf, periodsOfHour, scopeId, segmentsOf, spanOf, tierOf,
  type Layout, type OwnReaders, type Segment,
} from "./keys.js";
import type { Scope, ScopeKey, ValueCountChange } from "../ports/counters.js";
import { ownReaders } from "./own-readers.js";

/*
 * Writing a transaction's counter changes (deltas.ts), once, before it commits. Every
 * scope counts its records; an owner's segment has scopes only while a reader sees that
 * owner's records as their own (keys.ts, keepsScopes), so the changes of other owners'
 * segments are dropped here (followOwner below keeps an owner's scopes in step with their
 * restriction). A scope holding more than BLOC_COUNTED_ABOVE records (a quarter of it for an
 * hour: keys.ts) also counts its values — but only values that two or more records of the bloc hold: a value one
 * record alone holds (a serial number, an order reference) has no counter anywhere, and
 * readers find it among the records (answers.ts) — and, under "", the records that hold
 * no value of a field (no row for a field every record fills in). So a value's counters appear when a
 * second record takes it and go when only one record keeps it; the value index tells,
 * after the transaction's writes, how many records hold it.
 */

/** The scopes of a bloc by key, fetched as needed and kept for the rest of the settling. */
class Scopes {
  private readonly known = new Map<string, Scope | null>();

  constructor(private readonly tx: TxViews, private readonly blocId: string) {}

  /** Scopes as read or changed; one left with no records is gone. */
  remember(scopes: readonly Scope[]): void {
    for (const scope of scopes) this.known.set(scopeId(scope.segment, scope.period), scope.n > 0 ? scope : null);
  }

  async fetch(keys: readonly ScopeKey[]): Promise<void> {
    const missing = new Map<string, ScopeKey>();
    for (const k of keys) {
      const id = scopeId(k.segment, k.period);
      if (!this.known.has(id)) missing.set(id, k);
    }
    if (missing.size === 0) return;
    for (const id of missing.keys()) this.known.set(id, null);
    this.remember(await this.tx.counters.scopes(this.blocId, [...missing.values()]));
  }

  get(segment: string, period: string): Scope | undefined {
    return this.known.get(scopeId(segment, period)) ?? undefined;
  }
}

/** The day period of an hour period. */
function dayOfHour(period: string): string {
  return `d:${period.slice(2, 12)}`;
}

/** The scope keys of a record's hour in some segments. */
function keysOf(segments: readonly Segment[], hour: string): ScopeKey[] {
  return segments.flatMap((s) => periodsOfHour(hour).map((period) => ({ segment: s.key, period })));
}

/** The segments of a record that have scopes. */
function keptSegments(record: StoredRecord, blocId: string, layout: Layout, readers: OwnReaders): Segment[] {
  return segmentsOf({ ...record, blocId }, layout).filter((s) => keepsScopes(s.key, readers));
}

/** Counts of a value a record adds to the counted scopes it is in (`counted`: those counting before this settling). */
function contribution(segments: readonly Segment[], record: StoredRecord, scopes: Scopes, slug: string, value: string,
  n: number, counted: (scope: Scope) => boolean): ValueCountChange[] {
  const changes: ValueCountChange[] = [];
  for (const segment of segments) {
    for (const period of periodsOfHour(hourOf(record.createdAt))) {
      const scope = scopes.get(segment.key, period);
      if (scope && counted(scope)) changes.push({ scope: scope.id, slug, value, n });
    }
  }
  return changes;
}

/**
 * The changes summed per counter: a transaction's records spread over many hours change a
 * day's, month's and year's count of a value once per hour they hold it in, and one write of
 * the sum is all the counter needs (a load of 10,000 records over a year into a bloc of
 * 100,000 made about 340,000 row changes where 16,709 sums do: docs/performance.md).
 */
function summed(writes: readonly ValueCountChange[]): ValueCountChange[] {
  const sums = new Map<string, { scope: number; slug: string; value: string; n: number }>();
  for (const write of writes) {
    const id = `${write.scope}\u0000${write.slug}\u0000${write.value}`;
    const sum = sums.get(id);
    if (sum) sum.n += write.n; else sums.set(id, { ...write });
  }
  return [...sums.values()].filter((w) => w.n !== 0);
}

/** Values whose holders one settling reads side by side: enough for a group commit's, a bound on what a large transaction asks at once. */
const REPEATING_AT_ONCE = 64;

export async function settleCounters(tx: TxViews, deltas: CounterDeltas): Promise<void> {
  for (const blocId of deltas.blocs()) await settleBloc(tx, blocId, deltas);
}

async function settleBloc(tx: TxViews, blocId: string, deltas: CounterDeltas): Promise<void> {
  const bloc = await tx.blocs.findBloc(blocId);
  if (!bloc) return;
  const layout = layoutOf(bloc);
  const readers = await ownReaders(tx, bloc);
  deltas.retainSegments(blocId, (segment) => keepsScopes(segment.key, readers));
  const changes = deltas.scopeChanges(blocId);
  const scopes = new Scopes(tx, blocId);
  const changed = changes.length === 0 ? [] : await tx.counters.changeScopes(blocId, changes.map((c) => ({ segment: c.segment.key, period: c.period, n: c.n })));
  // Hours are kept only within days that count their values (a day of few records is counted from them),
  // as the day was before this change: a day left empty takes its hours with it.
  const hourChanges = deltas.scopeChanges(blocId, "hours");
  const days = new Map(changed.filter((s) => tierOf(s.period) === "d").map((s) => [scopeId(s.segment, s.period), s]));
  await scopes.fetch(hourChanges.map((c) => ({ segment: c.segment.key, period: dayOfHour(c.period) }))
    .filter((k) => !days.has(scopeId(k.segment, k.period))));
  const hourly = hourChanges.filter((c) =>
    (days.get(scopeId(c.segment.key, dayOfHour(c.period))) ?? scopes.get(c.segment.key, dayOfHour(c.period)))?.counted);
  scopes.remember(changed);
  const changedHours = hourly.length === 0 ? [] : await tx.counters.changeScopes(blocId, hourly.map((c) => ({ segment: c.segment.key, period: c.period, n: c.n })));
  scopes.remember(changedHours);
  await scopes.fetch([{ segment: EVERYONE.key, period: ALL_TIME }, ...deltas.valueHours(blocId).flatMap((t) => keysOf([t.segment], t.hour))]);
  const all = scopes.get(EVERYONE.key, ALL_TIME);
  const over = [...changed, ...changedHours].filter((s) => !s.counted && s.n > countsValuesAbove(s.period));
  const crossing = over.filter((s) => countsValues(s.segment, s.period, s.n, readers));
  const segments = changes.map((c) => c.segment);
  // No scope of the bloc counted values before: every scope is within everyone's all-time one.
  if (!all?.counted) {
    await countScopes(tx, blocId, layout, crossing, segments);
    return;
  }
  // Summed per value only here: a bloc that counts no values never needs its values' changes (deltas.ts).
  const entries = deltas.valueEntries(blocId);
  const wasCounted = (scope: Scope): boolean => scope.counted;
  const writes: ValueCountChange[] = [];
  const bySlugValue = new Map<string, ValueEntry[]>();
  for (const entry of entries) {
    if (entry.value === "") {
      // Records holding no value of the field: every counted scope keeps them under "".
      for (const [hour, n] of entry.hours) {
        for (const period of periodsOfHour(hour)) {
          const scope = scopes.get(entry.segment.key, period);
          if (scope?.counted && n !== 0) writes.push({ scope: scope.id, slug: entry.slug, value: "", n });
        }
      }
      continue;
    }
    const id = `${entry.slug}\u0000${entry.value}`;
    const list = bySlugValue.get(id);
    if (list) list.push(entry); else bySlugValue.set(id, [entry]);
  }
  const groups = [...bySlugValue.values()];
  const totals = new Map<string, number>();
  const pairs = groups.map((g) => ({ slug: g[0]!.slug, value: g[0]!.value }));
  for (const [slug, value, n] of pairs.length === 0 ? [] : await tx.counters.countsOfPairs(all.id, pairs)) totals.set(`${slug}\u0000${value}`, n);
  // Values with no count: held by one record or none before this transaction; the value index says how many hold them now.
  const unknown = groups.filter((g) => !totals.has(`${g[0]!.slug}\u0000${g[0]!.value}`));
  const holders = unknown.length === 0 ? [] : await tx.counters.holderCounts(blocId, unknown.map((g) => ({ slug: g[0]!.slug, value: g[0]!.value })), 2);
  const heldNow = new Map(unknown.map((g, i) => [`${g[0]!.slug}\u0000${g[0]!.value}`, holders[i]!]));
  // Now held by two or more: counted from every record holding it, in the scopes that counted before.
  // Their records are asked for side by side, a batch of values at a time: one wait per batch (and one
  // for their scopes) while the bloc's writes wait, not two per value (docs/performance.md).
  const repeating = unknown.map((g) => g[0]!).filter((e) => (heldNow.get(`${e.slug}\u0000${e.value}`) ?? 0) >= 2);
  for (let i = 0; i < repeating.length; i += REPEATING_AT_ONCE) {
    const batch = repeating.slice(i, i + REPEATING_AT_ONCE);
    const holding = await Promise.all(batch.map(({ slug, value }) => tx.records.findRecords({ blocId, match: [{ key: slug, values: [value] }] })));
    const segmentsOfHolders = holding.map((records) => records.map((r) => keptSegments(r, blocId, layout, readers)));
    await scopes.fetch(holding.flatMap((records, j) => records.flatMap((r, k) => keysOf(segmentsOfHolders[j]![k]!, hourOf(r.createdAt)))));
    batch.forEach(({ slug, value }, j) => {
      holding[j]!.forEach((record, k) => writes.push(...contribution(segmentsOfHolders[j]![k]!, record, scopes, slug, value, 1, wasCounted)));
    });
  }
  for (const group of groups) {
    const { slug, value } = group[0]!;
    const everyone = group.find((e) => e.segment.key === EVERYONE.key);
    const change = everyone ? CounterDeltas.total(everyone) : 0;
    const before = totals.get(`${slug}\u0000${value}`);
    if (before !== undefined) {
      if (before + change >= 2) {
        for (const entry of group) {
          for (const [hour, n] of entry.hours) {
            for (const period of periodsOfHour(hour)) {
              const scope = scopes.get(entry.segment.key, period);
              if (scope?.counted && n !== 0) writes.push({ scope: scope.id, slug, value, n });
            }
          }
        }
        continue;
      }
      // Down to one record (or none): its counters go wherever they are.
      const left = await tx.records.findRecords({ blocId, match: [{ key: slug, values: [value] }] });
      const keys = [...group.flatMap((e) => [...e.hours.keys()].flatMap((hour) => keysOf([e.segment], hour))),
        ...left.flatMap((r) => keysOf(keptSegments(r, blocId, layout, readers), hourOf(r.createdAt)))];
      await scopes.fetch(keys);
      const ids = new Set<number>();
      for (const k of keys) {
        const scope = scopes.get(k.segment, k.period);
        if (scope?.counted) ids.add(scope.id);
      }
      // Written first, so that the removal below is not undone by a later increment.
      await tx.counters.changeValues(summed(writes.splice(0)));
      await tx.counters.removeValue([...ids], slug, value);
    }
  }
  await tx.counters.changeValues(summed(writes));
  await countScopes(tx, blocId, layout, crossing, segments);
}

/**
 * Starts counting the values of scopes that have just passed the counting threshold records,
 * from their records (everyone's all-time scope first: the others count only values it
 * counts, the values two or more records of the bloc hold).
 */
async function countScopes(tx: TxViews, blocId: string, layout: Layout, crossing: readonly Scope[], segments: readonly Segment[]): Promise<void> {
  if (crossing.length === 0) return;
  const segmentOf = new Map(segments.map((segment) => [segment.key, segment]));
  const ordered = [...crossing].sort((a, b) => Number(b.segment === "" && b.period === ALL_TIME) - Number(a.segment === "" && a.period === ALL_TIME));
  let all: Scope | undefined;
  while (ordered.length > 0) {
    const scope = ordered.shift()!;
    const segment = segmentOf.get(scope.segment);
    if (!segment) continue;
    const { counts, hours } = await tallyScope(tx, blocId, layout, segment, scope.period);
    if (tierOf(scope.period) === "d") {
      // From now on the day keeps its hours: made here from its records.
      const made = await tx.counters.changeScopes(blocId, [...hours].map(([hour, n]) => ({ segment: scope.segment, period: hourKey(hour), n })));
      ordered.push(...made.filter((s) => !s.counted && s.n > countsValuesAbove(s.period)));
    }
    const writes: ValueCountChange[] = [];
    const everyoneAllTime = scope.segment === "" && scope.period === ALL_TIME;
    for (const [slug, values] of counts) {
      let filled = 0;
      const candidates: [string, number][] = [];
      for (const [value, n] of values) {
        filled += n;
        if (everyoneAllTime ? n >= 2 : true) candidates.push([value, n]);
      }
      if (filled < scope.n) writes.push({ scope: scope.id, slug, value: "", n: scope.n - filled });
      let repeated = candidates;
      if (!everyoneAllTime) {
        all ??= (await tx.counters.scopes(blocId, [{ segment: "", period: ALL_TIME }]))[0];
        if (!all) continue;
        const held = new Set((await tx.counters.countsOf([all.id], slug, candidates.map(([v]) => v))).map(([v]) => v));
        repeated = candidates.filter(([v]) => held.has(v));
      }
      for (const [value, n] of repeated) writes.push({ scope: scope.id, slug, value, n });
    }
    await tx.counters.changeValues(writes);
    await tx.counters.markCounted([scope.id]);
    if (everyoneAllTime) all = { ...scope, counted: true };
  }
}

/**
 * Every value of every counted field in one scope, counted from its records (text in
 * full: they become counters), and its records per hour.
 */
export async function tallyScope(tx: TxViews, blocId: string, layout: Layout, segment: Segment, period: string):
  Promise<{ counts: Map<string, Map<string, number>>; hours: Map<string, number> }> {
  const span = spanOf(period);
  const counts = new Map<string, Map<string, number>>(layout.slugs.map((slug) => [slug, new Map()]));
  const hours = new Map<string, number>();
  let after: StoredRecord | undefined;
  for (;;) {
    const page = await tx.records.listRecords({ blocId, visibility: segment.visibility, ...(span ?? {}) },
      { order: "oldest", limit: 2000, offset: 0, after: after && { createdAt: after.createdAt, id: after.id } });
    for (const record of page) {
      const hour = hourOf(record.createdAt);
      hours.set(hour, (hours.get(hour) ?? 0) + 1);
      for (const slug of layout.slugs) {
        const value = Object.hasOwn(record.values, slug) ? record.values[slug]! : "";
        if (value === "") continue;
        const bucket = counts.get(slug)!;
        bucket.set(value, (bucket.get(value) ?? 0) + 1);
      }
    }
    if (page.length < 2000) return { counts, hours };
    after = page[page.length - 1];
  }
}

/*
 * An owner's scopes after a restriction of theirs changed: whatever they held goes, and
 * when the owner is now read as `own` they are counted again from the owner's records —
 * what counting the bloc again would keep (recount.ts), for one owner. Counted afresh
 * even if the owner was read as `own` before: a scope left by an earlier design, or kept
 * while no reader read it, is never trusted.
 */

/** Periods sort as text: "a", then "d:", "h:", "m:", "w:", "y:" — every one lies in this range. */
const FIRST_PERIOD = "a";
const LAST_PERIOD = "z";

export async function followOwner(tx: TxViews, blocId: string, userId: string): Promise<void> {
  await lockBloc(tx, blocId);
  const bloc = await tx.blocs.findBloc(blocId);
  if (!bloc) return;
  const segment = ownerSegment(userId);
  // Emptied, a scope goes with its value counts.
  const periods = await tx.counters.periodCounts(blocId, [segment.key], FIRST_PERIOD, LAST_PERIOD);
  if (periods.length > 0) await tx.counters.changeScopes(blocId, periods.map(({ period, n }) => ({ segment: segment.key, period, n: -n })));
  const readers = await ownReaders(tx, bloc);
  if (!readAsOwn(segment.key, readers)) return;
  const layout = layoutOf(bloc);
  const { hours } = await tallyScope(tx, blocId, layout, segment, ALL_TIME);
  const counts = new Map<string, number>();
  // Every tier but the hour: a day keeps hours only once it counts its values, and countScopes makes them with it.
  for (const [hour, n] of hours) for (const period of periodsOfHour(hour).slice(0, -1)) counts.set(period, (counts.get(period) ?? 0) + n);
  const made = counts.size === 0 ? [] : await tx.counters.changeScopes(blocId, [...counts].map(([period, n]) => ({ segment: segment.key, period, n })));
  await countScopes(tx, blocId, layout, made.filter((s) => countsValues(s.segment, s.period, s.n, readers)), [segment]);
}

import type { StoredRecord } from "../model.js";
import type { Store, Tx } from "../../store/store.js";
import {
  ALL_TIME, countingThreshold, EVERYONE, TIERS, hourOf, layoutOf, periodsOfHour, scopeId, segmentsOf, tierOf, type Segment,
} from "./keys.js";
import type { Scope, ValueCountChange } from "./ports.js";

/*
 * Counting a bloc's counters again from its records, set-based and in bounded memory:
 * after a field starts or stops being profile-filtered, after a bulk load, and for
 * blocs an upgrade left without counters. Three passes: records per scope (one read of
 * the bloc in time order), the values two or more records hold (grouped by the value
 * index, field by field), then each segment's values per counted scope (one read of the
 * segment's records in time order, so that only one period per tier is open at a time).
 */

const PAGE = 5000;
const WRITE_BATCH = 20_000;

async function eachRecord(tx: Tx, blocId: string, segment: Segment, visit: (record: StoredRecord) => void): Promise<void> {
  let after: StoredRecord | undefined;
  for (;;) {
    const page = await tx.listRecords({ blocId, visibility: segment.visibility },
      { order: "oldest", limit: PAGE, offset: 0, after: after && { createdAt: after.createdAt, id: after.id } });
    for (const record of page) visit(record);
    if (page.length < PAGE) return;
    after = page[page.length - 1];
  }
}

async function write(tx: Tx, changes: ValueCountChange[]): Promise<void> {
  for (let i = 0; i < changes.length; i += WRITE_BATCH) await tx.changeValues(changes.slice(i, i + WRITE_BATCH));
  changes.length = 0;
}

/** Recounts a bloc's counters from its records, inside the caller's transaction (which it locks the bloc in). */
export async function recountBloc(tx: Tx, blocId: string): Promise<void> {
  await tx.lockBloc(blocId);
  await tx.clearCounters(blocId);
  const bloc = await tx.findBloc(blocId);
  if (!bloc) return;
  const layout = layoutOf(bloc);

  const records = new Map<string, { segment: Segment; period: string; n: number }>();
  await eachRecord(tx, blocId, EVERYONE, (record) => {
    for (const segment of segmentsOf({ ...record, blocId }, layout)) {
      for (const period of periodsOfHour(hourOf(record.createdAt))) {
        const id = scopeId(segment.key, period);
        const entry = records.get(id);
        if (entry) entry.n += 1; else records.set(id, { segment, period, n: 1 });
      }
    }
  });
  // Hours are kept only within days that count their values (settle.ts).
  const threshold = countingThreshold();
  const changes = [...records.values()].filter((c) => tierOf(c.period) !== "h" ||
    (records.get(scopeId(c.segment.key, `d:${c.period.slice(2, 12)}`))?.n ?? 0) > threshold);
  const scopes: Scope[] = [];
  for (let i = 0; i < changes.length; i += WRITE_BATCH) {
    scopes.push(...await tx.changeScopes(blocId, changes.slice(i, i + WRITE_BATCH).map((c) => ({ segment: c.segment.key, period: c.period, n: c.n }))));
  }
  const counted = new Map(scopes.filter((s) => s.n > threshold).map((s) => [scopeId(s.segment, s.period), s]));
  const all = counted.get(scopeId(EVERYONE.key, ALL_TIME));
  if (!all) return;

  const writes: ValueCountChange[] = [];
  const repeated = new Map<string, Set<string>>();
  for (const slug of layout.slugs) {
    const values = new Set<string>();
    repeated.set(slug, values);
    let after: string | null = null;
    for (;;) {
      const page = await tx.valuesHeldTwice(blocId, slug, after, PAGE);
      for (const [value, n] of page) {
        values.add(value);
        writes.push({ scope: all.id, slug, value, n });
      }
      if (writes.length >= WRITE_BATCH) await write(tx, writes);
      if (page.length < PAGE) break;
      after = page[page.length - 1]![0];
    }
  }
  await write(tx, writes);

  const segments = new Map<string, Segment>();
  for (const { segment, period } of records.values()) {
    if (counted.has(scopeId(segment.key, period))) segments.set(segment.key, segment);
  }
  for (const segment of segments.values()) {
    // Per tier, the period being counted and its counts (slug NUL value → n; slug alone: records holding any value).
    const open = new Map<string, { scope: Scope; counts: Map<string, number> }>();
    const close = (tier: string): void => {
      const current = open.get(tier);
      if (!current) return;
      for (const [key, n] of current.counts) {
        const cut = key.indexOf("\u0000");
        // Per field alone: the records holding a value, kept as those holding none.
        if (cut < 0) { if (n < current.scope.n) writes.push({ scope: current.scope.id, slug: key, value: "", n: current.scope.n - n }); }
        else writes.push({ scope: current.scope.id, slug: key.slice(0, cut), value: key.slice(cut + 1), n });
      }
      for (const slug of layout.slugs) {
        if (!current.counts.has(slug)) writes.push({ scope: current.scope.id, slug, value: "", n: current.scope.n });
      }
      open.delete(tier);
    };
    await eachRecord(tx, blocId, segment, (record) => {
      const periods = periodsOfHour(hourOf(record.createdAt));
      periods.forEach((period, i) => {
        const tier = TIERS[i]!;
        if (open.get(tier)?.scope.period !== period) {
          close(tier);
          const scope = counted.get(scopeId(segment.key, period));
          if (scope) open.set(tier, { scope, counts: new Map() });
        }
        const current = open.get(tier);
        if (!current) return;
        // Everyone's all-time values were counted from the value index above: only what any value holds is counted here.
        const valuesToo = !(segment.key === EVERYONE.key && period === ALL_TIME);
        for (const slug of layout.slugs) {
          const value = Object.hasOwn(record.values, slug) ? record.values[slug]! : "";
          if (value === "") continue;
          current.counts.set(slug, (current.counts.get(slug) ?? 0) + 1);
          if (valuesToo && repeated.get(slug)!.has(value)) {
            const key = `${slug}\u0000${value}`;
            current.counts.set(key, (current.counts.get(key) ?? 0) + 1);
          }
        }
      });
    });
    for (const tier of TIERS) close(tier);
    if (writes.length >= WRITE_BATCH) await write(tx, writes);
  }
  await write(tx, writes);
  await tx.markCounted([...counted.values()].map((s) => s.id));
}

/** Recounts every bloc that has records but no counters (an upgrade from the counters of before leaves them so). */
export async function recountMissing(store: Store): Promise<number> {
  const blocs = await store.blocsWithoutScope({ segment: EVERYONE.key, period: ALL_TIME });
  for (const blocId of blocs) await store.transaction((tx) => recountBloc(tx, blocId));
  return blocs.length;
}

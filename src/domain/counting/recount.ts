import type { RecordCursor, StoredRecord } from "../model.js";
import type { RowColumn, Store, TxViews } from "../ports/store.js";
import {
  ALL_TIME, EVERYONE, TIERS, countsValues, hourOf, keepsScopes, layoutOf, ownerSegment, periodsOfHour, profileSegment, scopeId, tierOf,
  type Layout, type OwnReaders, type Segment,
} from "./keys.js";
import type { Scope, ValueCountChange } from "../ports/counters.js";
import { lockBloc } from "../capabilities.js";
import { ownReaders } from "./own-readers.js";
import { ownValue } from "../values.js";

/*
 * Counting a bloc's counters again from its records, in bounded memory: after a field
 * starts or stops being profile-filtered, after a bulk load, and for blocs an upgrade
 * left without counters. Three steps: records per scope (one read of the bloc in time
 * order, of the few columns segments need); the values two or more records hold (the
 * value index, grouped, field by field); then the values per counted scope (one more read
 * in time order, each period's counts written as it closes, so that only one period per
 * tier and segment is open at a time).
 */

const PAGE = 5000;
const WRITE_BATCH = 20_000;

/** Reads a bloc's rows in time order, a page at a time (`read` gives the page after a row); `paged` runs after each page. */
async function eachPage<T extends RecordCursor>(read: (after: RecordCursor | undefined) => Promise<T[]>,
  visit: (row: T) => void, paged?: () => Promise<void>): Promise<void> {
  let after: RecordCursor | undefined;
  for (;;) {
    const rows = await read(after);
    for (const row of rows) visit(row);
    await paged?.();
    if (rows.length < PAGE) return;
    const last = rows[rows.length - 1]!;
    after = { createdAt: last.createdAt, id: last.id };
  }
}

/** The few columns segments need, as JSON objects (keys "c", "u", then "p0", "p1", … per profile field): the cheaper read on SQLite. */
function eachSegmentRow(tx: TxViews, blocId: string, layout: Layout, visit: (row: Record<string, string>) => void): Promise<void> {
  const columns = segmentColumns(layout);
  return eachPage((after) => tx.records.listRows({ blocId }, { order: "oldest", limit: PAGE, offset: 0, after }, columns),
    (row) => visit(JSON.parse(row.json) as Record<string, string>));
}

/**
 * Whole records, for every field's value: half the time of JSON objects of a dozen columns
 * built by SQLite (one parse of the stored text instead of an extraction per field), and on
 * PostgreSQL no object text built and parsed again.
 */
function eachRecord(tx: TxViews, blocId: string, visit: (record: StoredRecord) => void, paged: () => Promise<void>): Promise<void> {
  return eachPage((after) => tx.records.listRecords({ blocId }, { order: "oldest", limit: PAGE, offset: 0, after }), visit, paged);
}

async function write(tx: TxViews, changes: ValueCountChange[]): Promise<void> {
  for (let i = 0; i < changes.length; i += WRITE_BATCH) await tx.counters.changeValues(changes.slice(i, i + WRITE_BATCH));
  changes.length = 0;
}

/**
 * The segments with scopes of a record, by its owner (when read as `own`: keys.ts, keepsScopes) and its profile
 * fields' values (`profileValue(i)`, in layout.profileSlugs' order).
 */
function rowSegments(userId: string, profileValue: (i: number) => string, layout: Layout, readers: OwnReaders, cache: Map<string, Segment>): Segment[] {
  const segments = [EVERYONE];
  const owner = `u\u0000${userId}`;
  let segment = cache.get(owner);
  if (!segment) cache.set(owner, segment = ownerSegment(userId));
  if (keepsScopes(segment.key, readers)) segments.push(segment);
  layout.profileSlugs.forEach((slug, i) => {
    const value = profileValue(i);
    if (value === "") return;
    const key = `p\u0000${slug}\u0000${value}`;
    let profile = cache.get(key);
    if (!profile) cache.set(key, profile = profileSegment(slug, value));
    segments.push(profile);
  });
  return segments;
}

function segmentColumns(layout: Layout): RowColumn[] {
  return [
    { key: "c", source: "created_at" }, { key: "u", source: "user_id" },
    ...layout.profileSlugs.map((slug, i): RowColumn => ({ key: `p${i}`, source: { field: slug } })),
  ];
}

/** Recounts a bloc's counters from its records, inside the caller's transaction (which it locks the bloc in). */
export async function recountBloc(tx: TxViews, blocId: string): Promise<void> {
  await lockBloc(tx, blocId);
  await tx.counters.clearCounters(blocId);
  const bloc = await tx.blocs.findBloc(blocId);
  if (!bloc) return;
  const layout = layoutOf(bloc);
  const readers = await ownReaders(tx, bloc);
  const segmentCache = new Map<string, Segment>();

  // Records per segment and hour, then per scope of every tier.
  const perHour = new Map<string, { segment: Segment; hour: string; n: number }>();
  await eachSegmentRow(tx, blocId, layout, (row) => {
    const hour = hourOf(row.c!);
    for (const segment of rowSegments(row.u!, (i) => row[`p${i}`] ?? "", layout, readers, segmentCache)) {
      const id = `${segment.key}\u0000${hour}`;
      const entry = perHour.get(id);
      if (entry) entry.n += 1; else perHour.set(id, { segment, hour, n: 1 });
    }
  });
  const records = new Map<string, { segment: Segment; period: string; n: number }>();
  for (const { segment, hour, n } of perHour.values()) {
    for (const period of periodsOfHour(hour)) {
      const id = scopeId(segment.key, period);
      const entry = records.get(id);
      if (entry) entry.n += n; else records.set(id, { segment, period, n });
    }
  }
  perHour.clear();
  // Hours are kept only within days that count their values (settle.ts).
  const changes = [...records.values()].filter((c) => {
    if (tierOf(c.period) !== "h") return true;
    const day = `d:${c.period.slice(2, 12)}`;
    return countsValues(c.segment.key, day, records.get(scopeId(c.segment.key, day))?.n ?? 0, readers);
  });
  const scopes: Scope[] = [];
  for (let i = 0; i < changes.length; i += WRITE_BATCH) {
    scopes.push(...await tx.counters.changeScopes(blocId, changes.slice(i, i + WRITE_BATCH).map((c) => ({ segment: c.segment.key, period: c.period, n: c.n }))));
  }
  const counted = new Map(scopes.filter((s) => countsValues(s.segment, s.period, s.n, readers)).map((s) => [scopeId(s.segment, s.period), s]));
  const all = counted.get(scopeId(EVERYONE.key, ALL_TIME));
  if (!all) return;

  // The values two or more records hold, numbered per field; everyone's all-time counts are these.
  const writes: ValueCountChange[] = [];
  const numbers = layout.slugs.map(() => new Map<string, number>());
  const texts = layout.slugs.map((): string[] => []);
  for (const [s, slug] of layout.slugs.entries()) {
    let after: string | null = null;
    for (;;) {
      const page = await tx.counters.valuesHeldTwice(blocId, slug, after, PAGE);
      for (const [value, n] of page) {
        numbers[s]!.set(value, texts[s]!.length);
        texts[s]!.push(value);
        writes.push({ scope: all.id, slug, value, n });
      }
      if (writes.length >= WRITE_BATCH) await write(tx, writes);
      if (page.length < PAGE) break;
      after = page[page.length - 1]![0];
    }
  }
  await write(tx, writes);

  // Per open scope: counts of (field, value number) as number × fields + field (a small integer,
  // which a Map hashes fastest), and records holding a value per field.
  const fields = layout.slugs.length;
  interface Open { readonly scope: Scope; readonly counts: Map<number, number>; readonly filled: Int32Array; readonly values: boolean }
  /** Per segment and tier: the period being read and, when its scope counts values, its counts. */
  const open = new Map<Segment, ({ period: string; counting: Open | undefined } | undefined)[]>();
  const close = (counting: Open | undefined): void => {
    if (!counting) return;
    const { scope } = counting;
    if (counting.values) {
      for (const [code, n] of counting.counts) {
        const s = code % fields;
        writes.push({ scope: scope.id, slug: layout.slugs[s]!, value: texts[s]![Math.floor(code / fields)]!, n });
      }
    }
    layout.slugs.forEach((slug, s) => {
      if (counting.filled[s]! < scope.n) writes.push({ scope: scope.id, slug, value: "", n: scope.n - counting.filled[s]! });
    });
  };
  const valueOf = (record: StoredRecord, slug: string): string => ownValue(record.values, slug) ?? "";
  await eachRecord(tx, blocId, (record) => {
    const periods = periodsOfHour(hourOf(record.createdAt));
    const codes: number[] = [];
    const filled: number[] = [];
    for (let s = 0; s < layout.slugs.length; s += 1) {
      const value = valueOf(record, layout.slugs[s]!);
      if (value === "") continue;
      filled.push(s);
      const number = numbers[s]!.get(value);
      if (number !== undefined) codes.push(number * fields + s);
    }
    for (const segment of rowSegments(record.userId, (i) => valueOf(record, layout.profileSlugs[i]!), layout, readers, segmentCache)) {
      let tiers = open.get(segment);
      if (!tiers) open.set(segment, tiers = TIERS.map(() => undefined));
      for (let i = 0; i < periods.length; i += 1) {
        const period = periods[i]!;
        let current = tiers[i];
        if (current?.period !== period) {
          close(current?.counting);
          const scope = counted.get(scopeId(segment.key, period));
          // Everyone's all-time values came from the value index above: only what holds no value is counted here.
          current = { period, counting: scope && { scope, counts: new Map(), filled: new Int32Array(layout.slugs.length), values: !(segment.key === EVERYONE.key && period === ALL_TIME) } };
          tiers[i] = current;
        }
        const counting = current.counting;
        if (!counting) continue;
        for (const s of filled) counting.filled[s]! += 1;
        if (counting.values) for (const code of codes) counting.counts.set(code, (counting.counts.get(code) ?? 0) + 1);
      }
    }
  }, async () => { if (writes.length >= WRITE_BATCH) await write(tx, writes); });
  for (const tiers of open.values()) for (const current of tiers) close(current?.counting);
  await write(tx, writes);
  await tx.counters.markCounted([...counted.values()].map((s) => s.id));
}

/** Recounts every bloc that has records but no counters (an upgrade from the counters of before leaves them so). */
export async function recountMissing(store: Store): Promise<number> {
  const blocs = await store.counters.blocsWithoutScope({ segment: EVERYONE.key, period: ALL_TIME });
  for (const blocId of blocs) await store.transaction((tx) => recountBloc(tx, blocId), { recount: true });
  return blocs.length;
}

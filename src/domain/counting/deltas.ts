import { hourOf, periodsOfHour, scopeId, segmentsOf, type Counted, type Layout, type Segment } from "./keys.js";
import { ownValue } from "../values.js";

/*
 * What a transaction's record writes change, gathered in memory and settled once before
 * it commits (settle.ts): records entering or leaving each segment, per hour, and field
 * values entering or leaving each segment, per hour. A group commit or an update of many
 * records then touches each counter once, however many records share it.
 *
 * The value changes are kept as given and summed per value only when asked for
 * (valueEntries, size): a bloc none of whose scopes counts values yet (every bloc until
 * its records pass the counting threshold: keys.ts) settles its record counts alone and
 * never asks, and summing a record's values, a key per field and segment, was a twentieth
 * of an add's main-thread time there (docs/performance.md).
 */

/** One value of one field in one segment ("": records holding none), and its change per hour. */
export interface ValueEntry {
  readonly blocId: string;
  readonly segment: Segment;
  readonly slug: string;
  readonly value: string;
  readonly hours: Map<string, number>;
}

/** A change to a scope's record count. */
export interface ScopeChange {
  readonly segment: Segment;
  readonly period: string;
  n: number;
}

function bump(map: Map<string, number>, key: string, n: number): void {
  map.set(key, (map.get(key) ?? 0) + n);
}

/** Values of a record entering (1) or leaving (-1) its segments in one hour: every field's (`slug` absent), or one field's. */
interface ValueChange {
  readonly blocId: string;
  readonly segments: readonly Segment[];
  readonly hour: string;
  readonly values: Readonly<Record<string, string>>;
  readonly slugs: readonly string[];
  readonly slug?: string;
  readonly value?: string;
  readonly sign: 1 | -1;
}

export class CounterDeltas {
  /** bloc NUL segment NUL hour → change, with the segment. */
  private readonly records = new Map<string, { blocId: string; segment: Segment; hour: string; n: number }>();
  /** bloc NUL segment NUL slug NUL value → entry, for the value changes summed so far. */
  private readonly entries = new Map<string, ValueEntry>();
  /** Value changes not summed into `entries` yet. */
  private unsummed: ValueChange[] = [];

  /**
   * A whole record enters (1) or leaves (-1) its segments, with each field's value; a
   * field it leaves empty counts under "" (the records holding no value: settle.ts).
   */
  add(record: Counted, layout: Layout, sign: 1 | -1): void {
    const hour = hourOf(record.createdAt);
    const segments = segmentsOf(record, layout);
    for (const segment of segments) {
      const id = `${record.blocId}\u0000${segment.key}\u0000${hour}`;
      const entry = this.records.get(id);
      if (entry) entry.n += sign; else this.records.set(id, { blocId: record.blocId, segment, hour, n: sign });
    }
    if (layout.slugs.length > 0) this.unsummed.push({ blocId: record.blocId, segments, hour, values: record.values, slugs: layout.slugs, sign });
  }

  /** One value of a record that stays in the same segments enters or leaves their counts ("": no value). */
  addValue(record: Counted, layout: Layout, slug: string, value: string, sign: 1 | -1): void {
    if (!layout.slugs.includes(slug)) return;
    this.unsummed.push({ blocId: record.blocId, segments: segmentsOf(record, layout), hour: hourOf(record.createdAt),
      values: record.values, slugs: layout.slugs, slug, value, sign });
  }

  /** Takes in another set of changes (a unit of a group commit that succeeded). */
  merge(other: CounterDeltas): void {
    for (const [id, change] of other.records) {
      const entry = this.records.get(id);
      if (entry) entry.n += change.n; else this.records.set(id, { ...change });
    }
    for (const { blocId, segment, slug, value, hours } of other.entries.values()) {
      for (const [hour, n] of hours) this.bumpValue(blocId, segment, slug, value, hour, n);
    }
    // One by one: a unit updating many records holds more changes than a call takes arguments.
    for (const change of other.unsummed) this.unsummed.push(change);
  }

  /** Records these changes add to a bloc (everyone's segment) at `since` or later (ever when null). */
  recordsSince(blocId: string, since: string | null): number {
    const from = since === null ? "" : hourOf(since);
    let n = 0;
    for (const change of this.records.values()) {
      if (change.blocId === blocId && change.segment.key === "" && change.hour >= from) n += change.n;
    }
    return n;
  }

  get empty(): boolean {
    return this.records.size === 0 && this.entries.size === 0 && this.unsummed.length === 0;
  }

  /** Keys held once summed: what these changes hold in memory. */
  get size(): number {
    this.sum();
    return this.records.size + this.entries.size;
  }

  clear(): void {
    this.records.clear();
    this.entries.clear();
    this.unsummed = [];
  }

  blocs(): string[] {
    const blocs = new Set<string>();
    for (const change of this.records.values()) blocs.add(change.blocId);
    for (const entry of this.entries.values()) blocs.add(entry.blocId);
    for (const change of this.unsummed) blocs.add(change.blocId);
    return [...blocs];
  }

  /** Drops a bloc's changes to the segments `keep` refuses (owners no one reads as `own`: keys.ts, keepsScopes). */
  retainSegments(blocId: string, keep: (segment: Segment) => boolean): void {
    for (const [id, change] of this.records) if (change.blocId === blocId && !keep(change.segment)) this.records.delete(id);
    for (const [id, entry] of this.entries) if (entry.blocId === blocId && !keep(entry.segment)) this.entries.delete(id);
    this.unsummed = this.unsummed.map((change) => (change.blocId !== blocId || change.segments.every(keep) ? change
      : { ...change, segments: change.segments.filter(keep) }));
  }

  /** The segments and hours of a bloc whose values change, without summing the values. */
  valueHours(blocId: string): { segment: Segment; hour: string }[] {
    const touched = new Map<string, { segment: Segment; hour: string }>();
    const touch = (segment: Segment, hour: string): void => {
      const id = `${segment.key}\u0000${hour}`;
      if (!touched.has(id)) touched.set(id, { segment, hour });
    };
    for (const e of this.entries.values()) if (e.blocId === blocId) for (const hour of e.hours.keys()) touch(e.segment, hour);
    for (const change of this.unsummed) if (change.blocId === blocId) for (const segment of change.segments) touch(segment, change.hour);
    return [...touched.values()];
  }

  /**
   * A bloc's record-count changes per scope, zeros left out: `days`, every tier down to
   * the day of each hour touched; `hours`, the hours themselves (kept only within days
   * that count their values: settle.ts).
   */
  scopeChanges(blocId: string, which: "days" | "hours" = "days"): ScopeChange[] {
    const changes = new Map<string, ScopeChange>();
    for (const { blocId: bloc, segment, hour, n } of this.records.values()) {
      if (bloc !== blocId || n === 0) continue;
      const periods = periodsOfHour(hour);
      for (const period of which === "hours" ? periods.slice(-1) : periods.slice(0, -1)) {
        const id = scopeId(segment.key, period);
        const change = changes.get(id);
        if (change) change.n += n; else changes.set(id, { segment, period, n });
      }
    }
    return [...changes.values()].filter((c) => c.n !== 0);
  }

  /** A bloc's value entries. */
  valueEntries(blocId: string): ValueEntry[] {
    this.sum();
    return [...this.entries.values()].filter((e) => e.blocId === blocId);
  }

  /** Net change of a value over all records of the bloc (everyone's segment). */
  static total(entry: ValueEntry): number {
    let n = 0;
    for (const change of entry.hours.values()) n += change;
    return n;
  }

  private sum(): void {
    for (const { blocId, segments, hour, values, slugs, slug, value, sign } of this.unsummed) {
      for (const segment of segments) {
        if (slug !== undefined) this.bumpValue(blocId, segment, slug, value ?? "", hour, sign);
        else for (const s of slugs) this.bumpValue(blocId, segment, s, ownValue(values, s) ?? "", hour, sign);
      }
    }
    this.unsummed = [];
  }

  private bumpValue(blocId: string, segment: Segment, slug: string, value: string, hour: string, n: number): void {
    // NUL cannot occur in the parts (values refuse it), so joining with it is unambiguous.
    const id = `${blocId}\u0000${segment.key}\u0000${slug}\u0000${value}`;
    const entry = this.entries.get(id);
    if (entry) bump(entry.hours, hour, n);
    else this.entries.set(id, { blocId, segment, slug, value, hours: new Map([[hour, n]]) });
  }
}

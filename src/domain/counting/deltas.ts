import { hourOf, periodsOfHour, scopeId, segmentsOf, type Counted, type Layout, type Segment } from "./keys.js";
import { ownValue } from "../values.js";

/*
 * What a transaction's record writes change, gathered in memory and settled once before
 * it commits (settle.ts): records entering or leaving each segment, per hour, and field
 * values entering or leaving each segment, per hour. A group commit or an update of many
 * records then touches each counter once, however many records share it.
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

export class CounterDeltas {
  /** bloc NUL segment NUL hour → change, with the segment. */
  private readonly records = new Map<string, { blocId: string; segment: Segment; hour: string; n: number }>();
  /** bloc NUL segment NUL slug NUL value → entry. */
  private readonly entries = new Map<string, ValueEntry>();

  /**
   * A whole record enters (1) or leaves (-1) its segments, with each field's value; a
   * field it leaves empty counts under "" (the records holding no value: settle.ts).
   */
  add(record: Counted, layout: Layout, sign: 1 | -1): void {
    const hour = hourOf(record.createdAt);
    for (const segment of segmentsOf(record, layout)) {
      const id = `${record.blocId}\u0000${segment.key}\u0000${hour}`;
      const entry = this.records.get(id);
      if (entry) entry.n += sign; else this.records.set(id, { blocId: record.blocId, segment, hour, n: sign });
      for (const slug of layout.slugs) this.bumpValue(record.blocId, segment, slug, ownValue(record.values, slug) ?? "", hour, sign);
    }
  }

  /** One value of a record that stays in the same segments enters or leaves their counts ("": no value). */
  addValue(record: Counted, layout: Layout, slug: string, value: string, sign: 1 | -1): void {
    if (!layout.slugs.includes(slug)) return;
    const hour = hourOf(record.createdAt);
    for (const segment of segmentsOf(record, layout)) this.bumpValue(record.blocId, segment, slug, value, hour, sign);
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
    return this.records.size === 0 && this.entries.size === 0;
  }

  /** Keys held: what these changes hold in memory. */
  get size(): number {
    return this.records.size + this.entries.size;
  }

  clear(): void {
    this.records.clear();
    this.entries.clear();
  }

  blocs(): string[] {
    const blocs = new Set<string>();
    for (const change of this.records.values()) blocs.add(change.blocId);
    for (const entry of this.entries.values()) blocs.add(entry.blocId);
    return [...blocs];
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
    return [...this.entries.values()].filter((e) => e.blocId === blocId);
  }

  /** Net change of a value over all records of the bloc (everyone's segment). */
  static total(entry: ValueEntry): number {
    let n = 0;
    for (const change of entry.hours.values()) n += change;
    return n;
  }

  private bumpValue(blocId: string, segment: Segment, slug: string, value: string, hour: string, n: number): void {
    // NUL cannot occur in the parts (values refuse it), so joining with it is unambiguous.
    const id = `${blocId}\u0000${segment.key}\u0000${slug}\u0000${value}`;
    const entry = this.entries.get(id);
    if (entry) bump(entry.hours, hour, n);
    else this.entries.set(id, { blocId, segment, slug, value, hours: new Map([[hour, n]]) });
  }
}

import { profileSlugs, type Bloc, type Visibility } from "../model.js";
import type { Timestamp } from "../clock.js";
import { DAY_END, DAY_START, addDays, lastDayOf, mondayOf } from "../calendar.js";
import { ownValue } from "../values.js";
import { COUNTED_ABOVE } from "../../config.js";

/*
 * What the counters are keyed on, for every engine. A *scope* is the records of one
 * segment within one period; each scope counts its records, and a scope holding more than
 * COUNTED_ABOVE records also counts its field values (settle.ts). Engines store these keys
 * as they are given and never make one themselves.
 *
 * A segment is a set of records some reader sees: everyone's (''), one owner's
 * ('u:<user id>', for the `own` restriction) or those holding one value of a
 * profile-filtered field ('p:<slug>:<value>'). A period is all time ('a'), a year
 * ('y:2026'), a month ('m:2026-03'), a week named by its Monday ('w:2026-03-02'), a day
 * ('d:2026-03-05') or an hour ('h:2026-03-05 06').
 */

/** COUNTED_ABOVE (config.ts) unless BLOC_COUNTED_ABOVE says otherwise (setCountingThreshold). */
let countedAbove = COUNTED_ABOVE;

export function countingThreshold(): number {
  return countedAbove;
}

/**
 * Records above which a scope of this period counts its values: the threshold, and a
 * quarter of it for an hour — a shift is eight hours, and each hour that does not count its
 * values is counted from its records when read, so that a shift would otherwise read up to
 * eight times the threshold. (Hours exist only within days above the threshold.)
 */
export function countsValuesAbove(period: string): number {
  return period.startsWith("h:") ? Math.max(1, Math.floor(countedAbove / 4)) : countedAbove;
}

/**
 * The owners a bloc's readers see as `own` (access.ts): every owner when that is the bloc's
 * restriction, else those restricted to it. No one else reads an owner's segment
 * (answers.ts, segmentsFor), so the other owners have no scopes at all: of a bloc of
 * twenty members, most record-count rows a write changed were theirs.
 */
export interface OwnReaders {
  readonly all: boolean;
  readonly users: ReadonlySet<string>;
}

const OWNER_PREFIX = "u:";

/** The owners read as `own`, from the bloc's restriction and the users restricted to `own` on it. */
export function ownReadersOf(blocRestriction: Bloc["restriction"], restricted: Iterable<string>): OwnReaders {
  return blocRestriction === "own" ? { all: true, users: new Set() } : { all: false, users: new Set(restricted) };
}

/** Whether a segment has scopes: everyone's and a profile value's always, an owner's only when that owner is read as `own`. */
export function keepsScopes(segment: string, readers: OwnReaders): boolean {
  return !isOwnerSegment(segment) || readAsOwn(segment, readers);
}

/** Whether a scope of `n` records counts its values: above the period's threshold, in a segment that has scopes. */
export function countsValues(segment: string, period: string, n: number, readers: OwnReaders): boolean {
  return n > countsValuesAbove(period) && keepsScopes(segment, readers);
}

export function isOwnerSegment(segment: string): boolean {
  return segment.startsWith(OWNER_PREFIX);
}

/** Whether an owner's segment is one some reader sees as their own records. */
export function readAsOwn(segment: string, readers: OwnReaders): boolean {
  return readers.all || readers.users.has(segment.slice(OWNER_PREFIX.length));
}

/** Set once at start-up from the configuration (open-context.ts). */
export function setCountingThreshold(records: number): void {
  countedAbove = records;
}

export interface Segment {
  readonly key: string;
  /** The records it holds, as a reader's visibility would select them. */
  readonly visibility: Visibility;
}

export const EVERYONE: Segment = { key: "", visibility: {} };

export function ownerSegment(userId: string): Segment {
  return { key: `${OWNER_PREFIX}${userId}`, visibility: { ownerId: userId } };
}

export function profileSegment(slug: string, value: string): Segment {
  return { key: `p:${slug}:${value}`, visibility: { match: [{ key: slug, values: [value] }] } };
}

/** Which of a bloc's fields are counted, and which of them make segments. */
export interface Layout {
  readonly slugs: readonly string[];
  readonly profileSlugs: readonly string[];
}

export function layoutOf(bloc: Pick<Bloc, "fields">): Layout {
  return {
    slugs: bloc.fields.map((f) => f.slug),
    profileSlugs: profileSlugs(bloc),
  };
}

/** The part of a record the counters follow. */
export interface Counted {
  readonly blocId: string;
  readonly createdAt: string;
  readonly userId: string;
  readonly values: Readonly<Record<string, string>>;
}

/** The segments a record belongs to. */
export function segmentsOf(record: Counted, layout: Layout): Segment[] {
  const segments = [EVERYONE, ownerSegment(record.userId)];
  for (const slug of layout.profileSlugs) {
    const value = ownValue(record.values, slug) ?? "";
    if (value !== "") segments.push(profileSegment(slug, value));
  }
  return segments;
}

export type Tier = "a" | "y" | "m" | "w" | "d" | "h";
/** Largest first: the order windows are split in. */
export const TIERS: readonly Tier[] = ["a", "y", "m", "w", "d", "h"];
export const ALL_TIME = "a";

/** The hour (`YYYY-MM-DD HH`) a time falls in: the finest period. */
export function hourOf(at: Timestamp): string {
  return at.slice(0, 13);
}

export function dayKey(day: string): string {
  return `d:${day}`;
}

export function hourKey(hour: string): string {
  return `h:${hour}`;
}

/** The period of a tier that holds an hour. */
export function periodOf(tier: Tier, hour: string): string {
  switch (tier) {
    case "a": return ALL_TIME;
    case "y": return `y:${hour.slice(0, 4)}`;
    case "m": return `m:${hour.slice(0, 7)}`;
    case "w": return `w:${mondayOf(hour.slice(0, 10))}`;
    case "d": return `d:${hour.slice(0, 10)}`;
    case "h": return `h:${hour}`;
  }
}

const periodsCache = new Map<string, readonly string[]>();

/** Every period (one per tier, largest first) that holds an hour. */
export function periodsOfHour(hour: string): readonly string[] {
  let periods = periodsCache.get(hour);
  if (!periods) {
    if (periodsCache.size > 100_000) periodsCache.clear();
    periods = TIERS.map((tier) => periodOf(tier, hour));
    periodsCache.set(hour, periods);
  }
  return periods;
}

export function tierOf(period: string): Tier {
  return period === ALL_TIME ? "a" : (period[0] as Tier);
}

/** First and last second of a period; all time has none. */
export function spanOf(period: string): { from: Timestamp; to: Timestamp } | undefined {
  const body = period.slice(2);
  switch (tierOf(period)) {
    case "a": return undefined;
    case "y": return { from: `${body}-01-01${DAY_START}`, to: `${body}-12-31${DAY_END}` };
    case "m": return { from: `${body}-01${DAY_START}`, to: `${lastDayOf(body)}${DAY_END}` };
    case "w": return { from: `${body}${DAY_START}`, to: `${addDays(body, 6)}${DAY_END}` };
    case "d": return { from: `${body}${DAY_START}`, to: `${body}${DAY_END}` };
    case "h": return { from: `${body}:00:00`, to: `${body}:59:59` };
  }
}

/** The periods of a tier (other than all time) that overlap [from, to], in time order. */
export function periodsBetween(tier: Exclude<Tier, "a">, from: Timestamp, to: Timestamp): string[] {
  const periods: string[] = [];
  let hour = hourOf(from);
  for (;;) {
    const period = periodOf(tier, hour);
    periods.push(period);
    const end = spanOf(period)!.to;
    if (end >= to) return periods;
    const next = addSecond(end);
    hour = hourOf(next);
  }
}

/** The second after a time. */
export function addSecond(at: Timestamp): Timestamp {
  const ms = Date.UTC(Number(at.slice(0, 4)), Number(at.slice(5, 7)) - 1, Number(at.slice(8, 10)),
    Number(at.slice(11, 13)), Number(at.slice(14, 16)), Number(at.slice(17, 19))) + 1000;
  return new Date(ms).toISOString().slice(0, 19).replace("T", " ");
}

/** The second before a time. */
export function subtractSecond(at: Timestamp): Timestamp {
  const ms = Date.UTC(Number(at.slice(0, 4)), Number(at.slice(5, 7)) - 1, Number(at.slice(8, 10)),
    Number(at.slice(11, 13)), Number(at.slice(14, 16)), Number(at.slice(17, 19))) - 1000;
  return new Date(ms).toISOString().slice(0, 19).replace("T", " ");
}

/** A scope's key as one text (for maps): segment and period cannot be confused, the period holding no NUL. */
export function scopeId(segment: string, period: string): string {
  return `${period}\u0000${segment}`;
}

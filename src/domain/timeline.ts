import type { Context } from "./context.js";
import { requireAccess, type Principal } from "./access.js";
import { addDays, DAY_END, DAY_START } from "./calendar.js";
import { InvalidInputError } from "./errors.js";
import type { MatchCondition } from "./model.js";
import { countVisibleRecords } from "./record-queries.js";
import { checkValueSize, toStoredValue } from "./values.js";

/*
 * Records over time, as the console's chart draws them: the records a reader sees in each
 * hour or day of a window, optionally only those whose values equal one of the chosen ones
 * per field (a report's filterDataToQuery). Each bucket is counted with the count get-data
 * uses, in one snapshot: from the counters (per hour, day, …) wherever they cover the
 * reader's view, from the records otherwise (value filters, some restrictions). Measured
 * on 100,000 records over 60 days: 60 day counts take about 2 ms this way, and 2.7 s as 60
 * get-data calls (which also list every field's values).
 */

export type TimeUnit = "hour" | "day";

/** Buckets one request may ask for: 62 days (two months), or 62 hours. */
export const MAX_BUCKETS = 62;
/** Values one field's filter may list. */
const MAX_FILTER_VALUES = 1000;

export interface TimelineInput {
  readonly blocId: string;
  /** Whole days, YYYY-MM-DD, already checked as real dates with from <= to. */
  readonly from: string;
  readonly to: string;
  readonly unit: TimeUnit;
  readonly filter: Readonly<Record<string, readonly string[]>>;
}

export interface TimeBucket {
  /** Inclusive bounds, YYYY-MM-DD HH:MM:SS. */
  readonly start: string;
  readonly end: string;
  readonly count: number;
}

function bucketsOf(from: string, to: string, unit: TimeUnit): { start: string; end: string }[] {
  const buckets: { start: string; end: string }[] = [];
  for (let day = from; day <= to; day = addDays(day, 1)) {
    if (unit === "day") {
      buckets.push({ start: `${day}${DAY_START}`, end: `${day}${DAY_END}` });
    } else {
      for (let hour = 0; hour < 24; hour += 1) {
        const h = String(hour).padStart(2, "0");
        buckets.push({ start: `${day} ${h}:00:00`, end: `${day} ${h}:59:59` });
      }
    }
    if (buckets.length > MAX_BUCKETS) {
      throw new InvalidInputError(`from ${from} to ${to} makes more than ${MAX_BUCKETS} ${unit}s; ask for a shorter window`);
    }
  }
  return buckets;
}

function matchOf(input: TimelineInput, slugs: readonly string[], ctx: Context): MatchCondition[] {
  return Object.entries(input.filter).map(([slug, values]) => {
    if (!slugs.includes(slug)) throw new InvalidInputError(`f.${slug} names "${slug}", which is not a field of this bloc`);
    if (values.length > MAX_FILTER_VALUES) throw new InvalidInputError(`f.${slug} lists more than ${MAX_FILTER_VALUES} values`);
    return {
      key: slug,
      values: values.map((value) => {
        const stored = toStoredValue(`f.${slug}`, value);
        checkValueSize(`f.${slug}`, stored, ctx.limits);
        return stored;
      }),
    };
  });
}

export async function timeline(ctx: Context, principal: Principal, input: TimelineInput): Promise<TimeBucket[]> {
  const { bloc, visibility } = await requireAccess(ctx, principal, input.blocId, "read");
  const buckets = bucketsOf(input.from, input.to, input.unit);
  const match = matchOf(input, bloc.fields.map((f) => f.slug), ctx);
  const counts = await ctx.store.snapshot(async (view) => {
    const found: number[] = [];
    for (const { start, end } of buckets) {
      found.push(await countVisibleRecords(view, { blocId: bloc.id, visibility, from: start, to: end, ...(match.length > 0 ? { match } : {}) }));
    }
    return found;
  });
  return buckets.map((bucket, i) => ({ ...bucket, count: counts[i]! }));
}

import type { Context } from "../src/domain/context.js";
import { createBloc } from "../src/domain/blocs.js";
import type { NewRecord } from "../src/store/store.js";
import { importRecords } from "../src/domain/record-writes.js";

/**
 * Synthetic blocs shaped like a scanner's: 10 fields (5 categorical with 2 to 50
 * skewed values, 3 free text, a number and a date), records spread over 365 days
 * and 20 users. Deterministic, so that runs compare.
 */
export const CATEGORIES: readonly { name: string; values: readonly string[] }[] = [
  { name: "Status", values: ["ok", "rejected"] },
  { name: "Site", values: ["Dublin", "Cork", "Galway", "Limerick", "Sligo"] },
  { name: "Line", values: Array.from({ length: 10 }, (_, i) => `Line ${i + 1}`) },
  { name: "Operator", values: Array.from({ length: 20 }, (_, i) => `OP-${String(i + 1).padStart(2, "0")}`) },
  { name: "Product", values: Array.from({ length: 50 }, (_, i) => `P-${String(i + 1).padStart(3, "0")}`) },
];

const WORDS = ("box pallet label torn missing damp crushed ok checked resealed late early driver dock door seal " +
  "broken count short over wrong address rework photo signed unsigned fragile heavy split wrapped loose cold warm " +
  "scan retry manual override returned held released quarantine sample partial complete urgent").split(" ");

/** Field slugs: field_1..field_5 categorical, serial, batch, comment, weight, best before. */
export const SERIAL = "field_6";
export const BATCH = "field_7";
export const COMMENT = "field_8";
export const SITE = "field_2";

function randomFrom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A value picked with weights 1, 1/2, 1/3, …: a few common values and a long tail. */
function skewed(values: readonly string[], next: () => number): string {
  const total = values.reduce((sum, _, i) => sum + 1 / (i + 1), 0);
  let point = next() * total;
  for (let i = 0; i < values.length; i += 1) {
    point -= 1 / (i + 1);
    if (point <= 0) return values[i]!;
  }
  return values[values.length - 1]!;
}

export async function createBenchBloc(ctx: Context, name: string): Promise<string> {
  const bloc = await createBloc(ctx, {
    name,
    fields: [
      ...CATEGORIES.map((c, i) => ({
        name: c.name, type: "select" as const, options: c.values, required: true, applyProfileFilter: i === 1,
      })),
      { name: "Serial", indexed: true },
      { name: "Batch", indexed: true },
      { name: "Comment" },
      { name: "Weight", type: "number" as const },
      { name: "Best before", type: "date" as const },
    ],
  });
  return bloc.id;
}

const DAY_MS = 86_400_000;
/** The 365 days the records fall in end the day before this. */
export const SEED_END = Date.UTC(2026, 10, 21);

function stamp(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace("T", " ");
}

/**
 * The i-th of `count` synthetic records of a bloc. Records arrive in time order, as
 * scans do, spread evenly over the 365 days with a little jitter.
 */
export function record(blocId: string, i: number, count: number, users: readonly string[], next: () => number): NewRecord {
  const values: Record<string, string> = {};
  CATEGORIES.forEach((c, index) => { values[`field_${index + 1}`] = skewed(c.values, next); });
  values[SERIAL] = `SN-${String(i).padStart(8, "0")}`;
  values[BATCH] = `B-${String(Math.floor(i / 1000)).padStart(5, "0")}`;
  const words = 2 + Math.floor(next() * 4);
  values[COMMENT] = Array.from({ length: words }, () => WORDS[Math.floor(next() * WORDS.length)]).join(" ") +
    (next() < 0.5 ? ` #${Math.floor(next() * 100000)}` : "");
  values.field_9 = (next() * 100).toFixed(2);
  values.field_10 = stamp(SEED_END + Math.floor(next() * 365) * DAY_MS).slice(0, 10);
  return {
    blocId,
    createdAt: stamp(SEED_END - DAY_MS * 365 + Math.floor(((i + next()) / count) * DAY_MS * 365)),
    userId: users[Math.floor(next() * users.length)]!,
    submittedStatus: 1,
    jobId: null,
    values,
  };
}

/** Imports `count` records in transactions of 20,000; returns records per second. */
export async function seed(ctx: Context, blocId: string, count: number, users: readonly string[]): Promise<number> {
  const next = randomFrom(count);
  const started = performance.now();
  for (let done = 0; done < count;) {
    const size = Math.min(20_000, count - done);
    const batch = Array.from({ length: size }, (_, k) => record(blocId, done + k, count, users, next));
    await ctx.store.transaction((tx) => importRecords(tx, batch));
    done += size;
  }
  return count / ((performance.now() - started) / 1000);
}

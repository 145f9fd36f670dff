import type { Context } from "../src/domain/context.js";
import { createBloc } from "../src/domain/blocs.js";
import type { NewRecord } from "../src/domain/ports/store.js";
import { importRecords, rebuildCounters } from "../src/domain/record-writes.js";
import { bulkImportRecords } from "../src/domain/bulk-import.js";

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
/** An order reference: key-like, unique per record, and not marked `indexed` (searching any field, issue 10). */
export const ORDER_REF = "field_11";

/** Record i's order reference: i scrambled by an odd multiplier mod 2^32 (distinct for distinct i), without using the random stream. */
export function orderRef(i: number): string {
  return `ORD-${(Math.imul(i, 0x9e3779b1) >>> 0).toString(16).padStart(8, "0")}`;
}

/** A deterministic stream of numbers in [0, 1) (mulberry32). */
export function randomFrom(seed: number): () => number {
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
      { name: "Order ref" },
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

/** When a bloc's records were created: from `start` (ms since the epoch), over `ms`. */
export interface Span {
  readonly start: number;
  readonly ms: number;
}

/** The 365 days before SEED_END, where the bench's blocs put their records unless told otherwise. */
export const YEAR: Span = { start: SEED_END - DAY_MS * 365, ms: DAY_MS * 365 };

/** One day's 24 hours, from midnight of `day` ("YYYY-MM-DD", UTC as the store's timestamps are). */
export function daySpan(day: string): Span {
  return { start: Date.parse(`${day}T00:00:00Z`), ms: DAY_MS };
}

/**
 * The field values of record i: every select field from its values, serial, batch, a
 * comment, a weight, a best-before date and an order reference.
 */
export function recordValues(i: number, next: () => number): Record<string, string> {
  const values: Record<string, string> = {};
  CATEGORIES.forEach((c, index) => { values[`field_${index + 1}`] = skewed(c.values, next); });
  values[SERIAL] = `SN-${String(i).padStart(8, "0")}`;
  values[BATCH] = `B-${String(Math.floor(i / 1000)).padStart(5, "0")}`;
  const words = 2 + Math.floor(next() * 4);
  values[COMMENT] = Array.from({ length: words }, () => WORDS[Math.floor(next() * WORDS.length)]).join(" ") +
    (next() < 0.5 ? ` #${Math.floor(next() * 100000)}` : "");
  values.field_9 = (next() * 100).toFixed(2);
  values.field_10 = stamp(SEED_END + Math.floor(next() * 365) * DAY_MS).slice(0, 10);
  values[ORDER_REF] = orderRef(i);
  return values;
}

/**
 * The i-th of `count` synthetic records of a bloc. Records arrive in time order, as
 * scans do, spread evenly over `span` (the 365 days by default) with a little jitter.
 */
export function record(blocId: string, i: number, count: number, users: readonly string[], next: () => number, span: Span = YEAR): NewRecord {
  const values = recordValues(i, next);
  return {
    blocId,
    createdAt: stamp(span.start + Math.floor(((i + next()) / count) * span.ms)),
    userId: users[Math.floor(next() * users.length)]!,
    submittedStatus: 1,
    jobId: null,
    values,
  };
}

/**
 * How records reach the store: `bulk` (the default: `bulkImportRecords`, one
 * transaction, counters counted as the records stream in); through it (`store`:
 * `importRecords`, rules, counters in each transaction); or as canonical rows with
 * `importRows`, then `rebuildCounters` recounting the bloc from its records (`rebuild`).
 */
export type SeedPath = "bulk" | "store" | "rebuild";
export const SEED_PATHS: readonly SeedPath[] = ["bulk", "store", "rebuild"];

export interface SeedReport {
  readonly records: number;
  /** Records loaded with the bulk import, and the seconds they took (records made on the way included). */
  readonly bulkRecords: number;
  readonly bulkSeconds: number;
  /** Records imported through the store, and the seconds they took. */
  readonly storeRecords: number;
  readonly storeSeconds: number;
  /** Records copied as canonical rows with `importRows`, and the seconds that took. */
  readonly rowsRecords: number;
  readonly rowsSeconds: number;
  /** Seconds `rebuildCounters` took after rows were copied (0 otherwise). */
  readonly countersSeconds: number;
}

/** Records per transaction through the store, and rows per `importRows` call. */
const BATCH_SIZE = 20_000;

/**
 * Seeds blocs with `record`'s deterministic records. Whichever path a record takes, it
 * is the same record. Record IDs handed out so far are tracked, so that rows copied
 * with `importRows` take the next ones (the store's key sequence moves past them).
 */
export class Seeder {
  private maxId = 0;

  constructor(private readonly ctx: Context, private readonly users: readonly string[]) {}

  /** Imports `count` records, created over `span`, into the bloc (through the store and as rows, in batches of 20,000). */
  async seed(blocId: string, count: number, path: SeedPath, span: Span = YEAR): Promise<SeedReport> {
    const next = randomFrom(count);
    const none = { storeRecords: 0, storeSeconds: 0, rowsRecords: 0, rowsSeconds: 0, countersSeconds: 0 };
    if (path === "bulk") {
      const started = performance.now();
      const users = this.users;
      const made = function* (): Generator<NewRecord> {
        for (let i = 0; i < count; i += 1) yield record(blocId, i, count, users, next, span);
      };
      const { lastId } = await bulkImportRecords(this.ctx.store, blocId, made());
      this.maxId = Math.max(this.maxId, lastId);
      return { ...none, records: count, bulkRecords: count, bulkSeconds: (performance.now() - started) / 1000 };
    }
    let storeRecords = 0;
    let storeSeconds = 0;
    let rowsRecords = 0;
    let rowsSeconds = 0;
    for (let done = 0; done < count;) {
      const started = performance.now();
      const size = Math.min(BATCH_SIZE, count - done);
      const batch = Array.from({ length: size }, (_, k) => record(blocId, done + k, count, this.users, next, span));
      if (path === "rebuild") {
        await this.ctx.store.maintenance.importRows("records", batch.map((r) => ({
          id: (this.maxId += 1), bloc_id: r.blocId, created_at: r.createdAt, user_id: r.userId,
          submitted_status: r.submittedStatus, job_id: r.jobId, data: JSON.stringify(r.values),
        })));
        rowsSeconds += (performance.now() - started) / 1000;
        rowsRecords += size;
      } else {
        const ids = await this.ctx.store.transaction((tx) => importRecords(tx, batch));
        for (const id of ids) this.maxId = Math.max(this.maxId, id);
        storeSeconds += (performance.now() - started) / 1000;
        storeRecords += size;
      }
      done += size;
    }
    const report = { records: count, bulkRecords: 0, bulkSeconds: 0, storeRecords, storeSeconds, rowsRecords, rowsSeconds };
    if (rowsRecords === 0) return { ...report, countersSeconds: 0 };
    const started = performance.now();
    await this.ctx.store.transaction((tx) => rebuildCounters(tx, blocId));
    return { ...report, countersSeconds: (performance.now() - started) / 1000 };
  }
}

/** Which path a seeding took, in words. */
export function describeSeed(report: SeedReport): string {
  const rate = (n: number, s: number): string => `${Math.round(n / s).toLocaleString("en")} records/s`;
  const parts: string[] = [];
  if (report.bulkRecords > 0) parts.push(`${report.bulkRecords.toLocaleString("en")} by bulk import (bulkImportRecords) at ${rate(report.bulkRecords, report.bulkSeconds)}`);
  if (report.storeRecords > 0) {
    parts.push(`${report.storeRecords.toLocaleString("en")} through the store (importRecords) at ${rate(report.storeRecords, report.storeSeconds)}`);
  }
  if (report.rowsRecords > 0) {
    parts.push(`${report.rowsRecords.toLocaleString("en")} as rows (importRows) at ${rate(report.rowsRecords, report.rowsSeconds)}, then ` +
      `rebuildCounters over all ${report.records.toLocaleString("en")} in ${report.countersSeconds.toFixed(0)} s (${rate(report.records, report.countersSeconds)})`);
  }
  return parts.join("; ");
}

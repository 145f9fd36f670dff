import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { readConfig } from "../src/config.js";
import { openContext } from "../src/open-context.js";
import { getBloc } from "../src/domain/blocs.js";
import { layoutOf, type Layout } from "../src/domain/counting/keys.js";
import { startProcess } from "../test/support/process.js";
import { load, type Load } from "./measure.js";
import { makeMembers, memberAdds, prefill, type Members } from "./members.js";
import type { Figure } from "./results.js";
import { scopeCounts } from "./scope-counts.js";
import { CATEGORIES, createBenchBloc } from "./seed.js";

/*
 * How high add-data's ratio to the ceiling (the bare Fastify route) can go on this machine
 * with SQLite, whatever the service does around the write: `node dist/bench/add-data-floor.js
 * [--prefill N]`. It measures, in CPU time per request, the costs no implementation of
 * add-data avoids:
 *
 * - the load generator's (autocannon, in this process), which shares the machine's cores;
 * - the framework's: the bare Fastify route the ratio is taken against (its server's CPU);
 * - the engine's: the bench's realistic records (bench/members.ts: a new serial, order
 *   ref and comment each time, 20 members, the current time), inserted into the records
 *   table as the schema has it through better-sqlite3 with no service around them, in
 *   transactions of 32 (every connection's request in one group commit), each committed to
 *   the WAL as the service's settings do (synchronous NORMAL; the flush that follows is left
 *   out, as a thread can do it); the WAL checkpoints timed apart from the transactions.
 *   Measured with every field's value index (issue 10: every field searchable), then with
 *   the record counts of each record's scopes (the least an exact `count` of any window
 *   and reader keeps: scope-counts.ts), then without the value indexes. No value counts, validation, authentication or HTTP body: a floor, not an
 *   estimate.
 *
 * One writer at a time holds an SQLite database, so the engine's transactions run one
 * after another on one thread (the event loop's, or a writer thread's), while the
 * framework needs the event loop and every part a core. add-data can therefore answer at
 * most min(1 / framework, 1 / engine, cores / (framework + making the rows + engine +
 * checkpoints + generator)) requests per second; the bound printed is that over the ceiling.
 * `npm run bench` on SQLite measures the same in its run, against its own ceiling (run.ts).
 */

const CONNECTIONS = 32;
const SECONDS = 4;
const GROUP = CONNECTIONS;
const WARM_UP = 64 * GROUP;
const ADDS = 320 * GROUP;
/** Commits between timed checkpoints: about the service's CHECKPOINT_PAGES (4,000) of WAL at this record's size. */
const COMMITS_PER_CHECKPOINT = 100;
const here = path.dirname(fileURLToPath(import.meta.url));
const prefillAt = process.argv.indexOf("--prefill");
const PREFILL = prefillAt > 0 ? Number(process.argv[prefillAt + 1]) : 0;

/** CPU time (user + system) a process has used, in µs, from /proc. */
function processCpuUs(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 1_000_000 / 100;
}

function cpuUs(since: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(since);
  return used.user + used.system;
}

/** What the bare route and the load generator cost per request, from one load of the ceiling. */
export interface FrameworkCosts {
  readonly rps: number;
  readonly frameworkUs: number;
  readonly generatorUs: number;
}

/** Runs `measure` (a load of `seconds` on the ceiling server `pid`, after load()'s 0.5 s warm-up) and takes its CPU per request. */
export async function frameworkCosts<T extends Load>(pid: number, seconds: number, measure: () => Promise<T>): Promise<{ load: T; costs: FrameworkCosts }> {
  const serverBefore = processCpuUs(pid);
  const generatorBefore = process.cpuUsage();
  const result = await measure();
  const generator = cpuUs(generatorBefore);
  const requests = result.requests * (1 + 0.5 / seconds);
  return {
    load: result,
    costs: { rps: result.rps, frameworkUs: (processCpuUs(pid) - serverBefore) / requests, generatorUs: generator / requests },
  };
}

/** The bare route's costs per request, from a load of its own server (32 connections, 4 s). */
export async function ceilingCosts(): Promise<FrameworkCosts> {
  const ceiling = await startProcess({ BLOC_LOG_LEVEL: "warn" }, os.tmpdir(), path.join(here, "ceiling-server.js"));
  try {
    return (await frameworkCosts(ceiling.child.pid!, SECONDS, () =>
      load({ url: `${ceiling.url}/`, method: "POST", body: {}, connections: CONNECTIONS, seconds: SECONDS }))).costs;
  } finally {
    await ceiling.stop();
  }
}

export interface EngineCost {
  readonly label: string;
  /** CPU per add making the rows and their scopes' counts, before the transaction (another thread's than the writer's). */
  readonly preparingUs: number;
  /** CPU per add in the transactions: inserts, counts and COMMIT. */
  readonly writerUs: number;
  /** CPU per add of the checkpoints that copied those transactions' pages into the database. */
  readonly checkpointUs: number;
  readonly keysPerAdd: number;
}

/** What the engine costs per add, three ways; `counted` is the one the bound is quoted with. */
export interface EngineCosts {
  /** The records with every field's value index. */
  readonly indexed: EngineCost;
  /** Those and the record counts of their scopes. */
  readonly counted: EngineCost;
  /** The records without value indexes. */
  readonly bare: EngineCost;
  readonly valueIndexes: number;
}

/**
 * The floors' bloc, made by the service on `databaseUrl` and closed again: the bench's fields,
 * 20 members holding every site, and `prefillCount` records when asked (a bloc in use).
 */
export async function floorBloc(databaseUrl: string, filesDir: string, prefillCount: number): Promise<{ blocId: string; members: Members; layout: Layout }> {
  const ctx = await openContext(readConfig({
    DATABASE_URL: databaseUrl, BLOC_FILES_DIR: filesDir, BLOC_ADMIN_TOKEN: `floor-admin-${Date.now()}-0123456789`,
  }));
  try {
    const blocId = await createBenchBloc(ctx, "Floor");
    const members = await makeMembers(ctx, blocId, 20, CATEGORIES[1]!.values);
    if (prefillCount > 0) await prefill(ctx, members, prefillCount);
    return { blocId, members, layout: layoutOf(await getBloc(ctx, blocId)) };
  } finally {
    await ctx.store.close();
  }
}

/** The engine's costs per add into a new bloc (`prefill` 0) or one holding `prefill` records. */
export async function engineCosts(prefillCount: number): Promise<EngineCosts> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bloc-bench-floor-"));
  try {
    const file = path.join(dir, "bloc.db");
    const { blocId, members, layout } = await floorBloc(`sqlite:${file}`, path.join(dir, "files"), prefillCount);

    const adds = memberAdds(members);
    const records = Array.from({ length: WARM_UP + 3 * ADDS }, (_, i) => {
      const { body } = adds() as { body: { dataToAdd: string } };
      return { userId: members.users[i % members.users.length]!, data: body.dataToAdd };
    });
    const db = new Database(file);
    try {
      db.pragma("journal_mode = WAL");
      db.pragma("synchronous = NORMAL");
      db.pragma("wal_autocheckpoint = 0");
      const insert = db.prepare(`INSERT INTO records (bloc_id, created_at, user_id, submitted_status, job_id, data)
        VALUES (?, ?, ?, ?, ?, ?) RETURNING id`);
      const count = db.prepare(`INSERT INTO counter_scopes (bloc_id, segment, period, n) VALUES (?, ?, ?, ?)
        ON CONFLICT (bloc_id, segment, period) DO UPDATE SET n = n + excluded.n`);
      let next = 0;
      const run = (adds: number, counted: boolean): Omit<EngineCost, "label"> => {
        let preparingUs = 0;
        let writerUs = 0;
        let checkpointUs = 0;
        let keys = 0;
        for (let done = 0, commits = 0; done < adds; done += GROUP) {
          // What a writer thread would be handed: the rows and the scopes' counts, made beforehand.
          const preparing = process.cpuUsage();
          const rows = records.slice(next, next += GROUP).map((r) => ({ ...r, createdAt: new Date().toISOString().slice(0, 19).replace("T", " ") }));
          const scopes = scopeCounts(counted ? [rows.map((r) => ({
            blocId, createdAt: r.createdAt, userId: r.userId, values: JSON.parse(r.data) as Record<string, string>,
          }))] : [], layout);
          preparingUs += cpuUs(preparing);
          const started = process.cpuUsage();
          db.exec("BEGIN IMMEDIATE");
          for (const { userId, data, createdAt } of rows) insert.get(blocId, createdAt, userId, 1, null, data);
          scopes.counts.forEach((n, i) => count.run(blocId, scopes.segments[i], scopes.periods[i], n));
          db.exec("COMMIT");
          writerUs += cpuUs(started);
          keys += scopes.counts.length;
          commits += 1;
          if (commits % COMMITS_PER_CHECKPOINT === 0) {
            const checkpoint = process.cpuUsage();
            db.pragma("wal_checkpoint(PASSIVE)");
            checkpointUs += cpuUs(checkpoint);
          }
        }
        db.pragma("wal_checkpoint(TRUNCATE)");
        return { preparingUs: preparingUs / adds, writerUs: writerUs / adds, checkpointUs: checkpointUs / adds, keysPerAdd: keys / adds };
      };
      const measure = (label: string, counted: boolean): EngineCost => ({ label, ...run(ADDS, counted) });
      run(WARM_UP, true); // statements prepared, pages cached
      const indexed = measure("every field's value index", false);
      const counted = measure("those and the record counts of its scopes", true);
      const valueIndexes = db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND name GLOB 'records_by_value_*'")
        .pluck().all() as string[];
      for (const name of valueIndexes) db.exec(`DROP INDEX "${name}"`);
      return { indexed, counted, bare: measure("no value index", false), valueIndexes: valueIndexes.length };
    } finally {
      db.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The most requests per second add-data could answer with the engine's `cost`. */
export function boundRps(framework: FrameworkCosts, cost: EngineCost, cores = os.availableParallelism()): number {
  return Math.min(1_000_000 / framework.frameworkUs, 1_000_000 / cost.writerUs,
    cores * 1_000_000 / (framework.frameworkUs + cost.preparingUs + cost.writerUs + cost.checkpointUs + framework.generatorUs));
}

export interface AddFloorRow {
  /** Records the bloc held before the adds. */
  readonly held: number;
  readonly cost: EngineCost;
  readonly rps: number;
  /** rps over the ceiling's. */
  readonly ratio: number;
}

export interface AddFloor {
  readonly framework: FrameworkCosts;
  readonly fresh: AddFloorRow;
  readonly inUse: AddFloorRow;
}

/** The bench's row: the bound into a new bloc and into a bloc in use. */
export function addFloorFigure(floor: AddFloor): Figure {
  const row = (r: AddFloorRow, where: string): string => `${where}: at most ${Math.round(r.rps).toLocaleString("en")} req/s, ` +
    `${r.ratio.toFixed(2)} of the bare route (${r.cost.writerUs.toFixed(0)} µs per add in the transactions, ${r.cost.checkpointUs.toFixed(0)} µs checkpointing)`;
  return {
    name: "floor: add-data's highest ratio to the bare route on this machine, whatever the service does around the write — " +
      "the same realistic records into records with every field's value index and their scopes' record counts, by bare " +
      `better-sqlite3 in transactions of ${GROUP} (SQLite's one writer), with the bare route's and the load's CPU (bench/add-data-floor.ts)`,
    value: `${row(floor.fresh, "into a new bloc")}; ${row(floor.inUse, `into a bloc holding ${floor.inUse.held.toLocaleString("en")}`)}; ` +
      `per request, framework ${floor.framework.frameworkUs.toFixed(1)} µs, load ${floor.framework.generatorUs.toFixed(1)} µs`,
    target: "bound on add-data's ratio", met: null,
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const ceiling = await ceilingCosts();
  const engine = await engineCosts(PREFILL);
  const out = (line: string): void => { process.stdout.write(`${line}\n`); };
  out(`cores ${os.availableParallelism()}; ceiling ${Math.round(ceiling.rps)} req/s at ${CONNECTIONS} connections; ` +
    `${PREFILL > 0 ? `a bloc holding ${PREFILL.toLocaleString("en")} records` : "a new bloc"}`);
  out(`CPU per request: framework (bare Fastify route) ${ceiling.frameworkUs.toFixed(1)} µs, load generator ${ceiling.generatorUs.toFixed(1)} µs`);
  out(`CPU per realistic record, bare better-sqlite3, transactions of ${GROUP} committed to the WAL (${engine.valueIndexes} value indexes):`);
  for (const cost of [engine.indexed, engine.counted, engine.bare]) {
    const rps = boundRps(ceiling, cost);
    out(`  ${cost.label}: ${cost.preparingUs.toFixed(1)} µs making the rows, ${cost.writerUs.toFixed(1)} µs in the transaction, ` +
      `${cost.checkpointUs.toFixed(1)} µs checkpointing` +
      `${cost.keysPerAdd > 0 ? ` (${cost.keysPerAdd.toFixed(2)} scope rows per add)` : ""}; ` +
      `at most ${Math.round(rps).toLocaleString("en")} req/s, ${(rps / ceiling.rps).toFixed(2)} of the ceiling`);
  }
  out("(no value counts, validation, authentication, request body or sync to disk counted)");
}

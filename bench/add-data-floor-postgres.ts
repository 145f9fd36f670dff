import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import postgres from "postgres";
import { CpuMeter, type CpuPerRequest } from "./cpu-budget.js";
import { ceilingCosts, floorBloc, type FrameworkCosts } from "./add-data-floor.js";
import type { Figure } from "./results.js";
import { memberAdds } from "./members.js";
import { createBenchDatabase, driverCeiling, type DriverCeiling } from "./postgres.js";
import { scopeCounts } from "./scope-counts.js";

/*
 * How high add-data's ratio to the driver loop can go on this machine with PostgreSQL,
 * whatever the service does around the write: `node dist/bench/add-data-floor-postgres.js
 * [--prefill N]`. The counterpart of add-data-floor.ts (SQLite), with one difference that
 * PostgreSQL allows: transactions of different connections run side by side, so the bound
 * is the machine's cores over the CPU an add costs, with no one writer to wait for.
 *
 * What it counts, per add, in CPU time (from /proc, as bench/cpu-budget.ts):
 * - the load generator's (autocannon, in this process) and the framework's (the bare
 *   Fastify route's server), from one load of the bare route;
 * - the driver loop's own run, the reference of the ratio (bench/postgres.ts), measured
 *   beside it;
 * - the engine's: the bench's realistic records (bench/members.ts) inserted into `records`
 *   as the service's schema has it (every field's value index) by the `postgres` driver,
 *   32 records a transaction (every connection's request in one group), one INSERT per
 *   transaction, four transactions side by side — PostgreSQL's CPU and the client's.
 *   Measured with the value indexes, then with each transaction also appending its scopes'
 *   record counts (the least an exact `count` of every window and reader keeps:
 *   scope-counts.ts) as rows of deltas to a table without an index (no row shared with
 *   another transaction, so no lock), then without the value indexes. No value counts,
 *   validation, authentication, request body or event counted: a floor, not an estimate.
 */

const CONNECTIONS = 32;
const SECONDS = 4;
const GROUP = CONNECTIONS;
const SIDE_BY_SIDE = 4;
const WARM_UP = 32 * GROUP;
const ADDS = 400 * GROUP;

export interface PostgresEngineCost {
  readonly label: string;
  /** CPU per add making the rows and their scopes' counts, before the transaction. */
  readonly preparingUs: number;
  /** CPU per add in the transactions: PostgreSQL's (every process of the server) and the client's. */
  readonly postgresUs: number;
  readonly clientUs: number;
  readonly deltasPerAdd: number;
}

export interface PostgresEngineCosts {
  readonly indexed: PostgresEngineCost;
  readonly counted: PostgresEngineCost;
  readonly bare: PostgresEngineCost;
  readonly valueIndexes: number;
  /** The driver loop on the same database, when asked for (the bench's run measures its own). */
  readonly driver?: DriverCeiling;
}

interface Group {
  readonly createdAt: string[];
  readonly userIds: string[];
  readonly data: string[];
  readonly segments: string[];
  readonly periods: string[];
  readonly counts: number[];
}

/** The engine's costs per add into a new bloc (`prefillCount` 0) or one holding that many records, and the driver loop beside them. */
export async function postgresEngineCosts(prefillCount: number, options: { readonly driverLoop: boolean }): Promise<PostgresEngineCosts> {
  const database = await createBenchDatabase();
  const files = fs.mkdtempSync(path.join(os.tmpdir(), "bloc-bench-floor-files-"));
  try {
    const { blocId, members, layout } = await floorBloc(database.url, files, prefillCount);

    const adds = memberAdds(members);
    const groups = (count: number, counted: boolean): { groups: Group[]; preparingUs: number } => {
      const started = process.cpuUsage();
      const made: Group[] = [];
      for (let done = 0; done < count; done += GROUP) {
        const createdAt = new Date().toISOString().slice(0, 19).replace("T", " ");
        const rows = Array.from({ length: GROUP }, (_, i) => {
          const { body } = adds() as { body: { dataToAdd: string } };
          return { userId: members.users[(done + i) % members.users.length]!, data: body.dataToAdd, createdAt };
        });
        const scopes = scopeCounts(counted ? [rows.map((r) => ({
          blocId, createdAt: r.createdAt, userId: r.userId, values: JSON.parse(r.data) as Record<string, string>,
        }))] : [], layout);
        made.push({ createdAt: rows.map((r) => r.createdAt), userIds: rows.map((r) => r.userId), data: rows.map((r) => r.data), ...scopes });
      }
      const used = process.cpuUsage(started);
      return { groups: made, preparingUs: (used.user + used.system) / count };
    };

    const sql = postgres(database.url, { max: SIDE_BY_SIDE, onnotice: () => {} });
    try {
      await sql`CREATE TABLE floor_scope_deltas (bloc_id text NOT NULL, segment text NOT NULL, period text NOT NULL, n integer NOT NULL)`;
      const write = (group: Group): Promise<unknown> => sql.begin(async (tx) => {
        await tx`INSERT INTO records (bloc_id, created_at, user_id, submitted_status, job_id, data)
          SELECT ${blocId}, c, u, 1, NULL, d::jsonb
          FROM unnest(${group.createdAt}::text[], ${group.userIds}::text[], ${group.data}::text[]) AS t(c, u, d)`;
        if (group.counts.length > 0) {
          await tx`INSERT INTO floor_scope_deltas (bloc_id, segment, period, n)
            SELECT ${blocId}, s, p, n FROM unnest(${group.segments}::text[], ${group.periods}::text[], ${group.counts}::int[]) AS t(s, p, n)`;
        }
      });
      const run = async (label: string, count: number, counted: boolean): Promise<PostgresEngineCost> => {
        const { groups: pending, preparingUs } = groups(count, counted);
        const deltas = pending.reduce((sum, g) => sum + g.counts.length, 0);
        const meter = new CpuMeter(undefined, { postgres: true });
        let next = 0;
        await Promise.all(Array.from({ length: SIDE_BY_SIDE }, async () => {
          while (next < pending.length) await write(pending[next++]!);
        }));
        const cpu: CpuPerRequest = meter.perRequest(count);
        return { label, preparingUs, postgresUs: cpu.postgres, clientUs: cpu.load, deltasPerAdd: deltas / count };
      };
      await run("warm-up", WARM_UP, true);
      const indexed = await run("every field's value index", ADDS, false);
      const counted = await run("those and the record counts of its scopes", ADDS, true);
      const valueIndexes = (await sql`SELECT indexname FROM pg_indexes WHERE tablename = 'records' AND indexname LIKE 'records_by_value_%'`)
        .map((row) => String(row.indexname));
      for (const name of valueIndexes) await sql.unsafe(`DROP INDEX "${name}"`);
      const bare = await run("no value index", ADDS, false);
      if (!options.driverLoop) return { indexed, counted, bare, valueIndexes: valueIndexes.length };
      const driver = await driverCeiling(database.url, {
        loops: CONNECTIONS, pool: 10, seconds: SECONDS, databaseName: database.name,
        row: { blocId, userId: members.users[0]!, values: { field_1: "x" } },
      });
      return { indexed, counted, bare, valueIndexes: valueIndexes.length, driver };
    } finally {
      await sql.end();
    }
  } finally {
    await database.drop();
    fs.rmSync(files, { recursive: true, force: true });
  }
}

/** The most requests per second the machine's cores could answer at the engine's `cost` and the framework's. */
export function postgresBoundRps(framework: FrameworkCosts, cost: PostgresEngineCost, cores = os.availableParallelism()): number {
  return Math.min(cores * 1_000_000 / framework.frameworkUs,
    cores * 1_000_000 / (framework.frameworkUs + framework.generatorUs + cost.preparingUs + cost.postgresUs + cost.clientUs));
}

export interface PostgresAddFloorRow {
  /** Records the bloc held before the adds. */
  readonly held: number;
  readonly cost: PostgresEngineCost;
  readonly rps: number;
  /** rps over the run's driver loop. */
  readonly ratio: number;
}

export interface PostgresAddFloor {
  readonly framework: FrameworkCosts;
  readonly fresh: PostgresAddFloorRow;
  readonly inUse: PostgresAddFloorRow;
}

/** The bench's row: the bound into a new bloc and into a bloc in use, over the run's driver loop. */
export function postgresAddFloorFigure(floor: PostgresAddFloor): Figure {
  const row = (r: PostgresAddFloorRow, where: string): string => `${where}: at most ${Math.round(r.rps).toLocaleString("en")} req/s, ` +
    `${r.ratio.toFixed(2)} of the driver loop (PostgreSQL ${r.cost.postgresUs.toFixed(0)} µs, client ${r.cost.clientUs.toFixed(0)} µs, ` +
    `making the rows ${r.cost.preparingUs.toFixed(0)} µs per add)`;
  return {
    name: "floor: add-data's highest ratio to the driver loop on this machine, whatever the service does around the write — " +
      "the same realistic records into records with every field's value index and their scopes' record counts (as rows of deltas), " +
      `by the bare driver in transactions of ${GROUP}, ${SIDE_BY_SIDE} side by side, with the bare route's and the load's CPU, ` +
      "over the machine's cores (bench/add-data-floor-postgres.ts)",
    value: `${row(floor.fresh, "into a new bloc")}; ${row(floor.inUse, `into a bloc holding ${floor.inUse.held.toLocaleString("en")}`)}; ` +
      `per request, framework ${floor.framework.frameworkUs.toFixed(1)} µs, load ${floor.framework.generatorUs.toFixed(1)} µs`,
    target: "bound on add-data's ratio", met: null,
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const prefillAt = process.argv.indexOf("--prefill");
  const prefillCount = prefillAt > 0 ? Number(process.argv[prefillAt + 1]) : 0;
  const framework = await ceilingCosts();
  const engine = await postgresEngineCosts(prefillCount, { driverLoop: true });
  const driver = engine.driver!;
  const out = (line: string): void => { process.stdout.write(`${line}\n`); };
  const driverCpu = driver.cpu;
  const driverBound = os.availableParallelism() * 1_000_000 / (driverCpu.postgres + driverCpu.load);
  out(`cores ${os.availableParallelism()}; ${prefillCount > 0 ? `a bloc holding ${prefillCount.toLocaleString("en")} records` : "a new bloc"}`);
  out(`CPU per request: framework (bare Fastify route, ${Math.round(framework.rps)} req/s) ${framework.frameworkUs.toFixed(1)} µs, ` +
    `load generator ${framework.generatorUs.toFixed(1)} µs`);
  out(`driver loop: ${Math.round(driver.rps)} tx/s; PostgreSQL ${driverCpu.postgres.toFixed(0)} µs, client ${driverCpu.load.toFixed(0)} µs ` +
    `per transaction (its own CPU bound ${Math.round(driverBound)} tx/s)`);
  out(`CPU per realistic record, ${GROUP} a transaction, ${SIDE_BY_SIDE} transactions side by side (${engine.valueIndexes} value indexes):`);
  for (const cost of [engine.indexed, engine.counted, engine.bare]) {
    const rps = postgresBoundRps(framework, cost);
    out(`  ${cost.label}: ${cost.preparingUs.toFixed(1)} µs making the rows, PostgreSQL ${cost.postgresUs.toFixed(1)} µs, ` +
      `client ${cost.clientUs.toFixed(1)} µs` +
      `${cost.deltasPerAdd > 0 ? ` (${cost.deltasPerAdd.toFixed(2)} scope deltas per add)` : ""}; ` +
      `at most ${Math.round(rps).toLocaleString("en")} req/s, ${(rps / driver.rps).toFixed(2)} of the driver loop ` +
      `(${(rps / driverBound).toFixed(2)} of its CPU bound)`);
  }
  out("(no value counts, validation, authentication, request body or event counted)");
}

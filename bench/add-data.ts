import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { readConfig } from "../src/config.js";
import { openContext } from "../src/open-context.js";
import { createUser } from "../src/domain/users.js";
import { startProcess } from "../test/support/process.js";
import { CpuMeter, cpuBoundRps, describeCpu } from "./cpu-budget.js";
import { cpuMs, load, type Load } from "./measure.js";
import { createBenchDatabase, driverCeiling, type DriverCeiling } from "./postgres.js";
import { BATCH, CATEGORIES, COMMENT, SERIAL, createBenchBloc } from "./seed.js";
import { makeMembers, memberAdds, prefill } from "./members.js";
import { eventsCpuRatio, eventsRatio, measureEvents } from "./events.js";

/*
 * add-data alone, to iterate on it: `node dist/bench/add-data.js [--store postgres]
 * [--rounds 3] [--seconds 3]`. Each round measures the reference (the bare Fastify route;
 * on PostgreSQL also the bare driver loop) and then add-data, back to back, so that each
 * ratio compares figures taken under the same load of a shared machine; the medians of
 * the rounds are printed at the end. With `--members`, every request is a new record of
 * the bench's shape from one of 20 members in turn (bench/members.ts), as scanners send
 * them, instead of one fixed record from the admin; with `--prefill N` as well, the bloc first
 * holds N such records (bench/members.ts prefill), so that the adds land in
 * scopes that count their values, as in a bloc in use rather than a new one. With `--events`, add-data alone and with one webhook
 * and one live stream attached, in alternating rounds (bench/events.ts), instead.
 * `BLOC_BENCH_SERVER_NODE_ARGS` (space-separated) is given to the server's node before its
 * script (for example `--cpu-prof --cpu-prof-dir=/tmp/prof`, which NODE_OPTIONS refuses).
 * `BLOC_COUNTED_ABOVE` set beyond the bloc's size turns value counts off for the server and
 * the prefill alike: what add-data costs without them, as an experiment (answers still
 * exact, reads slow).
 */

function option(name: string): string | undefined {
  const args = process.argv.slice(2);
  const index = args.indexOf(name);
  return index >= 0 ? args[index + 1] : undefined;
}

const STORE = option("--store") ?? "sqlite";
const ROUNDS = Number(option("--rounds") ?? "3");
const SECONDS = Number(option("--seconds") ?? "3");
const CONNECTIONS = 32;
const PREFILL = Number(option("--prefill") ?? "0");
const PG_POOL = process.env.BLOC_PG_POOL ?? "10";
const here = path.dirname(fileURLToPath(import.meta.url));
const say = (line: string): void => { process.stderr.write(`${line}\n`); };

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bloc-bench-adds-"));
  const pg = STORE === "postgres" ? await createBenchDatabase() : undefined;
  const databaseUrl = pg ? pg.url : `sqlite:${path.join(dir, "bloc.db")}`;
  const admin = `bench-admin-${Date.now()}-0123456789`;
  // BLOC_COUNTED_ABOVE reaches the server through its environment; the prefill counts the same way.
  const countedAbove = process.env.BLOC_COUNTED_ABOVE;
  const env = {
    DATABASE_URL: databaseUrl, BLOC_FILES_DIR: path.join(dir, "files"), BLOC_ADMIN_TOKEN: admin, BLOC_PG_POOL: PG_POOL,
    ...(countedAbove ? { BLOC_COUNTED_ABOVE: countedAbove } : {}),
  };
  try {
    const ctx = await openContext(readConfig(env));
    const user = (await createUser(ctx, "operator")).id;
    const blocId = await createBenchBloc(ctx, "Adds");
    const members = process.argv.includes("--members")
      ? await makeMembers(ctx, blocId, 20, CATEGORIES[1]!.values) : undefined;
    if (members && PREFILL > 0) {
      await prefill(ctx, members, PREFILL);
      say(`prefilled the bloc with ${PREFILL.toLocaleString("en")} records`);
    }
    await ctx.store.close();
    const scan: Record<string, string> = {
      ...Object.fromEntries(CATEGORIES.map((c, i) => [`field_${i + 1}`, c.values[0]!])),
      [SERIAL]: "SN-x", [BATCH]: "B-00001", [COMMENT]: "scanned",
    };
    const nodeArgs = process.env.BLOC_BENCH_SERVER_NODE_ARGS?.split(" ").filter((a) => a !== "") ?? [];
    const server = await startProcess({ ...env, BLOC_LOG_LEVEL: "warn" }, dir, undefined, undefined, nodeArgs);
    if (process.argv.includes("--events")) {
      try {
        const run = await measureEvents((p) => `${server.url}${p}`, admin, blocId, { scanStationID: blocId, dataToAdd: JSON.stringify(scan) },
          CONNECTIONS, SECONDS, ROUNDS, dir, server.child.pid!);
        process.stdout.write(`${STORE}: add-data alone ${run.without.map((l) => Math.round(l.rps)).join(", ")} req/s; with a webhook and a ` +
          `live stream ${run.with.map((l) => Math.round(l.rps)).join(", ")} req/s; ratio ${eventsRatio(run).toFixed(2)}; ` +
          `${run.delivered} deliveries acknowledged and ${run.streamed} events streamed during those rounds; CPU per add ` +
          `(server, listeners, load) ${run.cpuWithout.map((c) => c.toFixed(0)).join(", ")} µs alone, ` +
          `${run.cpuWith.map((c) => c.toFixed(0)).join(", ")} µs with them: ratio ${eventsCpuRatio(run).toFixed(2)}\n`);
      } finally {
        await server.stop();
      }
      return;
    }
    const ceiling = await startProcess({ BLOC_LOG_LEVEL: "warn" }, dir, path.join(here, "ceiling-server.js"));
    const rows: { ceil: Load; driver?: DriverCeiling; add: Load; ceilCpu: number; addCpu: number }[] = [];
    const adds = members ? memberAdds(members) : undefined;
    /** The load's figures and the server's CPU time per answered request, in µs. */
    const measured = async (pid: number, run: () => Promise<Load>): Promise<[Load, number]> => {
      const before = cpuMs(pid);
      const result = await run();
      // The warm-up's requests are not counted, so this overstates a little, alike for both servers.
      return [result, ((cpuMs(pid) - before) * 1000) / (result.requests * (1 + 0.5 / SECONDS))];
    };
    try {
      for (let round = 1; round <= ROUNDS; round += 1) {
        const [ceil, ceilCpu] = await measured(ceiling.child.pid!,
          () => load({ url: `${ceiling.url}/`, method: "POST", body: {}, connections: CONNECTIONS, seconds: SECONDS }));
        const driver = pg ? await driverCeiling(pg.url, {
          loops: CONNECTIONS, pool: Number(PG_POOL), seconds: SECONDS, databaseName: pg.name,
          row: { blocId, userId: user, values: scan },
        }) : undefined;
        let meter: CpuMeter | undefined;
        const [add, addCpu] = await measured(server.child.pid!, () => load({
          url: `${server.url}/api/add-data`, method: "POST", token: admin, connections: CONNECTIONS, seconds: SECONDS,
          body: { scanStationID: blocId, dataToAdd: JSON.stringify(scan) },
          ...(members ? { next: adds! } : {}),
        }, () => { meter = new CpuMeter(server.child.pid, { postgres: pg !== undefined }); }));
        const cpu = meter!.perRequest(add.requests);
        rows.push({ ceil, add, ceilCpu, addCpu, ...(driver ? { driver } : {}) });
        const reference = driver ?? ceil;
        say(`round ${round}: ceiling ${Math.round(ceil.rps)} req/s` + (driver ? `, driver ${Math.round(driver.rps)} tx/s` : "") +
          `, add-data ${Math.round(add.rps)} req/s (p50 ${add.p50} ms, p99 ${add.p99} ms, ${add.failures} failed)` +
          `; ratio ${(add.rps / reference.rps).toFixed(2)}` + (driver ? ` (to Fastify ${(add.rps / ceil.rps).toFixed(2)})` : "") +
          `; server CPU per request: ceiling ${ceilCpu.toFixed(0)} µs, add-data ${addCpu.toFixed(0)} µs` +
          `; add-data: ${describeCpu(cpu, "add")}, at most ${(cpuBoundRps(cpu) / reference.rps).toFixed(2)} of the reference side by side` +
          (driver ? `; driver loop: ${describeCpu(driver.cpu, "transaction")}` : ""));
      }
    } finally {
      await server.stop();
      await ceiling.stop();
    }
    const ratios = rows.map((r) => r.add.rps / (r.driver ?? r.ceil).rps);
    process.stdout.write(`${STORE}, ${ROUNDS} rounds of ${SECONDS} s, ${os.loadavg()[0]!.toFixed(1)} load: ` +
      `median ceiling ${Math.round(median(rows.map((r) => r.ceil.rps)))} req/s` +
      (pg ? `, median driver ${Math.round(median(rows.map((r) => r.driver!.rps)))} tx/s` : "") +
      `, median add-data ${Math.round(median(rows.map((r) => r.add.rps)))} req/s, median ratio ${median(ratios).toFixed(2)} ` +
      `(${ratios.map((r) => r.toFixed(2)).join(", ")}); median server CPU per request: ceiling ` +
      `${median(rows.map((r) => r.ceilCpu)).toFixed(0)} µs, add-data ${median(rows.map((r) => r.addCpu)).toFixed(0)} µs\n`);
  } finally {
    await pg?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();

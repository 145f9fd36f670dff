import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { readConfig } from "../src/config.js";
import { openContext } from "../src/open-context.js";
import { createUser } from "../src/domain/users.js";
import { startProcess } from "../test/support/process.js";
import { load } from "./measure.js";
import { BATCH, CATEGORIES, COMMENT, SERIAL, createBenchBloc } from "./seed.js";

/*
 * How high add-data's ratio to the ceiling can go on this machine, whatever the service
 * does around the write: `node dist/bench/add-data-floor.js`. It measures three costs
 * that no implementation of add-data avoids, in CPU time per request:
 *
 * - the load generator's (autocannon, in this process), which shares the machine's cores;
 * - the framework's: the bare Fastify route the ratio is taken against (its server's CPU);
 * - the engine's: one INSERT of the benchmark's scan into the records table as the
 *   schema has it, through better-sqlite3 with no service around it, in transactions of
 *   16 (the group commit's batch at 32 connections), once with every field's value index
 *   (issue 10: every field searchable) and once without them. No counters, no
 *   validation, no sync to disk: a floor, not an estimate.
 *
 * A request needs the framework's CPU on the event loop's thread and, with a writer
 * thread or not, the engine's somewhere, while the generator needs its own. So add-data
 * can answer at most min(1 core / framework, cores / (framework + engine + generator))
 * requests per second; the bound printed is that figure over the ceiling.
 */

const CONNECTIONS = 32;
const SECONDS = 4;
const BATCH_SIZE = 16;
const INSERTS = 20_000;
const here = path.dirname(fileURLToPath(import.meta.url));

/** CPU time (user + system) a process has used, in µs, from /proc. */
function processCpuUs(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 1_000_000 / 100;
}

async function ceilingCosts(): Promise<{ rps: number; frameworkUs: number; generatorUs: number }> {
  const ceiling = await startProcess({ BLOC_LOG_LEVEL: "warn" }, os.tmpdir(), path.join(here, "ceiling-server.js"));
  try {
    const serverBefore = processCpuUs(ceiling.child.pid!);
    const generatorBefore = process.cpuUsage();
    const result = await load({ url: `${ceiling.url}/`, method: "POST", body: {}, connections: CONNECTIONS, seconds: SECONDS });
    const generator = process.cpuUsage(generatorBefore);
    // load() runs a 0.5 s warm-up first, at about the same rate.
    const requests = result.requests * (1 + 0.5 / SECONDS);
    return {
      rps: result.rps,
      frameworkUs: (processCpuUs(ceiling.child.pid!) - serverBefore) / requests,
      generatorUs: (generator.user + generator.system) / requests,
    };
  } finally {
    await ceiling.stop();
  }
}

async function engineCosts(): Promise<{ withIndexesUs: number; withoutIndexesUs: number; valueIndexes: number }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bloc-bench-floor-"));
  try {
    const file = path.join(dir, "bloc.db");
    const ctx = await openContext(readConfig({
      DATABASE_URL: `sqlite:${file}`, BLOC_FILES_DIR: path.join(dir, "files"), BLOC_ADMIN_TOKEN: `floor-admin-${Date.now()}-0123456789`,
    }));
    const userId = (await createUser(ctx, "operator")).id;
    const blocId = await createBenchBloc(ctx, "Floor");
    await ctx.store.close();
    const db = new Database(file);
    try {
      db.pragma("journal_mode = WAL");
      db.pragma("synchronous = OFF");
      const insert = db.prepare(`INSERT INTO records (bloc_id, created_at, user_id, submitted_status, job_id, data)
        VALUES (?, ?, ?, ?, ?, ?) RETURNING id`);
      const scan = (i: number): string => JSON.stringify({
        ...Object.fromEntries(CATEGORIES.map((c, k) => [`field_${k + 1}`, c.values[0]!])),
        [SERIAL]: `SN-${i}`, [BATCH]: "B-00001", [COMMENT]: "scanned",
      });
      const perInsertUs = (): number => {
        const before = process.cpuUsage();
        for (let i = 0; i < INSERTS; i += BATCH_SIZE) {
          db.exec("BEGIN IMMEDIATE");
          for (let k = 0; k < BATCH_SIZE; k += 1) insert.get(blocId, "2026-03-05 10:00:00", userId, 1, null, scan(i + k));
          db.exec("COMMIT");
        }
        const used = process.cpuUsage(before);
        return (used.user + used.system) / INSERTS;
      };
      const valueIndexes = db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND name GLOB 'records_by_value_*'")
        .pluck().all() as string[];
      perInsertUs(); // warm-up: statements prepared, pages cached
      const withIndexesUs = perInsertUs();
      for (const name of valueIndexes) db.exec(`DROP INDEX "${name}"`);
      const withoutIndexesUs = perInsertUs();
      return { withIndexesUs, withoutIndexesUs, valueIndexes: valueIndexes.length };
    } finally {
      db.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const cores = os.availableParallelism();
const ceiling = await ceilingCosts();
const engine = await engineCosts();
const bound = (engineUs: number): number => {
  const rps = Math.min(1_000_000 / ceiling.frameworkUs, cores * 1_000_000 / (ceiling.frameworkUs + engineUs + ceiling.generatorUs));
  return rps / ceiling.rps;
};
const out = (line: string): void => { process.stdout.write(`${line}\n`); };
out(`cores ${cores}; ceiling ${Math.round(ceiling.rps)} req/s at ${CONNECTIONS} connections`);
out(`CPU per request: framework (bare Fastify route) ${ceiling.frameworkUs.toFixed(1)} µs, load generator ${ceiling.generatorUs.toFixed(1)} µs`);
out(`CPU per record, bare better-sqlite3 INSERT in transactions of ${BATCH_SIZE}: ${engine.withIndexesUs.toFixed(1)} µs with the ` +
  `${engine.valueIndexes} value indexes, ${engine.withoutIndexesUs.toFixed(1)} µs without them`);
out(`highest ratio to the ceiling add-data could reach: ${bound(engine.withIndexesUs).toFixed(2)} with every field's value index, ` +
  `${bound(engine.withoutIndexesUs).toFixed(2)} without (no counters, validation, authentication or sync counted)`);

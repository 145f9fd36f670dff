import crypto from "node:crypto";
import { once } from "node:events";
import path from "node:path";
import { openStoreAt } from "../../src/cli/copy.js";
import { testEngine } from "../support/database.js";
import { call } from "../support/http.js";
import { freshWorkspace, startProcess, type Running, type Workspace } from "../support/process.js";
import { allRows, assertCountersEqualRecount } from "../support/recount.js";
import { check, checkEvents, type StoredRecord, type Totals } from "./verify.js";
import { ADDERS, BLOC, FIELDS, random, UPDATERS, Workload, type Ledger, type ServerLink } from "./workload.js";

/**
 * `npm run test:crash`: the server (`node dist/src/main.js`, a child process) takes adds
 * and updates from 20 concurrent clients and is killed with SIGKILL at random moments,
 * then started again on the same database. After each restart, and at the end, the
 * records must agree with every answer the clients got (verify.ts); at the end, files
 * must hold the bytes sent and counters must equal a recount. Prints its totals; exits
 * 1 on any failure. Runs on the engine BLOC_TEST_ENGINE names, in a fresh database.
 *
 *   BLOC_CRASH_KILLS   kills (default 6)       BLOC_CRASH_SEED   replays a run's data and timing
 */

const ADMIN = "crash-run-admin-token-0123456789";
const KILLS = Number(process.env.BLOC_CRASH_KILLS ?? 6);
const SEED = Number(process.env.BLOC_CRASH_SEED ?? crypto.randomInt(1, 1_000_000_000));
/** How long the clients may take to notice a kill: a request that hangs longer is a failure. */
const PARK_MS = 60_000;

/** Tells the clients where the server is, and holds them while it is down and being checked. */
class Link implements ServerLink {
  private current: string | undefined;
  private readonly waiting: (() => void)[] = [];
  private stopping = false;

  url(): Promise<string> {
    if (this.current !== undefined) return Promise.resolve(this.current);
    return new Promise((resolve) => this.waiting.push(() => resolve(this.current!)));
  }

  /** Clients waiting for the server. */
  parked(): number {
    return this.waiting.length;
  }

  up(url: string): void {
    this.current = url;
    for (const wake of this.waiting.splice(0)) wake();
  }

  down(): void {
    this.current = undefined;
  }

  stop(): void {
    this.stopping = true;
  }

  stopped(): boolean {
    return this.stopping;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Every record of the bloc, as get-data shows them to the admin (nothing writes while it reads). */
async function recordsOverHttp(url: string): Promise<StoredRecord[]> {
  const records: StoredRecord[] = [];
  for (let page = 1; ; page += 1) {
    const reply = await call(url, "GET", "/api/get-data", { token: ADMIN, json: { blocId: BLOC, resultLimit: 1000, currentPage: page } });
    if (reply.status !== 200) throw new Error(`get-data answered ${reply.status} ${reply.text}`);
    const data = reply.json.data as Record<string, unknown> & { count: number };
    for (let i = 0; data[String(i)] !== undefined; i += 1) {
      const { service_entry_row_id: id, ...values } = data[String(i)] as Record<string, string> & { service_entry_row_id: number };
      records.push({ id, values });
    }
    if (records.length >= data.count) return records;
  }
}

/** Each acknowledged add's file, downloaded: its bytes must be those sent. */
async function checkFiles(url: string, records: readonly StoredRecord[], ledger: Ledger): Promise<{ failures: string[]; files: number }> {
  const bySerial = new Map(records.map((record) => [record.values.field_1, record]));
  const failures: string[] = [];
  let files = 0;
  for (const add of ledger.adds) {
    if (add.outcome !== "acknowledged" || add.duplicate || !add.file) continue;
    const ref = bySerial.get(add.serial)?.values.field_6;
    if (!ref) continue; // reported by check() already
    const reply = await call(url, "GET", `/api/files/${encodeURIComponent(ref)}`, { token: ADMIN });
    const sha256 = crypto.createHash("sha256").update(reply.body).digest("hex");
    if (reply.status !== 200 || sha256 !== add.file.sha256 || reply.body.length !== add.file.size) {
      failures.push(`the file of ${add.serial} (${ref}) answered ${reply.status}, ${reply.body.length} bytes, not the ${add.file.size} sent`);
    }
    files += 1;
  }
  return { failures, files };
}

async function waitForParked(link: Link, clients: number, running: { failed?: unknown }): Promise<void> {
  const deadline = Date.now() + PARK_MS;
  while (link.parked() < clients) {
    // eslint-disable-next-line @typescript-eslint/only-throw-error -- the workload's own failure, passed on as it came
    if (running.failed !== undefined) throw running.failed;
    if (Date.now() > deadline) throw new Error(`${clients - link.parked()} clients did not notice the kill within ${PARK_MS / 1000} s: a request hung`);
    await sleep(10);
  }
}

async function run(workspace: Workspace): Promise<{ totals: Totals; kills: number; files: number; failures: string[] }> {
  const env = { DATABASE_URL: workspace.databaseUrl, BLOC_ADMIN_TOKEN: ADMIN, BLOC_FILES_DIR: path.join(workspace.cwd, "files") };
  let server: Running = await startProcess(env, workspace.cwd, undefined, 60_000);
  const failures: string[] = [];
  try {
    const bloc = await call(server.url, "POST", "/api/admin/blocs", { token: ADMIN, json: { name: "Crash", id: BLOC, fields: FIELDS } });
    if (bloc.status !== 201) throw new Error(`creating the bloc answered ${bloc.status} ${bloc.text}`);
    const link = new Link();
    const workload = new Workload(link, ADMIN, SEED);
    const state: { failed?: unknown } = {};
    link.up(server.url);
    const running = workload.run().catch((error: unknown) => { state.failed = error; link.stop(); });
    const next = random(SEED);
    let kills = 0;
    for (let k = 1; k <= KILLS; k += 1) {
      await sleep(800 + next() * 2_500);
      link.down();
      const exited = once(server.child, "exit");
      server.child.kill("SIGKILL");
      await exited;
      kills += 1;
      // Restarted on the same database: recovery happens here.
      server = await startProcess(env, workspace.cwd, undefined, 60_000);
      await waitForParked(link, ADDERS + UPDATERS, state);
      const after = check(await recordsOverHttp(server.url), workload.ledger);
      failures.push(...after.failures.map((failure) => `after kill ${k}: ${failure}`));
      process.stderr.write(`crash: kill ${k}: ${after.totals.acknowledged} acknowledged so far, ${after.totals.lost} lost\n`);
      link.up(server.url);
    }
    await sleep(1_500);
    link.stop();
    await running;
    // eslint-disable-next-line @typescript-eslint/only-throw-error -- the workload's own failure, passed on as it came
    if (state.failed !== undefined) throw state.failed;

    const records = await recordsOverHttp(server.url);
    const files = await checkFiles(server.url, records, workload.ledger);
    failures.push(...files.failures, ...workload.ledger.unexpected);
    await server.stop();

    // The end: the store itself, opened by this process once the server has stopped.
    const store = await openStoreAt(workspace.databaseUrl.replace(/^sqlite:\.\//, `sqlite:${workspace.cwd}/`));
    try {
      const stored = (await allRows(store, "records")).map((row): StoredRecord => ({
        id: Number(row.id), values: JSON.parse(String(row.data)) as Record<string, string>,
      }));
      const final = check(stored, workload.ledger);
      failures.push(...final.failures);
      // The bloc's creation is its event 1; the rest tell of records.
      failures.push(...checkEvents(stored, await allRows(store, "events"), await allRows(store, "record_history")));
      try {
        await assertCountersEqualRecount(store);
      } catch (error) {
        failures.push(`counters: ${error instanceof Error ? error.message : String(error)}`);
      }
      return { totals: final.totals, kills, files: files.files, failures };
    } finally {
      await store.close();
    }
  } finally {
    if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill("SIGKILL");
  }
}

async function main(): Promise<number> {
  const engine = testEngine();
  const started = Date.now();
  const workspace = await freshWorkspace("crash");
  try {
    const { totals, kills, files, failures } = await run(workspace);
    for (const failure of failures.slice(0, 50)) process.stderr.write(`crash: FAILED: ${failure}\n`);
    if (failures.length > 50) process.stderr.write(`crash: … and ${failures.length - 50} more failures\n`);
    const passed = failures.length === 0 && totals.lost === 0 && kills >= 5 && totals.acknowledged > 0;
    process.stdout.write(`crash test (${engine}): acknowledged ${totals.acknowledged}, found ${totals.found}, lost ${totals.lost}, ` +
      `in doubt ${totals.inDoubt} (${totals.inDoubtStored} stored), kills ${kills}, updates checked ${totals.updatesAcknowledged} ` +
      `(${totals.updatesSeveral} matching several records, ${totals.updatesInDoubt} in doubt), files ${files}, ` +
      `counters equal a recount: ${failures.some((f) => f.startsWith("counters:")) ? "no" : "yes"}, ` +
      `events agree with the records: ${failures.some((f) => f.startsWith("events:")) ? "no" : "yes"}, ` +
      `${Math.round((Date.now() - started) / 1000)} s, seed ${SEED} — ${passed ? "passed" : "FAILED"}\n`);
    return passed ? 0 : 1;
  } finally {
    await workspace.remove();
  }
}

if (process.env.NODE_TEST_CONTEXT !== undefined) {
  // `node --test dist/test/` runs every file under it (`npm test` only the *.test.js ones); this one is `npm run test:crash`, run by .ci/run on its own.
  const { test } = await import("node:test");
  test("crash test", { skip: "run with npm run test:crash" }, () => undefined);
} else {
  main().then((code) => process.exit(code), (error: unknown) => {
    process.stderr.write(`crash: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  });
}

import { test } from "node:test";
import assert from "node:assert/strict";
import crypto from "node:crypto";
import { openStoreAt } from "../src/cli/copy.js";
import { call, type Reply } from "./support/http.js";
import { testEngine } from "./support/database.js";
import { freshWorkspace, SERVER_ENTRY, startProcess, type Running } from "./support/process.js";
import { assertCountersEqualRecount } from "./support/recount.js";

/**
 * Acceptance: thousands of concurrent adds and updates spread over two server processes
 * on one database (a WORKERS=2 cluster on SQLite; two separate servers on PostgreSQL)
 * lose nothing, duplicate nothing, keep autogenerate values unique and consecutive,
 * unique values unique, a scan limit exact, and the counters equal to a recount.
 */

const INVOICES = 1200; // adds to the invoice bloc, each with its own serial
const DUPLICATES = 40; // adds that reuse the serial of another add: exactly one of the two may win
const LIMIT = 1500;
const LIMITED = 1800; // adds to the scan-limited bloc: LIMITED - LIMIT must be refused
const IN_FLIGHT = 64;

interface Deployment {
  /** Where requests go; the two entries may be one port (a cluster) or two processes. */
  readonly urls: readonly [string, string];
  readonly admin: string;
  readonly databaseUrl: string;
  stop(): Promise<void>;
}

/** Runs the tasks with at most `limit` in flight; results in task order. */
async function pool<T>(tasks: readonly (() => Promise<T>)[], limit: number): Promise<T[]> {
  const results: T[] = new Array<T>(tasks.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < tasks.length) {
      const index = next;
      next += 1;
      results[index] = await tasks[index]!();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, lane));
  return results;
}

/** A deterministic shuffle, so that a failing order can be replayed. */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  let state = seed;
  for (let i = out.length - 1; i > 0; i -= 1) {
    state = (state * 1103515245 + 12345) % 2147483648;
    const j = state % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

async function ok(reply: Promise<Reply>, status = 200): Promise<Reply> {
  const answered = await reply;
  assert.equal(answered.status, status, answered.text);
  return answered;
}

type Outcome =
  | { readonly kind: "added"; readonly bloc: string; readonly id: number; readonly values: Record<string, string> }
  | { readonly kind: "refused"; readonly bloc: string; readonly reply: Reply; readonly values: Record<string, string> };

async function scenario(label: string, deployment: Deployment): Promise<void> {
  const started = Date.now();
  const { urls, admin } = deployment;
  const asAdmin = (url: string, method: string, p: string, json: unknown): Promise<Reply> => call(url, method, p, { token: admin, json });
  await ok(asAdmin(urls[0], "POST", "/api/admin/blocs", {
    name: "Invoices", id: "inv",
    fields: [{ name: "Invoice", type: "autogenerate", format: "INV-{seq:6}" }, { name: "Serial", unique: true }, { name: "Note" }],
  }), 201);
  await ok(asAdmin(urls[1], "POST", "/api/admin/blocs", { name: "Limited", id: "lim", fields: [{ name: "Tag" }] }), 201);
  await ok(asAdmin(urls[1], "PATCH", "/api/admin/blocs/lim", { scanLimit: LIMIT, scanLimitPeriod: null }));
  // Half the traffic comes from a member, so that access is decided in both processes too.
  const member = await ok(asAdmin(urls[0], "POST", "/api/admin/users", { name: "scanner", role: "member" }), 201);
  const memberToken = (await ok(asAdmin(urls[1], "POST", `/api/admin/users/${member.json.id}/tokens`, {}), 201)).json.token as string;
  for (const bloc of ["inv", "lim"]) {
    await ok(asAdmin(urls[0], "PUT", `/api/admin/blocs/${bloc}/access/${member.json.id}`, { read: true, add: true, update: true }));
  }
  const token = (i: number): string => (i % 3 === 0 ? memberToken : admin);
  // Two processes answer (new connections are spread over a cluster's workers).
  const pids = new Set<number>();
  for (let i = 0; i < 8; i += 1) {
    pids.add((await ok(call(urls[i % 2]!, "GET", "/health", { headers: { connection: "close" } }))).json.pid as number);
  }
  assert.ok(pids.size >= 2, `requests reach two processes, got pids ${[...pids].join(", ")}`);

  let updatesSent = 0;
  const updated = new Map<number, string>(); // record ID → the note its acknowledged update set
  const add = async (i: number, bloc: string, values: Record<string, string>): Promise<Outcome> => {
    const reply = await call(urls[i % 2]!, "POST", "/api/add-data", { token: token(i), json: { scanStationID: bloc, dataToAdd: values } });
    if (reply.status !== 200) return { kind: "refused", bloc, reply, values };
    assert.deepEqual(reply.json.autogenerateReplacements, [], reply.text);
    const id = reply.json.returnedStationID as number;
    assert.ok(Number.isInteger(id) && id > 0, reply.text);
    // Every other acknowledged invoice is then updated through the other port, while adds go on.
    if (bloc === "inv" && i % 2 === 0 && values.field_3 === "new") {
      updatesSent += 1;
      const note = `upd-${i}`;
      const update = await call(urls[(i + 1) % 2]!, "POST", "/api/update-records-by-matching-values", {
        token: token(i + 1), json: { blocId: "inv", fieldsToUpdate: { field_3: note }, searchItems: { field_2: values.field_2 } },
      });
      assert.equal(update.status, 200, update.text);
      assert.deepEqual(update.json.updated_record_ids, [id], `the update of serial ${values.field_2}`);
      updated.set(id, note);
    }
    return { kind: "added", bloc, id, values };
  };

  const tasks: (() => Promise<Outcome>)[] = [];
  for (let i = 0; i < INVOICES; i += 1) tasks.push(() => add(i, "inv", { field_2: `S-${i}`, field_3: "new" }));
  for (let d = 0; d < DUPLICATES; d += 1) tasks.push(() => add(d + 1, "inv", { field_2: `S-${d * 29}`, field_3: "dup" }));
  for (let j = 0; j < LIMITED; j += 1) tasks.push(() => add(j, "lim", { field_1: `T-${j}` }));
  const outcomes = await pool(shuffled(tasks, 42), IN_FLIGHT);
  const trafficMs = Date.now() - started;

  const added = outcomes.filter((o): o is Extract<Outcome, { kind: "added" }> => o.kind === "added");
  const refused = outcomes.filter((o): o is Extract<Outcome, { kind: "refused" }> => o.kind === "refused");
  // The only refusals: the losers of duplicated serials, and adds beyond the scan limit.
  for (const r of refused) {
    assert.equal(r.reply.status, 400, `${r.bloc} ${JSON.stringify(r.values)}: ${r.reply.text}`);
    if (r.bloc === "lim") assert.match(String(r.reply.json.error), /scan limit.*reached|reached.*scan limit/i, r.reply.text);
    else assert.match(String(r.reply.json.error), /field_2.*unique/i, r.reply.text);
  }
  const addedInv = added.filter((o) => o.bloc === "inv");
  const addedLim = added.filter((o) => o.bloc === "lim");
  assert.equal(addedLim.length, LIMIT, "the scan-limited bloc acknowledged exactly its limit");
  assert.equal(refused.filter((r) => r.bloc === "lim").length, LIMITED - LIMIT);
  assert.equal(addedInv.length, INVOICES, "one add per serial won, duplicates or not");
  assert.equal(refused.filter((r) => r.bloc === "inv").length, DUPLICATES);

  // Every acknowledged record, read back through get-data pages on both ports.
  const read = async (bloc: string): Promise<{ records: Record<string, string | number>[]; count: number; info: Record<string, unknown> }> => {
    const records: Record<string, string | number>[] = [];
    let count = -1;
    let info: Record<string, unknown> = {};
    for (let page = 1; ; page += 1) {
      const reply = await ok(call(urls[page % 2]!, "GET", "/api/get-data", { token: admin, json: { blocId: bloc, resultLimit: 1000, currentPage: page } }));
      const data = reply.json.data as Record<string, unknown>;
      count = data.count as number;
      info = data.countLimitInfo as Record<string, unknown>;
      const rows = Object.keys(data).filter((k) => /^\d+$/.test(k)).map((k) => data[k] as Record<string, string | number>);
      records.push(...rows);
      if (rows.length < 1000) return { records, count, info };
    }
  };
  const inv = await read("inv");
  const lim = await read("lim");
  assert.equal(inv.count, INVOICES);
  assert.equal(inv.records.length, INVOICES);
  const byId = new Map(inv.records.map((r) => [r.service_entry_row_id as number, r]));
  assert.equal(byId.size, INVOICES, "no record listed twice");
  for (const o of addedInv) {
    const record = byId.get(o.id);
    assert.ok(record, `acknowledged record ${o.id} is present`);
    assert.equal(record.field_2, o.values.field_2);
    assert.equal(record.field_3, updated.get(o.id) ?? o.values.field_3, `record ${o.id}'s note`);
  }
  assert.equal(updated.size, updatesSent, "every acknowledged update matched its record");
  const invoices = inv.records.map((r) => String(r.field_1)).sort();
  assert.equal(new Set(invoices).size, INVOICES, "autogenerate values are unique");
  assert.deepEqual(invoices, Array.from({ length: INVOICES }, (_, k) => `INV-${String(k + 1).padStart(6, "0")}`),
    "autogenerate values are consecutive: a refused add gave its number back");
  assert.equal(lim.count, LIMIT);
  assert.deepEqual(new Set(lim.records.map((r) => r.service_entry_row_id)), new Set(addedLim.map((o) => o.id)));
  assert.equal(lim.info.scans_counted, LIMIT);
  assert.equal(lim.info.limit_reached, 1);

  await deployment.stop();
  const store = await openStoreAt(deployment.databaseUrl);
  try {
    assert.equal(await store.records.countRecords({ blocId: "inv" }), INVOICES);
    assert.equal(await store.records.countRecords({ blocId: "lim" }), LIMIT);
    await assertCountersEqualRecount(store);
  } finally {
    await store.close();
  }
  const sent = tasks.length + updatesSent;
  process.stdout.write(`[concurrency ${label}] ${sent} requests in ${(trafficMs / 1000).toFixed(1)} s ` +
    `(${Math.round(sent / (trafficMs / 1000))}/s, ${IN_FLIGHT} in flight): acknowledged ${added.length} adds + ${updated.size} updates; ` +
    `found ${inv.records.length + lim.records.length} records (${inv.records.length} invoices, ${lim.records.length} limited); ` +
    `refused ${refused.length} (${refused.length - (LIMITED - LIMIT)} duplicate serials, ${LIMITED - LIMIT} beyond the scan limit)\n`);
}

function adminToken(): string {
  return `conc-admin-${crypto.randomBytes(12).toString("hex")}`;
}

// Each half runs on its engine's run of the suite (BLOC_TEST_ENGINE, test/support/database.ts).
const engine = testEngine();

test("WORKERS=2 on one SQLite file: concurrent adds and updates keep every rule", {
  timeout: 240_000, skip: engine === "sqlite" ? false : "the SQLite half runs with BLOC_TEST_ENGINE=sqlite",
}, async () => {
  const workspace = await freshWorkspace("conc");
  const admin = adminToken();
  let server: Running | undefined;
  try {
    server = await startProcess({ WORKERS: "2", DATABASE_URL: workspace.databaseUrl, BLOC_ADMIN_TOKEN: admin }, workspace.cwd, SERVER_ENTRY, 60_000);
    const running = server;
    await scenario("sqlite, WORKERS=2", {
      urls: [running.url, running.url], admin, databaseUrl: workspace.databaseUrl,
      stop: async () => { await running.stop(); server = undefined; },
    });
  } finally {
    await server?.stop();
    await workspace.remove();
  }
});

test("two server processes on one PostgreSQL database: concurrent adds and updates keep every rule", {
  timeout: 240_000, skip: engine === "postgres" ? false : "the PostgreSQL half runs with BLOC_TEST_ENGINE=postgres (npm run test:pg)",
}, async () => {
  const workspace = await freshWorkspace("conc");
  const admin = adminToken();
  const servers: Running[] = [];
  try {
    const env = { DATABASE_URL: workspace.databaseUrl, BLOC_ADMIN_TOKEN: admin };
    servers.push(await startProcess(env, workspace.cwd));
    servers.push(await startProcess(env, workspace.cwd));
    await scenario("postgres, 2 processes", {
      urls: [servers[0]!.url, servers[1]!.url], admin, databaseUrl: workspace.databaseUrl,
      stop: async () => { while (servers.length > 0) await servers.pop()!.stop(); },
    });
  } finally {
    while (servers.length > 0) await servers.pop()!.stop();
    await workspace.remove();
  }
});

import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import crypto from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { copyStore, CopyError, openStoreAt, type CopyProgress } from "../src/cli/copy.js";
import type { NewRecord, Row, Store, TableName } from "../src/domain/ports/store.js";
import { TABLES } from "../src/domain/ports/store.js";
import { importRecords } from "../src/domain/record-writes.js";
import { stamp } from "./support/fixtures.js";
import { allRows } from "./support/recount.js";
import { call, type Reply } from "./support/http.js";
import { freshDatabaseUrl, testEngine, testFileLabel, type TestDatabase } from "./support/database.js";
import { CLI_ENTRY, runToEnd, startProcess, type Running } from "./support/process.js";
import { postMultipart } from "./support/upload.js";

/**
 * Acceptance: `bloc-data copy` moves an instance of 100,000+ records SQLite → PostgreSQL →
 * SQLite (SQLite → SQLite → SQLite without a PostgreSQL server), and every copy answers
 * every user exactly as the original did: pages, counts, field counts, limit info,
 * reports, files, and the same token secrets. A non-empty target is refused untouched.
 */

const SEEDED = 100_000;
const OVER_HTTP = 240;
const SITES = ["Dublin", "Cork", "Galway", ""];
const SHIFTS = ["day", "night"];
const ADMIN = `copy-admin-${crypto.randomBytes(12).toString("hex")}`;

let dir: string;
/** The middle of the trip: a database of the engine under test (BLOC_TEST_ENGINE). */
let middleDb: TestDatabase;
const crossEngine = testEngine() !== "sqlite";
let urls: { source: string; middle: string; final: string };
const tokens: Record<string, string> = {};
let revoked: string;
let fileRef: string;
let fileBytes: Buffer;
/** An add-data sent with an Idempotency-Key: every copy answers its repeat as the source did. */
let keyedAdd: { token: string; json: unknown; headers: Record<string, string> };
/** A record whose history holds an update. */
let updatedId: number;

/**
 * Servers that read a store to compare it deliver no webhooks: a delivery attempt would
 * add to its log. Only the server that builds the source does (buildSource).
 */
function serverEnv(databaseUrl: string): Record<string, string> {
  return { DATABASE_URL: databaseUrl, BLOC_FILES_DIR: path.join(dir, "files"), BLOC_WEBHOOK_DELIVERY: "0" };
}

async function ok(reply: Promise<Reply>, status = 200): Promise<Reply> {
  const answered = await reply;
  assert.equal(answered.status, status, answered.text.slice(0, 500));
  return answered;
}

/** A value as text with object keys sorted, so that two engines' spellings of one JSON value compare equal. */
function normalised(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(normalised).join(",")}]`;
  if (value !== null && typeof value === "object") {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${normalised((value as Record<string, unknown>)[k])}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** A row with its JSON columns (records.data, users.profile, …) parsed. */
function parsedRow(row: Row): Record<string, unknown> {
  return Object.fromEntries(Object.entries(row).map(([key, value]) => {
    if (typeof value === "string" && /^[[{]/.test(value)) {
      try { return [key, JSON.parse(value) as unknown]; } catch { return [key, value]; }
    }
    return [key, value];
  }));
}

/**
 * How a copy's rows must match the source's: "exact" (the same text, on the same engine
 * all the way); "values" (the same rows in the same order, JSON columns compared as
 * values: a trip through another engine may spell JSON its own way, e.g. PostgreSQL's
 * jsonb reorders keys); "set" (on another engine, which may order text keys by its collation).
 */
type Match = "exact" | "values" | "set";

async function assertSameRows(table: TableName, reference: Store, others: readonly { store: Store; match: Match; name: string }[]): Promise<void> {
  const sets = others.filter((o) => o.match === "set");
  const positional = others.filter((o) => o.match !== "set");
  const referenceSet: string[] = [];
  let after: Row | undefined;
  for (;;) {
    const batch = await reference.maintenance.exportRows(table, after, 5000);
    if (sets.length > 0) referenceSet.push(...batch.map((row) => normalised(parsedRow(row))));
    for (const other of positional) {
      const theirs = await other.store.maintenance.exportRows(table, after, 5000);
      const text = other.match === "exact" ? (row: Row | undefined) => JSON.stringify(row) : (row: Row | undefined) => normalised(row && parsedRow(row));
      const index = Math.max(batch.length, theirs.length) === 0 ? -1
        : Array.from({ length: Math.max(batch.length, theirs.length) }, (_, i) => i).find((i) => text(batch[i]) !== text(theirs[i])) ?? -1;
      assert.equal(index, -1, `${table} differs in the ${other.name}: ${JSON.stringify(theirs[index])} where the source has ${JSON.stringify(batch[index])}`);
    }
    if (batch.length < 5000) break;
    after = batch[batch.length - 1];
  }
  referenceSet.sort();
  for (const other of sets) {
    const theirs = (await allRows(other.store, table)).map((row) => normalised(parsedRow(row))).sort();
    assert.equal(theirs.length, referenceSet.length, `${table}: rows in the ${other.name}`);
    const index = referenceSet.findIndex((row, k) => row !== theirs[k]);
    assert.equal(index, -1, `${table} differs in the ${other.name}: ${theirs[index]} where the source has ${referenceSet[index]}`);
  }
}

async function tableSizes(url: string): Promise<Record<TableName, number>> {
  const store = await openStoreAt(url);
  try {
    return await store.maintenance.tableSizes();
  } finally {
    await store.close();
  }
}

function copy(from: string, to: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runToEnd(CLI_ENTRY, ["copy", "--from", from, "--to", to], {}, dir);
}

/** Builds the source: configuration and a few hundred records over HTTP, 100,000 through the store. */
async function buildSource(): Promise<void> {
  const started = Date.now();
  const source = await startProcess({ ...serverEnv(urls.source), BLOC_ADMIN_TOKEN: ADMIN, BLOC_WEBHOOK_DELIVERY: "1" }, dir);
  try {
    const admin = (method: string, p: string, json?: unknown, status = 200): Promise<Reply> =>
      ok(call(source.url, method, p, { token: ADMIN, ...(json === undefined ? {} : { json }) }), status);
    const module = await admin("POST", "/api/admin/modules", { name: "Goods in" }, 201);
    await admin("POST", "/api/admin/blocs", {
      name: "Scans", id: "scans",
      fields: [
        { name: "Part", indexed: true }, { name: "Site", applyProfileFilter: true },
        { name: "Shift", type: "select", options: SHIFTS }, { name: "Docket", type: "autogenerate", format: "DKT-{seq:6}" },
        { name: "Photo", type: "file" },
      ],
    }, 201);
    await admin("PATCH", "/api/admin/blocs/scans", { moduleId: module.json.id, scanLimit: 1_000_000 });
    // A webhook whose receiver refuses connections: its lane, and failed attempts in its log.
    const webhook = await admin("POST", "/api/admin/webhooks", { url: "http://127.0.0.1:9/hook", blocs: ["scans"], secret: "copy-test-webhook-secret" }, 201);
    await admin("POST", "/api/admin/blocs", { name: "Team notes", id: "team-notes", fields: [{ name: "Note" }], restriction: "own" }, 201);
    const user = async (name: string, profile: string[]): Promise<string> => {
      const id = (await admin("POST", "/api/admin/users", { name, role: "member" }, 201)).json.id as string;
      await admin("PUT", `/api/admin/users/${id}`, { profile });
      tokens[name] = (await admin("POST", `/api/admin/users/${id}/tokens`, { name }, 201)).json.token as string;
      return id;
    };
    tokens.admin = ADMIN;
    // ann: her own records only, every site. bob: Dublin and Cork, through a role's grant. dave: his own, Dublin only.
    const ann = await user("ann", SITES);
    const bob = await user("bob", ["Dublin", "Cork"]);
    const dave = await user("dave", ["Dublin"]);
    for (const member of [ann, dave]) {
      await admin("PUT", `/api/admin/blocs/scans/access/${member}`, { read: true, add: true });
      await admin("PUT", `/api/admin/blocs/scans/restrictions/${member}`, { mode: "own" });
    }
    const role = await admin("POST", "/api/admin/roles", { name: "site leads" }, 201);
    await admin("PUT", `/api/admin/users/${bob}/roles/${role.json.id}`);
    await admin("PUT", `/api/admin/blocs/scans/access/roles/${role.json.id}`, { read: true, update: true });
    await admin("PUT", `/api/admin/blocs/team-notes/access/${bob}`, { read: true, add: true });
    tokens.bobScoped = (await admin("POST", `/api/admin/users/${bob}/tokens`, { name: "reader", permissions: ["read"], blocs: ["scans"] }, 201)).json.token as string;
    const spare = await admin("POST", `/api/admin/users/${ann}/tokens`, { name: "spare" }, 201);
    await admin("DELETE", `/api/admin/tokens/${spare.json.id}`, undefined, 204);
    revoked = spare.json.token as string;

    // Records over HTTP: autogenerated dockets (the sequences table), jobs, one file, some
    // sent with an Idempotency-Key (the idempotency_keys table).
    const addOverHttp = (i: number): { token: string; json: unknown; headers: Record<string, string> } => ({
      token: i % 3 === 0 ? tokens.ann! : ADMIN,
      json: { scanStationID: "scans", jobID: module.json.id, dataToAdd: { field_1: `H-${i % 17}`, field_2: SITES[i % 4], field_3: SHIFTS[i % 2] } },
      headers: i % 10 === 0 ? { "idempotency-key": `scan-${i}` } : {},
    });
    keyedAdd = addOverHttp(30);
    await Promise.all(Array.from({ length: OVER_HTTP }, (_, i) => ok(call(source.url, "POST", "/api/add-data", addOverHttp(i)))));
    // An update (the record_history table).
    const updated = await admin("POST", "/api/update-records-by-matching-values", {
      blocId: "scans", fieldsToUpdate: { field_3: "night" }, searchItems: { field_1: "H-0", field_3: "day" },
    });
    updatedId = updated.json.updated_record_ids[0] as number;
    assert.ok(updatedId > 0, "an update changed a record");
    // A deletion (the deleted_records table), which the copy keeps restorable.
    const doomed = await ok(call(source.url, "POST", "/api/add-data", { token: ADMIN, json: { scanStationID: "scans", jobID: module.json.id, dataToAdd: { field_1: "doomed", field_2: "Cork" } } }));
    const removed = await admin("POST", "/api/delete-records-by-matching-values", {
      blocId: "scans", searchItems: { service_entry_row_id: doomed.json.returnedStationID },
    });
    assert.deepEqual(removed.json.deleted_record_ids, [doomed.json.returnedStationID]);
    await ok(call(source.url, "POST", "/api/add-data", { token: tokens.bob!, json: { scanStationID: "team-notes", dataToAdd: { field_1: "bob's" } } }));
    fileBytes = crypto.randomBytes(50_000);
    const upload = await postMultipart(source.url, ADMIN, { scanStationID: "scans", jobID: String(module.json.id), dataToAdd: JSON.stringify({ field_2: "Cork" }) },
      [{ slug: "field_5", content: fileBytes, filename: "photo.bin", type: "application/octet-stream" }]);
    assert.equal(upload.status, 200, upload.text);
    const read = await admin("GET", "/api/get-data", { blocId: "scans", resultLimit: 1 });
    fileRef = read.json.data["0"].field_5 as string;
    assert.ok(fileRef !== "", "the uploaded file's reference");
    for (let waited = 0; (await admin("GET", `/api/admin/webhooks/${webhook.json.id}/deliveries`)).json.deliveries.length === 0; waited += 50) {
      assert.ok(waited < 20_000, "a delivery attempt is logged");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    await source.stop();
  }

  process.stdout.write(`[copy] configuration and ${OVER_HTTP + 2} records over HTTP (${((Date.now() - started) / 1000).toFixed(1)} s)\n`);
  // The bulk, straight through the store, in batches; owners and sites spread.
  const owners = ["1", "2", "3", "4"];
  const store = await openStoreAt(urls.source);
  try {
    for (let start = 0; start < SEEDED; start += 5000) {
      const batch: NewRecord[] = [];
      for (let i = start; i < Math.min(SEEDED, start + 5000); i += 1) {
        batch.push({
          blocId: "scans", createdAt: stamp("2026-01-01 06:00:00", i * 233 + (i % 7) * 11), userId: owners[Math.floor(i / 4) % 4]!,
          submittedStatus: i % 10 === 0 ? 0 : 1, jobId: i % 5 === 0 ? "1" : null,
          values: { field_1: `P-${i % 613}`, field_2: SITES[(i * 3) % 4]!, field_3: SHIFTS[i % 2]!, field_4: `LEG-${i}` },
        });
      }
      await store.transaction((tx) => importRecords(tx, batch));
    }
  } finally {
    await store.close();
  }
}

type Answers = Record<string, unknown>;

/** What each user is told by one server: pages (first, second, deep), counts, limit info, reports, files, tokens. */
async function answers(url: string): Promise<Answers> {
  const out: Answers = {};
  const get = async (key: string, p: string, token: string, json: unknown): Promise<Reply> => {
    const reply = await call(url, "GET", p, { token, json });
    out[key] = { status: reply.status, body: reply.json ?? reply.text };
    return reply;
  };
  for (const user of ["admin", "ann", "bob", "dave", "bobScoped"]) {
    const token = tokens[user]!;
    const first = await get(`${user} page 1`, "/api/get-data", token, { blocId: "scans", resultLimit: 100 });
    assert.equal(first.status, 200, first.text);
    const count = first.json.data.count as number;
    assert.ok(count > 0, `${user} sees records`);
    await get(`${user} page 2`, "/api/get-data", token, { blocId: "scans", resultLimit: 100, currentPage: 2 });
    const deep = Math.max(1, Math.floor(count / 100) - 3);
    await get(`${user} deep page ${deep}`, "/api/get-data", token, { blocId: "scans", resultLimit: 100, currentPage: deep });
    await get(`${user} deep page reversed`, "/api/get-data", token, { blocId: "scans", resultLimit: 100, currentPage: deep, reverse: true });
    await get(`${user} window`, "/api/get-data", token, { blocId: "scans", resultLimit: 50, currentPage: 3, fromDate: "2026-03-01", toDate: "2026-06-30 12:00:00" });
    await get(`${user} report`, "/api/get-data-report", token, {
      stationID: "scans", fieldsToReport: "all",
      requestedReportData: { reportFromDate: "2026-04-01 00:00:00", reportToDate: "2026-04-20 23:59:59" },
      dataFilteringData: { filterDataToQuery: { field_2: ["Cork", "Dublin"] } },
    });
    await get(`${user} report page`, "/api/get-data-report", token, {
      stationID: "scans", fieldsToReport: { created_at: true, user_id: true, field_1: true, field_4: true },
      dataFilteringData: { currentPage: 4, resultLimit: 500, reverse: true },
    });
    await get(`${user} me`, "/api/me", token, undefined);
    await get(`${user} team notes`, "/api/get-data", token, { blocId: "team-notes" });
  }
  const history = await call(url, "GET", `/api/admin/blocs/scans/records/${updatedId}/history`, { token: ADMIN });
  assert.equal(history.json.history.length, 1, history.text);
  out.history = history.json;
  // A repeat adds nothing (the copies' next record ID is checked below) and answers as the first time.
  const repeat = await call(url, "POST", "/api/add-data", keyedAdd);
  out.repeat = { status: repeat.status, body: repeat.json };
  const file = await call(url, "GET", `/api/files/${fileRef}`, { token: ADMIN });
  out.file = { status: file.status, sha256: crypto.createHash("sha256").update(file.body).digest("hex") };
  out.revoked = (await call(url, "GET", "/api/get-data", { token: revoked, json: { blocId: "scans" } })).status;
  out.scopedAdd = (await call(url, "POST", "/api/add-data", { token: tokens.bobScoped!, json: { scanStationID: "scans", dataToAdd: {} } })).status;
  return out;
}

/** Starts a server on the database (without BLOC_ADMIN_TOKEN: the copied token hashes must do) and collects its answers. */
async function answersOf(databaseUrl: string): Promise<Answers> {
  const server: Running = await startProcess(serverEnv(databaseUrl), dir);
  try {
    return await answers(server.url);
  } finally {
    await server.stop();
  }
}

before(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "bloc-copy-"));
  if (!crossEngine) process.stdout.write("[copy] the PostgreSQL leg is skipped (SQLite → SQLite → SQLite): BLOC_TEST_ENGINE is not postgres\n");
  middleDb = await freshDatabaseUrl(path.join(dir, "middle"), `${testFileLabel()}_middle`);
  urls = { source: `sqlite:${path.join(dir, "source.db")}`, middle: middleDb.url, final: `sqlite:${path.join(dir, "final.db")}` };
});

after(async () => {
  await middleDb.drop();
  await fs.rm(dir, { recursive: true, force: true });
});

test(`copy SQLite → ${crossEngine ? "PostgreSQL" : "SQLite"} → SQLite: the same rows, the same answers to every user`, { timeout: 400_000 }, async () => {
  let t = Date.now();
  const lap = (): string => { const s = ((Date.now() - t) / 1000).toFixed(1); t = Date.now(); return `${s} s`; };
  await buildSource();
  const sizes = await tableSizes(urls.source);
  assert.ok(sizes.records >= SEEDED + OVER_HTTP, `${sizes.records} records`);
  for (const table of TABLES) assert.ok(sizes[table] > 0, `the source has rows in ${table}`);
  process.stdout.write(`[copy] source built: ${sizes.records} records, ${Object.values(sizes).reduce((a, b) => a + b, 0)} rows (${lap()})\n`);
  const original = await answersOf(urls.source);
  process.stdout.write(`[copy] answers of the source (${lap()})\n`);

  for (const [from, to, label] of [[urls.source, urls.middle, "source → middle"], [urls.middle, urls.final, "middle → final"]] as const) {
    const result = await copy(from, to);
    assert.equal(result.code, 0, result.stderr);
    const summary = JSON.parse(result.stdout) as { tables: Record<TableName, number>; rows: number; from: string; to: string };
    assert.deepEqual(summary.tables, sizes, `${label}: the summary counts every table`);
    assert.equal(summary.rows, Object.values(sizes).reduce((a, b) => a + b, 0));
    assert.doesNotMatch(result.stdout, /:[^/:@]+@/, "no password in the summary");
    // Not a terminal: one line per table, no bar.
    const lines = result.stderr.trim().split("\n");
    assert.deepEqual(lines.map((line) => /^copy: (\w+): (\d+) rows in [\d.]+ s$/.exec(line)?.[1]), [...TABLES], result.stderr);
    process.stdout.write(`[copy] ${label}: ${summary.rows} rows (${lap()})\n`);
  }

  // Every row of every table arrives as it left, through the other engine and back.
  const [source, middle, final] = await Promise.all([openStoreAt(urls.source), openStoreAt(urls.middle), openStoreAt(urls.final)]);
  try {
    for (const table of TABLES) {
      // The final copy holds every row of the middle one (the copy checked the counts), so
      // records, the bulk, are compared there only; the rest in the middle one too.
      const middleMatch: Match = crossEngine ? "set" : "exact";
      await assertSameRows(table, source, [
        { store: final, match: crossEngine ? "values" : "exact", name: "final copy" },
        ...(table === "records" ? [] : [{ store: middle, match: middleMatch, name: "middle copy" }]),
      ]);
    }
  } finally {
    await Promise.all([source.close(), middle.close(), final.close()]);
  }
  process.stdout.write(`[copy] rows compared (${lap()})\n`);

  const [middleAnswers, finalAnswers] = await Promise.all([answersOf(urls.middle), answersOf(urls.final)]);
  process.stdout.write(`[copy] answers of the copies (${lap()})\n`);
  for (const [key, value] of Object.entries(original)) {
    assert.deepEqual(middleAnswers[key], value, `middle copy: ${key}`);
    assert.deepEqual(finalAnswers[key], value, `final copy: ${key}`);
  }
  assert.deepEqual(original.file, { status: 200, sha256: crypto.createHash("sha256").update(fileBytes).digest("hex") });
  assert.equal(original.revoked, 401, "a revoked token stays revoked");
  assert.equal(original.scopedAdd, 403, "a read-only token stays read-only");
  assert.equal((original.repeat as { status: number }).status, 200, "a repeat is answered, not refused");

  // Copies go on where the original stopped: new IDs and autogenerated values follow the copied ones.
  for (const url of [urls.middle, urls.final]) {
    const server = await startProcess(serverEnv(url), dir);
    try {
      const added = await ok(call(server.url, "POST", "/api/add-data", { token: ADMIN, json: { scanStationID: "scans", jobID: "1", dataToAdd: { field_2: "Cork" } } }));
      assert.equal(added.json.returnedStationID, sizes.records + sizes.deleted_records + 1, "the next record ID follows the copied ones (deleted ones too)");
      const newest = await ok(call(server.url, "GET", "/api/get-data", { token: ADMIN, json: { blocId: "scans", resultLimit: 1 } }));
      // The records over HTTP, the deleted one and the upload took dockets before.
      assert.equal(newest.json.data["0"].field_4, `DKT-${String(OVER_HTTP + 3).padStart(6, "0")}`, "the docket counter continues");
      const user = await ok(call(server.url, "POST", "/api/admin/users", { token: ADMIN, json: { name: "new" } }), 201);
      assert.equal(user.json.id, String(sizes.users + 1), "the next user ID follows the copied ones");
    } finally {
      await server.stop();
    }
  }
});

test("a copy into a non-empty database is refused and changes nothing", async () => {
  const target = `sqlite:${path.join(dir, "busy.db")}`;
  const init = await runToEnd(CLI_ENTRY, ["init"], { DATABASE_URL: target }, dir);
  assert.equal(init.code, 0, init.stderr);
  const before = await tableSizes(target);
  const store = await openStoreAt(target);
  const rowsBefore = await Promise.all(TABLES.map((table) => allRows(store, table)));
  await store.close();

  const result = await copy(urls.source, target);
  assert.equal(result.code, 1, result.stderr);
  assert.match(result.stderr, /^bloc-data: the target is not empty \(rows in users: 1, tokens: 1\)/);
  assert.equal(result.stdout, "");
  assert.deepEqual(await tableSizes(target), before);
  const again = await openStoreAt(target);
  try {
    assert.deepEqual(await Promise.all(TABLES.map((table) => allRows(again, table))), rowsBefore);
  } finally {
    await again.close();
  }
});

test("copy refuses a missing source, one database as both ends, and missing options", async () => {
  const missing = await copy(`sqlite:${path.join(dir, "nothing-here.db")}`, `sqlite:${path.join(dir, "new.db")}`);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /--from: there is no database at/);
  await assert.rejects(fs.stat(path.join(dir, "new.db")), "nothing was created");
  const same = await copy(urls.source, `sqlite:${path.relative(dir, path.join(dir, "source.db"))}`);
  assert.equal(same.code, 1);
  assert.match(same.stderr, /name the same database/);
  // A folder under a file: the target cannot be created.
  const unopenable = await copy(urls.source, `${urls.source}/inside/bloc.db`);
  assert.equal(unopenable.code, 1);
  assert.match(unopenable.stderr, /^bloc-data: --to: cannot open sqlite:.+\/source\.db\/inside\/bloc\.db: ENOTDIR.*\n$/);
  const usage = await runToEnd(CLI_ENTRY, ["copy", "--from", urls.source], {}, dir);
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /copy needs --to <url>/);
});

test("a source written to during a copy fails it, naming the table", async () => {
  const source = await openStoreAt(`sqlite:${path.join(dir, "moving.db")}`);
  const target = await openStoreAt(`sqlite:${path.join(dir, "moving-copy.db")}`);
  try {
    await source.accounts.createUser("first", "admin", "2026-01-01 00:00:00");
    let late: Promise<unknown> = Promise.resolve();
    const progress: CopyProgress = {
      // Users are copied; a writer adds one before the next table is read.
      tableStarted: (table) => { if (table === "roles") late = source.accounts.createUser("late", "member", "2026-01-01 00:00:01"); },
      rowsCopied: () => undefined, tableDone: () => undefined, finish: () => undefined,
    };
    await assert.rejects(copyStore(source, target, 100, progress), (error: unknown) =>
      error instanceof CopyError && /users has 2 rows in the source, 1 in the target/.test(error.message));
    await late;
  } finally {
    await source.close();
    await target.close();
  }
});

test("blocs created in the same second are listed in the same order after a copy", async () => {
  const from = `sqlite:${path.join(dir, "ties.db")}`;
  const target = await freshDatabaseUrl(path.join(dir, "ties-copy"), `${testFileLabel()}_ties`);
  try {
    const store = await openStoreAt(from);
    const settings = { openToAllUsers: false, acceptingData: true, restriction: "none", moduleId: null, requireJob: false, scanLimit: null, scanLimitPeriod: null } as const;
    for (const id of ["zeta", "alpha"]) await store.blocs.createBloc({ id, name: id, fields: [], ...settings }, "2026-05-01 10:00:00");
    const order = (await store.blocs.listBlocs()).map((b) => b.id);
    await store.close();
    // Ties of created_at are listed by ID: an order every copy keeps, on every engine.
    assert.deepEqual(order, ["alpha", "zeta"], "ties of created_at listed by ID on the original");
    const result = await copy(from, target.url);
    assert.equal(result.code, 0, result.stderr);
    const copied = await openStoreAt(target.url);
    try {
      assert.deepEqual((await copied.blocs.listBlocs()).map((b) => b.id), order);
    } finally {
      await copied.close();
    }
  } finally {
    await target.drop();
  }
});

import { test } from "node:test";
import assert from "node:assert/strict";
import crypto from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import zlib from "node:zlib";
import { openStoreAt } from "../src/cli/copy.js";
import { TABLES, type Row, type Store, type TableName } from "../src/domain/ports/store.js";
import { testEngine } from "./support/database.js";
import { call, type Reply } from "./support/http.js";
import { CLI_ENTRY, freshWorkspace, runToEnd, startProcess, type Running, type Workspace } from "./support/process.js";
import { rankValues } from "./support/ranking.js";
import { allRows, assertCountersEqualRecount } from "./support/recount.js";
import { postMultipart } from "./support/upload.js";

/**
 * `bloc-data backup` under write load, then `bloc-data restore` into a fresh instance:
 * the restored instance must be the source as it was at one moment. That moment is the
 * backup's highest record ID, N: records of the loaded bloc are written one
 * transaction after another (its writers queue on the bloc's lock), so the source
 * at that moment held exactly its records with ID ≤ N. The restored instance must hold
 * exactly those (and every add answered before the backup began), every other row of
 * the source, the files' bytes, counters equal to a recount, and give the answers the
 * source gives (or, for the loaded bloc, would have given at that moment).
 */

const ADMIN = "backup-test-admin-token-0123456789";
const LOAD_CLIENTS = 8;
const LINES = ["L1", "L2", "L3"];

interface Instance {
  readonly workspace: Workspace;
  readonly server: Running;
  /** A store opened by this process on the instance's database. */
  openStore(): Promise<Store>;
}

async function startInstance(name: string, workspace?: Workspace): Promise<Instance> {
  const ws = workspace ?? await freshWorkspace(name);
  // Every value listed, so that whole value counts can be compared.
  const server = await startProcess({ DATABASE_URL: ws.databaseUrl, BLOC_ADMIN_TOKEN: ADMIN, BLOC_FIELD_COUNTS_LIMIT: "0" }, ws.cwd);
  return {
    workspace: ws, server,
    // The child resolves a relative SQLite path against its cwd.
    openStore: () => openStoreAt(ws.databaseUrl.replace(/^sqlite:\.\//, `sqlite:${ws.cwd}/`)),
  };
}

function cli(instance: { workspace: Workspace }, ...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runToEnd(CLI_ENTRY, args, { DATABASE_URL: instance.workspace.databaseUrl }, instance.workspace.cwd);
}

async function ok(reply: Promise<Reply>, status = 200): Promise<Reply> {
  const answered = await reply;
  assert.equal(answered.status, status, answered.text);
  return answered;
}

interface Users {
  /** Reads both blocs, sees only records whose Line is L1 (a profile filter). */
  readonly reader: string;
  /** Adds to both blocs (any Line); on the still bloc sees only its own records. */
  readonly writer: string;
}

async function member(url: string): Promise<{ id: string; token: string }> {
  const user = await ok(call(url, "POST", "/api/admin/users", { token: ADMIN, json: { name: "member", role: "member" } }), 201);
  const token = await ok(call(url, "POST", `/api/admin/users/${user.json.id}/tokens`, { token: ADMIN, json: {} }), 201);
  return { id: user.json.id as string, token: token.json.token as string };
}

/** Two blocs, a reader with a profile filter and a writer restricted to its own records on one bloc. */
async function configure(url: string): Promise<Users> {
  const fields = [
    { name: "Tag" }, { name: "Docket", type: "autogenerate", format: "DKT-{seq:5}" },
    { name: "Line", applyProfileFilter: true }, { name: "Photo", type: "file" },
  ];
  for (const id of ["hot", "still"]) await ok(call(url, "POST", "/api/admin/blocs", { token: ADMIN, json: { name: id, id, fields } }), 201);
  const reader = await member(url);
  const writer = await member(url);
  await ok(call(url, "PUT", `/api/admin/users/${reader.id}`, { token: ADMIN, json: { profile: ["L1"] } }));
  await ok(call(url, "PUT", `/api/admin/users/${writer.id}`, { token: ADMIN, json: { profile: LINES } }));
  for (const bloc of ["hot", "still"]) {
    await ok(call(url, "PUT", `/api/admin/blocs/${bloc}/access/${reader.id}`, { token: ADMIN, json: { read: true } }));
    await ok(call(url, "PUT", `/api/admin/blocs/${bloc}/access/${writer.id}`, { token: ADMIN, json: { read: true, add: true } }));
  }
  await ok(call(url, "PUT", `/api/admin/blocs/still/restrictions/${writer.id}`, { token: ADMIN, json: { mode: "own" } }));
  return { reader: reader.token, writer: writer.token };
}

/** Adds one record, every fourth with a photo; returns whether it was answered 200. */
async function add(url: string, token: string, bloc: string, tag: string, n: number): Promise<boolean> {
  const values = { field_1: tag, field_3: LINES[n % LINES.length]! };
  if (n % 4 === 0) {
    const photo = crypto.createHash("sha256").update(tag).digest();
    const reply = await postMultipart(url, token, { scanStationID: bloc, dataToAdd: JSON.stringify(values) },
      [{ slug: "field_4", content: Buffer.concat([photo, Buffer.from(`photo of ${tag}`)]), filename: `${tag}.bin` }]);
    assert.equal(reply.status, 200, reply.text);
    return true;
  }
  await ok(call(url, "POST", "/api/add-data", { token, json: { scanStationID: bloc, dataToAdd: values } }));
  return true;
}

/** Clients adding to the hot bloc until told to stop; each add's tag, in the order answered. */
function startLoad(url: string, users: Users): { acknowledged: string[]; stop(): Promise<void> } {
  const acknowledged: string[] = [];
  let stopped = false;
  const client = async (c: number): Promise<void> => {
    for (let n = 0; !stopped; n += 1) {
      const tag = `t-${c}-${n}`;
      if (await add(url, c % 2 === 0 ? ADMIN : users.writer, "hot", tag, n)) acknowledged.push(tag);
    }
  };
  const running = Promise.all(Array.from({ length: LOAD_CLIENTS }, (_, c) => client(c)));
  return { acknowledged, stop: async () => { stopped = true; await running; } };
}

function data(row: Row): Record<string, string> {
  return JSON.parse(String(row.data)) as Record<string, string>;
}

/** get-data's value counts for records, as the service lists them: empty values left out, most frequent first, ties by value. */
function expectedFieldCounts(records: readonly Row[], slugs: readonly string[]): Record<string, [string, number][]> {
  const ranked = records.map((row) => ({ createdAt: String(row.created_at), id: Number(row.id), values: data(row) }));
  return Object.fromEntries(slugs.map((slug) => [slug, rankValues(ranked, (r) => r.values[slug] ?? "")]));
}

/** What get-data answers, with value counts as ordered entries so that their order is compared too. */
async function getData(url: string, token: string, json: Record<string, unknown>): Promise<unknown> {
  const reply = await ok(call(url, "GET", "/api/get-data", { token, json }));
  const answer = reply.json.data as Record<string, unknown>;
  const fieldCounts = answer.fieldCounts as Record<string, Record<string, number>>;
  return { ...answer, fieldCounts: Object.fromEntries(Object.entries(fieldCounts).map(([slug, counts]) => [slug, Object.entries(counts)])) };
}

async function report(url: string, token: string, bloc: string, filter?: Record<string, string[]>): Promise<unknown[]> {
  const reply = await ok(call(url, "GET", "/api/get-data-report", {
    token, json: { stationID: bloc, fieldsToReport: "all", ...(filter ? { dataFilteringData: { filterDataToQuery: filter } } : {}) },
  }));
  return reply.json.data as unknown[];
}

test(`a backup taken under write load restores to the source as it was at the backup's moment (${testEngine()})`, { timeout: 300_000 }, async (t) => {
  const source = await startInstance("backup-source");
  let target: Instance | undefined;
  const targetWorkspace = await freshWorkspace("backup-target");
  const file = path.join(source.workspace.cwd, "backup.bloc.gz");
  try {
    const users = await configure(source.server.url);
    // The still bloc: written before the backup only, by both users (some of the writer's records are its own).
    for (let n = 0; n < 60; n += 1) await add(source.server.url, n % 3 === 0 ? users.writer : ADMIN, "still", `s-${n}`, n);

    const load = startLoad(source.server.url, users);
    while (load.acknowledged.length < 200) await new Promise((resolve) => setTimeout(resolve, 20));
    const acknowledgedBefore = [...load.acknowledged];
    const backup = await cli(source, "backup", file);
    const acknowledgedDuring = load.acknowledged.length;
    // Some more after the backup ended: the source moves on, the backup must not.
    while (load.acknowledged.length < acknowledgedDuring + 100) await new Promise((resolve) => setTimeout(resolve, 20));
    await load.stop();
    assert.equal(backup.code, 0, backup.stderr);
    const made = JSON.parse(backup.stdout) as { highestRecordId: number; rows: number; tables: Record<string, number>; contents: number };
    const N = made.highestRecordId;
    assert.deepEqual(Object.keys(made.tables), [...TABLES], "the backup holds every table the store has");
    assert.ok(made.contents > 0, "uploaded files are in the backup");

    // A fresh instance: its database empty, restored by the CLI, then served.
    const restored = await runToEnd(CLI_ENTRY, ["restore", file], { DATABASE_URL: targetWorkspace.databaseUrl }, targetWorkspace.cwd);
    assert.equal(restored.code, 0, restored.stderr);
    assert.equal(JSON.parse(restored.stdout).rows, made.rows);
    target = await startInstance("backup-target", targetWorkspace);

    // Rows: every table but records, files and counters as in the source; records and files exactly those up to N.
    const [from, to] = [await source.openStore(), await target.openStore()];
    try {
      const sourceRecords = await allRows(from, "records");
      const atPoint = sourceRecords.filter((row) => Number(row.id) <= N);
      const restoredRecords = await allRows(to, "records");
      assert.deepEqual(restoredRecords, atPoint, "the restored records are exactly the source's up to the backup's highest ID");
      assert.ok(restoredRecords.length < sourceRecords.length, "the source was written to after the backup's moment");
      const restoredTags = new Set(restoredRecords.map((row) => data(row).field_1));
      assert.deepEqual(acknowledgedBefore.filter((tag) => !restoredTags.has(tag)), [], "every add answered before the backup began is in it");
      assert.ok(restoredRecords.some((row) => !acknowledgedBefore.includes(data(row).field_1!) && data(row).field_1!.startsWith("t-")),
        "adds made while the backup ran are in it too: it was taken under load");
      assert.deepEqual(await allRows(to, "files"), (await allRows(from, "files")).filter((row) => Number(row.record_id) <= N));
      const derived: readonly TableName[] = ["records", "files", "counter_scopes", "value_counts", "sequences",
        "events", "event_sequences"];
      // Each change's event is in the same transaction as the change: the backup holds the events of its records, no more.
      const restoredEvents = (await allRows(to, "events")).filter((row) => row.type === "record.added" && row.bloc_id === "hot");
      assert.deepEqual(restoredEvents.map((row) => Number(row.record_id)).sort((a, b) => a - b),
        restoredRecords.filter((row) => row.bloc_id === "hot").map((row) => Number(row.id)).sort((a, b) => a - b),
        "one record.added event per restored record of the hot bloc");
      const hotSeq = (await allRows(to, "event_sequences")).find((row) => row.bloc_id === "hot");
      assert.equal(Number(hotSeq?.last_seq), Math.max(...(await allRows(to, "events")).filter((row) => row.bloc_id === "hot").map((row) => Number(row.seq))));
      for (const table of TABLES.filter((name) => !derived.includes(name))) {
        assert.deepEqual(await allRows(to, table), await allRows(from, table), `${table} restored as it was`);
      }
      await assertCountersEqualRecount(to);

      // Answers: the still bloc, untouched since, answers alike for every user.
      const [src, dst] = [source.server.url, target.server.url];
      for (const token of [ADMIN, users.reader, users.writer]) {
        for (const json of [{ blocId: "still", resultLimit: 7, currentPage: 1 }, { blocId: "still", resultLimit: 7, currentPage: 3, reverse: true }]) {
          assert.deepEqual(await getData(dst, token, json), await getData(src, token, json));
        }
        assert.deepEqual(await report(dst, token, "still"), await report(src, token, "still"));
      }
      // The hot bloc: the source's answers restricted to the records of the backup's moment.
      const hotAtPoint = atPoint.filter((row) => row.bloc_id === "hot");
      const tags = hotAtPoint.map((row) => data(row).field_1!);
      for (const token of [ADMIN, users.reader]) {
        const expected = await report(src, token, "hot", { field_1: tags });
        assert.deepEqual(await report(dst, token, "hot"), expected);
        assert.deepEqual(await report(dst, token, "hot", { field_1: tags }), expected);
        const visible = token === ADMIN ? hotAtPoint : hotAtPoint.filter((row) => data(row).field_3 === "L1");
        const newest = [...visible].sort((a, b) => (a.created_at! < b.created_at! ? 1 : a.created_at! > b.created_at! ? -1 : Number(b.id) - Number(a.id)));
        const answer = await getData(dst, token, { blocId: "hot", resultLimit: 10, currentPage: 2 }) as Record<string, unknown>;
        assert.equal(answer.count, visible.length);
        assert.deepEqual(answer.fieldCounts, expectedFieldCounts(visible, ["field_1", "field_2", "field_3", "field_4"]));
        assert.deepEqual(Array.from({ length: 10 }, (_, i) => (answer[String(i)] as { service_entry_row_id: number }).service_entry_row_id),
          newest.slice(10, 20).map((row) => Number(row.id)));
      }
      // Uploaded files: the same bytes from the restored instance.
      const refs = hotAtPoint.map((row) => data(row).field_4 ?? "").filter((ref) => ref !== "");
      for (const ref of refs) {
        const [a, b] = await Promise.all([src, dst].map((url) => ok(call(url, "GET", `/api/files/${ref}`, { token: ADMIN }))));
        assert.ok(a!.body.equals(b!.body), `file ${ref}`);
      }
      // The restored instance takes writes, its IDs and autogenerate values continuing after the backup's.
      const next = await ok(call(dst, "POST", "/api/add-data", { token: ADMIN, json: { scanStationID: "hot", dataToAdd: { field_1: "after" } } }));
      assert.equal(next.json.returnedStationID, N + 1);
      const dockets = new Set(hotAtPoint.map((row) => data(row).field_2));
      const after = await report(dst, ADMIN, "hot", { field_1: ["after"] }) as { field_2: string }[];
      assert.ok(!dockets.has(after[0]!.field_2), "a new autogenerate value, not one the backup holds");
      t.diagnostic(`backup (${testEngine()}): ${made.rows} rows, ${made.contents} files, highest record ${N} of ${sourceRecords.length} ` +
        `at the end; ${acknowledgedBefore.length} adds answered before it began, ${restoredRecords.length} records restored`);
    } finally {
      await from.close();
      await to.close();
    }
  } finally {
    await source.server.stop();
    await target?.server.stop();
    await source.workspace.remove();
    await targetWorkspace.remove();
  }
});

test("restore refuses a store that is not empty and a damaged backup, changing nothing; a backup restores into either engine", { timeout: 120_000 }, async () => {
  const source = await startInstance("backup-refusals");
  const empty = await freshWorkspace("backup-refusals-empty");
  const file = path.join(source.workspace.cwd, "backup.bloc.gz");
  try {
    await configure(source.server.url);
    await add(source.server.url, ADMIN, "hot", "only", 0);
    const backup = await cli(source, "backup", file);
    assert.equal(backup.code, 0, backup.stderr);

    // Into the source itself: not empty.
    const full = await cli(source, "restore", file);
    assert.equal(full.code, 1);
    assert.match(full.stderr, /^bloc-data: restore needs an empty store, and DATABASE_URL holds rows \(users: 3,/);

    // Cut short, or with one byte changed: refused before anything is written.
    const bytes = await fs.readFile(file);
    const cut = path.join(empty.cwd, "cut.gz");
    await fs.writeFile(cut, bytes.subarray(0, Math.floor(bytes.length * 0.7)));
    const emptyInstance = { workspace: empty };
    const refusedCut = await cli(emptyInstance, "restore", cut);
    assert.equal(refusedCut.code, 1);
    assert.match(refusedCut.stderr, /is not a complete bloc-data backup/);
    const missing = await cli(emptyInstance, "restore", path.join(empty.cwd, "nothing-here.gz"));
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /cannot read/);
    const store = await openStoreAt(empty.databaseUrl.replace(/^sqlite:\.\//, `sqlite:${empty.cwd}/`));
    try {
      assert.deepEqual(Object.values(await store.maintenance.tableSizes()).filter((n) => n > 0), [], "nothing was written");
    } finally {
      await store.close();
    }
    assert.deepEqual((await fs.readdir(path.join(empty.cwd, "data", "files")).catch(() => [])).filter((f) => f !== "tmp"), []);

    // The format is the same for both engines: this backup also restores into a SQLite file.
    const other = await runToEnd(CLI_ENTRY, ["restore", file], { DATABASE_URL: "sqlite:./other/bloc.db", BLOC_FILES_DIR: "./other/files" }, empty.cwd);
    assert.equal(other.code, 0, other.stderr);
    const [from, to] = [await source.openStore(), await openStoreAt(`sqlite:${empty.cwd}/other/bloc.db`)];
    try {
      for (const table of TABLES) assert.deepEqual(await allRows(to, table), await allRows(from, table), table);
    } finally {
      await from.close();
      await to.close();
    }

    // A missing upload's content fails the backup, leaving no file behind.
    const blobs = path.join(source.workspace.cwd, "data", "files");
    for (const entry of await fs.readdir(blobs)) if (entry !== "tmp") await fs.rm(path.join(blobs, entry), { recursive: true });
    const broken = path.join(source.workspace.cwd, "broken.gz");
    const refused = await cli(source, "backup", broken);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /is missing from BLOC_FILES_DIR/);
    await assert.rejects(fs.access(broken));
    await assert.rejects(fs.access(`${broken}.partial`));
    const rowsOnly = await cli(source, "backup", broken, "--skip-files");
    assert.equal(rowsOnly.code, 0, rowsOnly.stderr);
    assert.equal(JSON.parse(rowsOnly.stdout).contents, 0);
  } finally {
    await source.server.stop();
    await source.workspace.remove();
    await empty.remove();
  }
});

test("a backup of the counters of before restores, its blocs counted again", { timeout: 120_000 }, async () => {
  const source = await startInstance("backup-old-counters");
  const target = await freshWorkspace("backup-old-counters-target");
  const file = path.join(source.workspace.cwd, "backup.bloc.gz");
  const old = path.join(target.cwd, "old.bloc.gz");
  try {
    await configure(source.server.url);
    for (let i = 0; i < 30; i += 1) await add(source.server.url, ADMIN, "hot", `t-${i % 4}`, i);
    const backup = await cli(source, "backup", file);
    assert.equal(backup.code, 0, backup.stderr);
    // The same backup as an earlier version wrote it: its counters in the tables of before, which no longer exist.
    const lines = zlib.gunzipSync(await fs.readFile(file)).toString("utf8").split("\n").filter((l) => l !== "");
    const rewritten: unknown[] = [];
    let tables: string[] = [];
    let oldCountsWritten = false;
    for (const line of lines) {
      const value = JSON.parse(line) as { tables?: string[]; table?: string; rows?: Record<string, number>; end?: boolean };
      // The old counter rows go where their tables stand in the header's order, as an old version wrote them.
      const before = value.tables === undefined && (value.table === undefined || tables.indexOf(value.table) > tables.indexOf("day_counts"));
      if (before && !oldCountsWritten) {
        rewritten.push({ table: "day_counts", row: { bloc_id: "hot", segment: "", day: "2026-01-01", n: 30 } });
        oldCountsWritten = true;
      }
      if (value.tables) {
        value.tables = value.tables.flatMap((t) => (t === "counter_scopes" ? ["day_counts", "value_totals", "period_values"] : t === "value_counts" ? [] : [t]));
        tables = value.tables;
        rewritten.push(value);
      } else if (value.table === "counter_scopes") {
        continue;
      } else if (value.table === "value_counts") {
        continue;
      } else if (value.end && value.rows) {
        const { counter_scopes: _scopes, value_counts: _values, ...rows } = value.rows;
        rewritten.push({ ...value, rows: { ...rows, day_counts: 1, value_totals: 0, period_values: 0 } });
      } else {
        rewritten.push(value);
      }
    }
    await fs.writeFile(old, zlib.gzipSync(rewritten.map((v) => JSON.stringify(v)).join("\n") + "\n"));
    const restored = await cli({ workspace: target }, "restore", old);
    assert.equal(restored.code, 0, restored.stderr);
    const [from, to] = [await source.openStore(), await openStoreAt(target.databaseUrl.replace(/^sqlite:\.\//, `sqlite:${target.cwd}/`))];
    try {
      assert.deepEqual(await allRows(to, "records"), await allRows(from, "records"));
      await assertCountersEqualRecount(to);
      const scopes = async (store: Store): Promise<string[]> =>
        (await allRows(store, "counter_scopes")).map((r) => JSON.stringify([r.bloc_id, r.segment, r.period, r.n])).sort();
      assert.deepEqual(await scopes(to), await scopes(from), "the same record counts");
    } finally {
      await from.close();
      await to.close();
    }
  } finally {
    await source.server.stop();
    await source.workspace.remove();
    await target.remove();
  }
});

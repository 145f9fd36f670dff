import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { testEngine } from "./support/database.js";
import { call } from "./support/http.js";
import { freshWorkspace, startProcess } from "./support/process.js";

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await fs.readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile()).map((e) => path.join(e.parentPath ?? e.path, e.name));
}

/** What the first run stored, for the second run to find again. */
interface Stored {
  readonly blocId: string;
  readonly member: string;
  readonly recordId: number;
}

/** A first server process: a bloc, a member with a token and a grant, and one record; then it stops. */
async function firstRun(env: Record<string, string>, cwd: string, admin: string): Promise<Stored> {
  const server = await startProcess(env, cwd);
  try {
    const bloc = await call(server.url, "POST", "/api/admin/blocs", { token: admin, json: { name: "Scans", fields: [{ name: "Part" }] } });
    assert.equal(bloc.status, 201);
    const user = await call(server.url, "POST", "/api/admin/users", { token: admin, json: { name: "Ann" } });
    const issued = await call(server.url, "POST", `/api/admin/users/${user.json.id}/tokens`, { token: admin, json: {} });
    assert.equal(issued.status, 201);
    const member: string = issued.json.token;
    await call(server.url, "PUT", `/api/admin/blocs/${bloc.json.id}/access/${user.json.id}`, { token: admin, json: { read: true, add: true } });
    const added = await call(server.url, "POST", "/api/add-data", {
      token: member, json: { scanStationID: bloc.json.id, dataToAdd: '{"field_1":"P-100"}' },
    });
    assert.equal(added.status, 200);
    return { blocId: bloc.json.id as string, member, recordId: added.json.returnedStationID as number };
  } finally {
    await server.stop();
  }
}

/** A second process on the same database finds it all, and the same BLOC_ADMIN_TOKEN makes no second admin. */
async function secondRun(env: Record<string, string>, cwd: string, admin: string, stored: Stored): Promise<void> {
  const server = await startProcess(env, cwd);
  try {
    const read = await call(server.url, "GET", "/api/get-data", { token: stored.member, json: { blocId: stored.blocId } });
    assert.equal(read.status, 200);
    assert.equal(read.json.data.count, 1);
    assert.equal(read.json.data["0"].field_1, "P-100");
    assert.equal(read.json.data["0"].service_entry_row_id, stored.recordId);
    const again = await call(server.url, "POST", "/api/admin/users", { token: admin, json: { name: "Bob" } });
    assert.equal(again.json.id, "3", "start-up created no extra user");
  } finally {
    await server.stop();
  }
}

// The default DATABASE_URL is a SQLite file, and the plain-text check reads the database's files.
const sqliteOnly = testEngine() === "sqlite"
  ? false
  : "SQLite only: the default DATABASE_URL (sqlite:./data/bloc.db) and its files; restarts on this engine are tested below";

test("records and tokens survive a restart, and no token is stored in plain text", { skip: sqliteOnly }, async () => {
  const cwd = await fs.mkdtemp(path.join(os.tmpdir(), "bloc-restart-"));
  const admin = "restart-admin-token-0123456789";
  const env = { BLOC_ADMIN_TOKEN: admin };
  try {
    // Default DATABASE_URL: the folder ./data and its file are created on first start.
    const stored = await firstRun(env, cwd, admin);

    const data = await filesUnder(path.join(cwd, "data"));
    assert.ok(data.some((f) => f.endsWith("bloc.db")), `data folder holds ${data.join(", ")}`);
    for (const file of data) {
      const bytes = await fs.readFile(file);
      for (const secret of [stored.member, admin]) {
        assert.equal(bytes.includes(Buffer.from(secret)), false, `${file} holds a token in plain text`);
      }
    }

    // Starting again with the same BLOC_ADMIN_TOKEN must not make a second admin.
    await secondRun(env, cwd, admin, stored);
  } finally {
    await fs.rm(cwd, { recursive: true, force: true });
  }
});

test(`records and tokens survive a restart on the engine under test (${testEngine()})`, async () => {
  const { cwd, databaseUrl, remove } = await freshWorkspace("restart");
  const admin = "restart-admin-token-0123456789";
  const env = { BLOC_ADMIN_TOKEN: admin, DATABASE_URL: databaseUrl };
  try {
    const stored = await firstRun(env, cwd, admin);
    await secondRun(env, cwd, admin, stored);
  } finally {
    await remove();
  }
});

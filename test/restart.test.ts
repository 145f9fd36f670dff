import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { call } from "./support/http.js";
import { startProcess } from "./support/process.js";

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await fs.readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile()).map((e) => path.join(e.parentPath ?? e.path, e.name));
}

test("records and tokens survive a restart, and no token is stored in plain text", async () => {
  const cwd = await fs.mkdtemp(path.join(os.tmpdir(), "bloc-restart-"));
  const admin = "restart-admin-token-0123456789";
  const env = { BLOC_ADMIN_TOKEN: admin };
  try {
    // Default DATABASE_URL: the folder ./data and its file are created on first start.
    let server = await startProcess(env, cwd);
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
    await server.stop();

    const data = await filesUnder(path.join(cwd, "data"));
    assert.ok(data.some((f) => f.endsWith("bloc.db")), `data folder holds ${data.join(", ")}`);
    for (const file of data) {
      const bytes = await fs.readFile(file);
      for (const secret of [member, admin]) {
        assert.equal(bytes.includes(Buffer.from(secret)), false, `${file} holds a token in plain text`);
      }
    }

    // Starting again with the same BLOC_ADMIN_TOKEN must not make a second admin.
    server = await startProcess(env, cwd);
    const read = await call(server.url, "GET", "/api/get-data", { token: member, json: { blocId: bloc.json.id } });
    assert.equal(read.status, 200);
    assert.equal(read.json.data.count, 1);
    assert.equal(read.json.data["0"].field_1, "P-100");
    assert.equal(read.json.data["0"].service_entry_row_id, added.json.returnedStationID);
    const again = await call(server.url, "POST", "/api/admin/users", { token: admin, json: { name: "Bob" } });
    assert.equal(again.json.id, "3", "start-up created no extra user");
    await server.stop();
  } finally {
    await fs.rm(cwd, { recursive: true, force: true });
  }
});

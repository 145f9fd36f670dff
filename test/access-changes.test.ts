import { test } from "node:test";
import assert from "node:assert/strict";
import { call } from "./support/http.js";
import { freshWorkspace, startProcess, type Running } from "./support/process.js";
import type { JsonBody } from "./support/json.js";

test("grant, role, restriction, profile and token changes made through one process hold on the next request to another", async () => {
  // On SQLite the URL stays relative (sqlite:./shared/bloc.db): both processes resolve it to one file.
  const { cwd, databaseUrl, remove } = await freshWorkspace("two", "./shared");
  const admin = "two-process-admin-token-0123456789";
  const env = { BLOC_ADMIN_TOKEN: admin, DATABASE_URL: databaseUrl };
  // Started inside the try, so that a process that fails to start still leaves no database behind.
  const started: Running[] = [];
  try {
    const a = await startProcess(env, cwd);
    started.push(a);
    const b = await startProcess(env, cwd);
    started.push(b);
    const viaA = async (method: string, p: string, json?: unknown): Promise<JsonBody> => {
      const reply = await call(a.url, method, p, { token: admin, ...(json === undefined ? {} : { json }) });
      assert.ok(reply.status < 300, `${method} ${p}: ${reply.status} ${reply.text}`);
      return reply.json;
    };
    const bloc = await viaA("POST", "/api/admin/blocs", { name: "Shared", fields: [{ name: "Part" }, { name: "Site" }] });
    for (const site of ["Dublin", "Dublin", "Cork"]) {
      await viaA("POST", "/api/add-data", { scanStationID: bloc.id, dataToAdd: { field_1: "P", field_2: site } });
    }
    const user = await viaA("POST", "/api/admin/users", { name: "ann" });
    const token = (await viaA("POST", `/api/admin/users/${user.id}/tokens`, {})).token as string;
    const countViaB = async (): Promise<number | "refused"> => {
      const reply = await call(b.url, "GET", "/api/get-data", { token, json: { blocId: bloc.id } });
      if (reply.status === 401) return "refused";
      assert.equal(reply.status, 200, reply.text);
      return reply.json.data.count as number;
    };

    assert.equal(await countViaB(), "refused");
    await viaA("PUT", `/api/admin/blocs/${bloc.id}/access/${user.id}`, { read: true });
    assert.equal(await countViaB(), 3, "grant");
    await viaA("PUT", `/api/admin/blocs/${bloc.id}/restrictions/${user.id}`, { mode: "own" });
    assert.equal(await countViaB(), 0, "own restriction");
    await viaA("DELETE", `/api/admin/blocs/${bloc.id}/restrictions/${user.id}`);
    assert.equal(await countViaB(), 3, "restriction removed");
    await viaA("PATCH", `/api/admin/blocs/${bloc.id}`, { restriction: "hidden" });
    assert.equal(await countViaB(), 0, "bloc hidden");
    await viaA("PATCH", `/api/admin/blocs/${bloc.id}`, { restriction: "none" });
    await viaA("PATCH", `/api/admin/blocs/${bloc.id}/fields/field_2`, { applyProfileFilter: true });
    assert.equal(await countViaB(), 0, "profile filter without profile values");
    await viaA("PUT", `/api/admin/users/${user.id}`, { profile: ["Dublin"] });
    assert.equal(await countViaB(), 2, "profile values");
    await viaA("DELETE", `/api/admin/blocs/${bloc.id}/access/${user.id}`);
    assert.equal(await countViaB(), "refused", "grant removed");
    const role = await viaA("POST", "/api/admin/roles", { name: "readers" });
    await viaA("PUT", `/api/admin/blocs/${bloc.id}/access/roles/${role.id}`, { read: true });
    await viaA("PUT", `/api/admin/users/${user.id}/roles/${role.id}`);
    assert.equal(await countViaB(), 2, "role granted");
    await viaA("DELETE", `/api/admin/users/${user.id}/roles/${role.id}`);
    assert.equal(await countViaB(), "refused", "role left");
    await viaA("PUT", `/api/admin/users/${user.id}/roles/${role.id}`);
    assert.equal(await countViaB(), 2, "role joined again");
    const tokens = await viaA("POST", `/api/admin/users/${user.id}/tokens`, {});
    await viaA("DELETE", `/api/admin/tokens/${tokens.id}`);
    const revoked = await call(b.url, "GET", "/api/get-data", { token: tokens.token, json: { blocId: bloc.id } });
    assert.equal(revoked.status, 401, "revoked token");
  } finally {
    for (const running of started) await running.stop();
    await remove();
  }
});

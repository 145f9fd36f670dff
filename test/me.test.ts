import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { addBloc, startServer, type TestServer } from "./support/server.js";
import type { JsonBody } from "./support/json.js";

let server: TestServer;
before(async () => { server = await startServer(); });
after(async () => { await server.close(); });

async function admin(method: string, path: string, json?: unknown): Promise<JsonBody> {
  const reply = await server.call(method, path, json === undefined ? {} : { json });
  assert.ok(reply.status < 300, `${method} ${path}: ${reply.status} ${reply.text}`);
  return reply.json;
}

test("/api/me answers the user, roles, scope and the blocs they can use with effective rights", async () => {
  const scans = await addBloc(server, "Scans", ["Part"]);
  const open = await addBloc(server, "Open", ["Part"]);
  await addBloc(server, "Unseen", ["Part"]);
  await admin("PATCH", `/api/admin/blocs/${open}`, { openToAllUsers: true, restriction: "own" });
  const user = await admin("POST", "/api/admin/users", { name: "ann" });
  await admin("PUT", `/api/admin/users/${user.id}`, { profile: ["Dublin"] });
  const role = await admin("POST", "/api/admin/roles", { name: "leads" });
  await admin("PUT", `/api/admin/users/${user.id}/roles/${role.id}`);
  await admin("PUT", `/api/admin/blocs/${scans}/access/roles/${role.id}`, { update: true, seeHidden: true });
  await admin("PUT", `/api/admin/blocs/${scans}/access/${user.id}`, { read: true });
  const full = await admin("POST", `/api/admin/users/${user.id}/tokens`, {});
  const me = await server.call("GET", "/api/me", { token: full.token });
  assert.equal(me.status, 200);
  // Blocs are listed oldest first, ties by ID: the same order as the admin listing, whichever second each was made in.
  const listed: string[] = (await admin("GET", "/api/admin/blocs")).blocs.map((b: { id: string }) => b.id);
  const byId = (a: { id: string }, b: { id: string }): number => listed.indexOf(a.id) - listed.indexOf(b.id);
  assert.deepEqual(me.json, {
    user: { id: user.id, name: "ann", role: "member", profile: ["Dublin"], email: null, disabled: false },
    roles: [{ id: role.id, name: "leads" }],
    token: { permissions: null, blocs: null },
    blocs: [
      { id: scans, name: "Scans", permissions: ["read", "update"], restriction: "none", seeHidden: true },
      { id: open, name: "Open", permissions: ["read", "add"], restriction: "own", seeHidden: false },
    ].sort(byId),
  });

  const scoped = await admin("POST", `/api/admin/users/${user.id}/tokens`, { permissions: ["read"], blocs: [open] });
  const narrowed = await server.call("GET", "/api/me", { token: scoped.token });
  assert.deepEqual(narrowed.json.token, { permissions: ["read"], blocs: [open] });
  assert.deepEqual(narrowed.json.blocs.map((b: { id: string; permissions: string[] }) => [b.id, b.permissions]), [[open, ["read"]]]);

  await admin("PATCH", `/api/admin/blocs/${open}`, { acceptingData: false });
  const closed = await server.call("GET", "/api/me", { token: full.token });
  assert.deepEqual(closed.json.blocs.find((b: { id: string }) => b.id === open).permissions, ["read"], "a bloc not accepting data takes add away");

  const anonymous = await server.call("GET", "/api/me", { token: undefined });
  assert.equal(anonymous.status, 401);
});

test("a bloc not accepting data refuses add-data with 403 to members but not to admins", async () => {
  const bloc = await addBloc(server, "Closed", ["Part"]);
  const user = await admin("POST", "/api/admin/users", { name: "bob" });
  await admin("PUT", `/api/admin/blocs/${bloc}/access/${user.id}`, { add: true });
  const token = (await admin("POST", `/api/admin/users/${user.id}/tokens`, {})).token;
  await admin("PATCH", `/api/admin/blocs/${bloc}`, { acceptingData: false });
  const refused = await server.call("POST", "/api/add-data", { token, json: { scanStationID: bloc, dataToAdd: "{}" } });
  assert.equal(refused.status, 403);
  assert.deepEqual(refused.json, { error: "You do not have permission to add or edit data on this form." });
  const byAdmin = await server.call("POST", "/api/add-data", { json: { scanStationID: bloc, dataToAdd: "{}" } });
  assert.equal(byAdmin.status, 200);
});

test("a scoped admin token cannot use the admin API; scopes are checked when issued", async () => {
  const bloc = await addBloc(server, "Scoped", ["Part"]);
  const scoped = await admin("POST", "/api/admin/users/1/tokens", { permissions: ["read"] });
  const refused = await server.call("GET", "/api/admin/blocs", { token: scoped.token });
  assert.equal(refused.status, 403);
  assert.ok(refused.json.error);
  const readable = await server.call("GET", "/api/get-data", { token: scoped.token, json: { blocId: bloc } });
  assert.equal(readable.status, 200);
  const notAdd = await server.call("POST", "/api/add-data", { token: scoped.token, json: { scanStationID: bloc, dataToAdd: "{}" } });
  assert.equal(notAdd.status, 403);

  const unknownBloc = await server.call("POST", "/api/admin/users/1/tokens", { json: { blocs: ["no-such-bloc"] } });
  assert.equal(unknownBloc.status, 404);
  const badPermission = await server.call("POST", "/api/admin/users/1/tokens", { json: { permissions: ["remove"] } });
  assert.equal(badPermission.status, 400);
  assert.ok(badPermission.json.error);
});

test("the access admin API refuses unknown users, roles, blocs, fields and modes", async () => {
  const bloc = await addBloc(server, "Checks", ["Part"]);
  const cases: [string, string, unknown, number][] = [
    ["PUT", `/api/admin/blocs/${bloc}/restrictions/999`, { mode: "own" }, 404],
    ["PUT", `/api/admin/blocs/${bloc}/restrictions/1`, { mode: "secret" }, 400],
    ["PUT", `/api/admin/blocs/nope/restrictions/1`, { mode: "own" }, 404],
    ["PUT", `/api/admin/blocs/${bloc}/access/roles/999`, { read: true }, 404],
    ["PUT", "/api/admin/users/1/roles/999", undefined, 404],
    ["PUT", "/api/admin/users/999", { profile: ["x"] }, 404],
    ["PUT", "/api/admin/users/1", { profile: "Dublin" }, 400],
    ["PATCH", `/api/admin/blocs/${bloc}/fields/field_9`, { applyProfileFilter: true }, 404],
    ["PATCH", `/api/admin/blocs/${bloc}`, { restriction: "all" }, 400],
    ["POST", "/api/admin/roles", { name: "" }, 400],
  ];
  for (const [method, path, json, status] of cases) {
    const reply = await server.call(method, path, json === undefined ? {} : { json });
    assert.equal(reply.status, status, `${method} ${path}: ${reply.text}`);
    assert.equal(typeof reply.json.error, "string", `${method} ${path} names the problem`);
  }
  await admin("POST", "/api/admin/roles", { name: "dupe" });
  const duplicate = await server.call("POST", "/api/admin/roles", { json: { name: "dupe" } });
  assert.equal(duplicate.status, 409);
});

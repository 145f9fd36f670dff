import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { BlocClient } from "bloc-data-service/client";
import { addBloc, addRecord, startServer, type TestServer } from "./support/server.js";
import { addReader, asAdmin } from "./support/readers.js";
import type { JsonBody } from "./support/json.js";

/*
 * GET /api/blocs/:blocId/user-names: names only of users who created a record the caller
 * can see there, under their grant, restriction and profile filter; a name the caller's
 * view hides is never told, not even whether that user exists.
 */

let server: TestServer;
let bloc: string;
const users: Record<string, { id: string; token: string }> = {};
let adminId = "";

const admin = (method: string, path: string, json?: unknown): Promise<JsonBody> => asAdmin(server, method, path, json);

async function user(name: string, grant: Record<string, boolean> | null, profile?: string[]): Promise<void> {
  users[name] = await addReader(server, bloc, name, grant, profile);
}

const ask = (token: string | undefined, ids: readonly string[], blocId = bloc) =>
  server.call("GET", `/api/blocs/${encodeURIComponent(blocId)}/user-names?ids=${ids.map(encodeURIComponent).join(",")}`,
    token === undefined ? {} : { token });

before(async () => {
  server = await startServer({ BLOC_MAX_RESULT_LIMIT: "6" });
  adminId = (await server.call("GET", "/api/me")).json.user.id as string;
  bloc = await addBloc(server, "Scans", ["Part", "Site"]);
  await admin("PATCH", `/api/admin/blocs/${bloc}/fields/field_2`, { applyProfileFilter: true });
  await user("Ann", { read: true, add: true }, ["Dublin"]);
  await user("Bob", { read: true, add: true }, ["Cork"]);
  await user("Cid", { read: true, add: true }, ["Dublin", "Cork"]);
  await user("Dee", { read: true }, ["Dublin"]);
  await user("Eve", null);
  await user("Fay", { read: true }, ["Dublin", "Cork"]);
  await admin("PUT", `/api/admin/blocs/${bloc}/restrictions/${users.Cid!.id}`, { mode: "own" });
  await admin("PUT", `/api/admin/blocs/${bloc}/restrictions/${users.Fay!.id}`, { mode: "hidden" });
  await addRecord(server, bloc, { field_1: "P-1", field_2: "Dublin" }, users.Ann!.token);
  await addRecord(server, bloc, { field_1: "P-2", field_2: "Cork" }, users.Bob!.token);
  await addRecord(server, bloc, { field_1: "P-3", field_2: "Cork" }, users.Cid!.token);
});

after(async () => { await server.close(); });

test("an admin gets the name of each creator asked about; other IDs are left out", async () => {
  const everyone = [users.Ann!.id, users.Bob!.id, users.Cid!.id, users.Dee!.id, adminId, "no-such-user"];
  const reply = await ask(undefined, everyone);
  assert.equal(reply.status, 200);
  assert.deepEqual(reply.json, { names: { [users.Ann!.id]: "Ann", [users.Bob!.id]: "Bob", [users.Cid!.id]: "Cid" } });
  // Dee exists but created nothing here; the admin created nothing either: neither is named.
  const client = new BlocClient({ url: server.url, token: server.adminToken });
  try {
    assert.deepEqual(await client.userNames(bloc, [users.Bob!.id, users.Bob!.id]), { [users.Bob!.id]: "Bob" });
  } finally {
    client.close();
  }
});

test("a profile-filtered reader learns only the creators of records in their profile", async () => {
  const ids = [users.Ann!.id, users.Bob!.id, users.Cid!.id];
  assert.deepEqual((await ask(users.Dee!.token, ids)).json, { names: { [users.Ann!.id]: "Ann" } });
  assert.deepEqual((await ask(users.Bob!.token, ids)).json, { names: { [users.Bob!.id]: "Bob", [users.Cid!.id]: "Cid" } });
});

test("an `own` reader learns only their own name; a `hidden` one learns none", async () => {
  const ids = [users.Ann!.id, users.Bob!.id, users.Cid!.id];
  assert.deepEqual((await ask(users.Cid!.token, ids)).json, { names: { [users.Cid!.id]: "Cid" } });
  assert.deepEqual((await ask(users.Fay!.token, ids)).json, { names: {} });
});

test("without read access: 401 with `error`, the same for a bloc that does not exist", async () => {
  const refused = await ask(users.Eve!.token, [users.Ann!.id]);
  assert.equal(refused.status, 401);
  assert.equal(typeof refused.json.error, "string");
  const missing = await ask(users.Eve!.token, [users.Ann!.id], "no-such-bloc");
  assert.deepEqual([missing.status, missing.json], [401, refused.json]);
  const anonymous = await ask("bds_not-a-token", [users.Ann!.id]);
  assert.equal(anonymous.status, 401);
  assert.equal(typeof anonymous.json.error, "string");
});

test("ids: required, at most the page size (BLOC_MAX_RESULT_LIMIT), empty entries and repeats dropped", async () => {
  const missing = await server.call("GET", `/api/blocs/${bloc}/user-names`);
  assert.equal(missing.status, 400);
  assert.match(missing.json.error, /ids is required/);
  const tooMany = await ask(undefined, ["1", "2", "3", "4", "5", "6", "7"]);
  assert.equal(tooMany.status, 400);
  assert.match(tooMany.json.error, /at most 6/);
  const repeated = await server.call("GET", `/api/blocs/${bloc}/user-names?ids=${users.Ann!.id},,${users.Ann!.id},x1,x2,x3,x4,x5`);
  assert.deepEqual([repeated.status, repeated.json], [200, { names: { [users.Ann!.id]: "Ann" } }]);
  const none = await server.call("GET", `/api/blocs/${bloc}/user-names?ids=`);
  assert.deepEqual([none.status, none.json], [200, { names: {} }]);
  const long = await ask(undefined, ["x".repeat(5000)]);
  assert.equal(long.status, 400);
  assert.equal(typeof long.json.error, "string");
});

import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { BlocClient, BlocApiError } from "bloc-data-service/client";
import { addBloc, addRecord, startServer, type TestServer } from "./support/server.js";
import { addReader, asAdmin } from "./support/readers.js";
import { keysOf } from "./support/fixtures.js";
import type { JsonBody } from "./support/json.js";

/*
 * GET /api/blocs/:blocId/records/:recordId: one record as get-data shows it, under the
 * reader's grant, restriction and profile filter; a record the reader may not see, a
 * deleted one and one never made answer the same 404.
 */

let server: TestServer;
let bloc: string;
const users: Record<string, { id: string; token: string }> = {};
const ids: Record<string, number> = {};

const admin = (method: string, path: string, json?: unknown): Promise<JsonBody> => asAdmin(server, method, path, json);

async function user(name: string, grant: Record<string, boolean> | null, profile?: string[]): Promise<void> {
  users[name] = await addReader(server, bloc, name, grant, profile);
}

const read = (token: string | undefined, recordId: number | string, blocId = bloc) =>
  server.call("GET", `/api/blocs/${encodeURIComponent(blocId)}/records/${encodeURIComponent(String(recordId))}`,
    token === undefined ? {} : { token });

before(async () => {
  server = await startServer();
  bloc = await addBloc(server, "Scans", ["Part", "Site"]);
  await admin("PATCH", `/api/admin/blocs/${bloc}/fields/field_2`, { applyProfileFilter: true });
  await user("Ann", { read: true, add: true }, ["Dublin"]);
  await user("Bob", { read: true, add: true }, ["Cork"]);
  await user("Cid", { read: true, add: true }, ["Dublin", "Cork"]);
  await user("Eve", null);
  await admin("PUT", `/api/admin/blocs/${bloc}/restrictions/${users.Cid!.id}`, { mode: "own" });
  ids.dublin = await addRecord(server, bloc, { field_1: "P-1", field_2: "Dublin" }, users.Ann!.token);
  ids.cork = await addRecord(server, bloc, { field_1: "P-2", field_2: "Cork" }, users.Bob!.token);
  ids.cids = await addRecord(server, bloc, { field_1: "P-3", field_2: "Cork" }, users.Cid!.token);
  ids.gone = await addRecord(server, bloc, { field_1: "P-4", field_2: "Dublin" });
  await admin("POST", "/api/delete-records-by-matching-values", {
    blocId: bloc, searchItems: JSON.stringify({ service_entry_row_id: ids.gone }),
  });
});

after(async () => { await server.close(); });

test("an admin reads any record, shaped as a get-data row", async () => {
  const reply = await read(undefined, ids.cork!);
  assert.equal(reply.status, 200, reply.text);
  assert.deepEqual(keysOf(reply.json), ["record"]);
  assert.equal(reply.json.record.service_entry_row_id, ids.cork);
  assert.equal(reply.json.record.field_1, "P-2");
  assert.equal(reply.json.record.user_id, users.Bob!.id);
  const page = await server.call("POST", "/api/get-data", { json: { blocId: bloc } });
  const row = Object.values(page.json.data as Record<string, JsonBody>).find((r) => r?.service_entry_row_id === ids.cork);
  assert.deepEqual(reply.json.record, row, "the same row get-data shows");
  const client = new BlocClient({ url: server.url, token: server.adminToken });
  assert.equal((await client.record(bloc, ids.cork!)).field_1, "P-2");
  client.close();
});

test("a reader sees only what their profile and restriction let them see; the rest is one 404", async () => {
  assert.equal((await read(users.Ann!.token, ids.dublin!)).status, 200);
  const hidden = await read(users.Ann!.token, ids.cork!);
  assert.equal(hidden.status, 404, hidden.text);
  assert.deepEqual(keysOf(hidden.json), ["error"]);
  const never = await read(users.Ann!.token, 999_999);
  assert.equal(never.status, 404);
  assert.equal(hidden.json.error.replace(`record ${ids.cork} `, "record N "), never.json.error.replace("record 999999 ", "record N "),
    "a hidden record reads exactly as one never made");
  assert.equal((await read(users.Cid!.token, ids.cids!)).status, 200, "an own reader reads their own record");
  assert.equal((await read(users.Cid!.token, ids.cork!)).status, 404, "but not another's in their profile");
});

test("a deleted record, a malformed ID and no access", async () => {
  assert.equal((await read(undefined, ids.gone!)).status, 404, "a deleted record is not read, even by an admin");
  for (const bad of ["0", "-1", "1.5", "abc", "1e3", "99999999999999999999"]) {
    const reply = await read(undefined, bad);
    assert.equal(reply.status, 404, `${bad}: ${reply.text}`);
    assert.deepEqual(keysOf(reply.json), ["error"]);
  }
  const stranger = await read(users.Eve!.token, ids.dublin!);
  assert.equal(stranger.status, 401, stranger.text);
  assert.deepEqual(keysOf(stranger.json), ["error"]);
  assert.equal((await read(users.Eve!.token, ids.dublin!, "no-such-bloc")).status, 401, "an unknown bloc reads as one without access");
  assert.equal((await read("not-a-token", ids.dublin!)).status, 401);
  const client = new BlocClient({ url: server.url, token: users.Ann!.token });
  await assert.rejects(client.record(bloc, ids.cork!), (error: unknown) => error instanceof BlocApiError && error.status === 404);
  client.close();
});

import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import type { Reply } from "./support/http.js";
import { addRecord, startServer, type TestServer } from "./support/server.js";
import { allRows } from "./support/recount.js";

/**
 * Record history: each update keeps who made it, when, through which token and what it
 * changed, from what to what, in the update's transaction; the admin API lists it oldest
 * first. Values set to what they were are not changes; an update that changes nothing
 * in a record adds nothing to its history.
 */

let server: TestServer;
let blocId: string;
let writer: { id: string; token: string; tokenId: string };

const TIMESTAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

function update(token: string, fieldsToUpdate: Record<string, unknown>, searchItems: Record<string, unknown>): Promise<Reply> {
  return server.call("POST", "/api/update-records-by-matching-values", { token, json: { blocId, fieldsToUpdate, searchItems } });
}

async function history(recordId: number | string, bloc = blocId, token?: string): Promise<Reply> {
  return server.call("GET", `/api/admin/blocs/${encodeURIComponent(bloc)}/records/${recordId}/history`, token === undefined ? {} : { token });
}

before(async () => {
  server = await startServer();
  const bloc = await server.call("POST", "/api/admin/blocs", {
    json: { name: "Audited", fields: [{ name: "Part" }, { name: "Line" }, { name: "Serial", unique: true }] },
  });
  assert.equal(bloc.status, 201, bloc.text);
  blocId = bloc.json.id as string;
  const user = await server.call("POST", "/api/admin/users", { json: { name: "writer", role: "member" } });
  const token = await server.call("POST", `/api/admin/users/${user.json.id}/tokens`, { json: { name: "writer's scanner" } });
  await server.call("PUT", `/api/admin/blocs/${blocId}/access/${user.json.id}`, { json: { read: true, add: true, update: true } });
  writer = { id: user.json.id as string, token: token.json.token as string, tokenId: token.json.id as string };
});

after(async () => {
  await server.close();
});

test("an update keeps who, when, through which token, and each changed value from what to what", async () => {
  const id = await addRecord(server, blocId, { field_1: "P-1", field_2: "L1" }, writer.token);
  assert.deepEqual((await history(id)).json, { history: [] }, "a new record has no history");
  // field_2 is set to what it holds: not a change. field_3 was never set: it changes from "".
  const updated = await update(writer.token, { field_1: "P-1b", field_2: "L1", field_3: "S-1", submitted_status: 0 }, { field_1: "P-1" });
  assert.equal(updated.status, 200, updated.text);
  const reply = await history(id);
  assert.equal(reply.status, 200, reply.text);
  assert.equal(reply.json.history.length, 1);
  const [entry] = reply.json.history;
  assert.match(entry.at, TIMESTAMP);
  assert.deepEqual({ ...entry, at: "" }, {
    action: "updated", at: "", userId: writer.id, tokenId: writer.tokenId,
    changes: { field_1: { from: "P-1", to: "P-1b" }, field_3: { from: "", to: "S-1" }, submitted_status: { from: "1", to: "0" } },
  });
});

test("history lists every update oldest first, each by whoever made it", async () => {
  const id = await addRecord(server, blocId, { field_1: "P-2", field_2: "A" }, writer.token);
  assert.equal((await update(writer.token, { field_2: "B" }, { field_1: "P-2" })).status, 200);
  assert.equal((await update(server.adminToken, { field_2: "C" }, { field_1: "P-2" })).status, 200);
  assert.equal((await update(writer.token, { field_2: "A" }, { field_1: "P-2" })).status, 200);
  const { history: entries } = (await history(id)).json;
  assert.deepEqual(entries.map((e: { changes: unknown }) => e.changes), [
    { field_2: { from: "A", to: "B" } }, { field_2: { from: "B", to: "C" } }, { field_2: { from: "C", to: "A" } },
  ]);
  const admin = (await server.call("GET", "/api/me")).json;
  assert.deepEqual(entries.map((e: { userId: string }) => e.userId), [writer.id, admin.user.id, writer.id]);
  const times = entries.map((e: { at: string }) => e.at);
  assert.deepEqual([...times].sort(), times, "oldest first");
});

test("an update that changes nothing writes no history; one that matches several records writes one entry each", async () => {
  const a = await addRecord(server, blocId, { field_1: "P-3", field_2: "same" }, writer.token);
  const b = await addRecord(server, blocId, { field_1: "P-3", field_2: "other" }, writer.token);
  const rowsBefore = (await allRows(server.ctx.store, "record_history")).length;
  const unchanged = await update(writer.token, { field_2: "same" }, { field_2: "same" });
  assert.deepEqual(unchanged.json, { updated_record_ids: [a] }, "the record matched");
  assert.equal((await allRows(server.ctx.store, "record_history")).length, rowsBefore, "and nothing was written");
  assert.deepEqual((await history(a)).json.history, []);
  const both = await update(writer.token, { field_2: "same" }, { field_1: "P-3" });
  assert.deepEqual(both.json, { updated_record_ids: [a, b] });
  assert.deepEqual((await history(a)).json.history, [], "a already held the value");
  assert.deepEqual((await history(b)).json.history.map((e: { changes: unknown }) => e.changes), [{ field_2: { from: "other", to: "same" } }]);
});

test("a refused update writes no history: history commits with the change or not at all", async () => {
  await addRecord(server, blocId, { field_1: "P-4", field_3: "S-taken" }, writer.token);
  const id = await addRecord(server, blocId, { field_1: "P-5" }, writer.token);
  const rowsBefore = await allRows(server.ctx.store, "record_history");
  const refused = await update(writer.token, { field_2: "changed", field_3: "S-taken" }, { field_1: "P-5" });
  assert.equal(refused.status, 400, refused.text);
  assert.deepEqual(await allRows(server.ctx.store, "record_history"), rowsBefore);
  assert.deepEqual((await history(id)).json.history, []);
});

test("the history endpoint is for admins; an unknown bloc or record is 404 JSON", async () => {
  const id = await addRecord(server, blocId, { field_1: "P-6" }, writer.token);
  const denied = await history(id, blocId, writer.token);
  assert.equal(denied.status, 403);
  assert.deepEqual(Object.keys(denied.json), ["error"]);
  const other = await server.call("POST", "/api/admin/blocs", { json: { name: "Elsewhere", fields: [{ name: "Part" }] } });
  for (const [bloc, record, what] of [
    ["no-such-bloc", String(id), /Bloc "no-such-bloc" does not exist/],
    [blocId, "999999", /Record "999999" does not exist/],
    [blocId, "abc", /Record "abc" does not exist/],
    [blocId, "0", /Record "0" does not exist/],
    [blocId, "99999999999999999999", /does not exist/],
    [other.json.id as string, String(id), /does not exist in bloc/],
  ] as const) {
    const reply = await history(record, bloc);
    assert.equal(reply.status, 404, `${bloc}/${record}: ${reply.text}`);
    assert.match(reply.json.error, what);
  }
});

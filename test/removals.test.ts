import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { backupStore, restoreStore } from "../src/cli/backup.js";
import { openStoreAt } from "../src/cli/copy.js";
import { FileBlobs } from "../src/store/file-blobs.js";
import { TABLES, type Row, type TableName } from "../src/domain/ports/store.js";
import { addMember, addRecord, startServer, type TestServer } from "./support/server.js";
import { freshDatabaseUrl, testEngine } from "./support/database.js";
import { keysOf, storedRecords } from "./support/fixtures.js";
import { allRows, assertCountersEqualRecount } from "./support/recount.js";
import { postMultipart } from "./support/upload.js";

/**
 * Configuration that can be undone (issue 21): retiring a field, deleting a bloc (its
 * records only when asked), a role, a module; the access listing; none of it open to a
 * non-admin; a backup after removals restores.
 */

let server: TestServer;

before(async () => {
  server = await startServer();
});

after(async () => {
  await server.close();
});

async function createBloc(body: Record<string, unknown>): Promise<string> {
  const reply = await server.call("POST", "/api/admin/blocs", { json: body });
  assert.equal(reply.status, 201, reply.text);
  return reply.json.id as string;
}

function add(blocId: string, values: Record<string, unknown>, token = server.adminToken) {
  return server.call("POST", "/api/add-data", { token, json: { scanStationID: blocId, dataToAdd: JSON.stringify(values) } });
}

function update(blocId: string, fieldsToUpdate: Record<string, unknown>, searchItems: Record<string, unknown>) {
  return server.call("POST", "/api/update-records-by-matching-values", { json: { blocId, fieldsToUpdate, searchItems } });
}

/** Rows of a table that belong to a bloc (by its bloc_id, or its counter scopes' IDs for value_counts). */
async function rowsOf(table: TableName, blocId: string): Promise<Row[]> {
  const rows = await allRows(server.ctx.store, table);
  if (table === "value_counts") {
    const scopes = new Set((await allRows(server.ctx.store, "counter_scopes")).filter((r) => r.bloc_id === blocId).map((r) => r.id));
    return rows.filter((r) => scopes.has(r.scope_id));
  }
  if (table === "blocs") return rows.filter((r) => r.id === blocId);
  return rows.filter((r) => r.bloc_id === blocId);
}

test("a retired field is refused by add-data and update-records, shown nowhere, its values kept in records and history", async () => {
  const blocId = await createBloc({ name: "Retire", fields: [{ name: "Part" }, { name: "Colour" }, { name: "Qty", type: "number" }] });
  const id = await addRecord(server, blocId, { field_1: "P-1", field_2: "red", field_3: "3" });
  await addRecord(server, blocId, { field_1: "P-2", field_2: "red", field_3: "4" });
  assert.equal((await update(blocId, { field_2: "blue" }, { field_1: "P-1" })).status, 200);

  const retired = await server.call("DELETE", `/api/admin/blocs/${blocId}/fields/field_2`);
  assert.equal(retired.status, 204, retired.text);
  assert.equal(retired.text, "");

  const refused = await add(blocId, { field_1: "P-3", field_2: "green" });
  assert.equal(refused.status, 400, refused.text);
  assert.match(refused.json.error, /field_2/);
  const updateRefused = await update(blocId, { field_2: "green" }, { field_1: "P-1" });
  assert.equal(updateRefused.status, 400, updateRefused.text);
  const searchRefused = await update(blocId, { field_1: "P-1x" }, { field_2: "blue" });
  assert.equal(searchRefused.status, 400, searchRefused.text);
  assert.equal((await storedRecords(server, blocId)).length, 2, "nothing was added");
  assert.equal((await add(blocId, { field_1: "P-3" })).status, 200, "the other fields are accepted as before");

  const bloc = await server.call("GET", `/api/admin/blocs/${blocId}`);
  assert.deepEqual(bloc.json.fields.map((f: { slug: string }) => f.slug), ["field_1", "field_3"]);
  const data = await server.call("POST", "/api/get-data", { json: { blocId } });
  assert.equal(data.status, 200, data.text);
  assert.deepEqual(data.json.data.fieldNames, { field_1: "Part", field_3: "Qty" });
  assert.equal(data.json.data.count, 3);
  for (const i of ["0", "1", "2"]) assert.ok(!("field_2" in data.json.data[i]), "get-data shows no retired value");
  assert.ok(!("field_2" in data.json.data.fieldCounts), "nor counts it");
  const report = await server.call("POST", "/api/get-data-report", { json: { stationID: blocId, fieldsToReport: ["field_2"] } });
  assert.equal(report.status, 400, report.text);

  const history = await server.call("GET", `/api/admin/blocs/${blocId}/records/${id}/history`);
  assert.deepEqual(history.json.history[0].changes, { field_2: { from: "red", to: "blue" } }, "the history still names it");
  const stored = (await storedRecords(server, blocId)).find((r) => r.id === id);
  assert.equal(stored?.values.field_2, "blue", "the record keeps its value");

  // The slug is never given again: neither asked for nor chosen.
  const taken = await server.call("POST", `/api/admin/blocs/${blocId}/fields`, { json: { name: "Again", slug: "field_2" } });
  assert.equal(taken.status, 409, taken.text);
  const next = await server.call("POST", `/api/admin/blocs/${blocId}/fields`, { json: { name: "New" } });
  assert.equal(next.status, 201, next.text);
  assert.notEqual(next.json.slug, "field_2");

  const changes = (await rowsOf("events", blocId)).map((e) => [e.type, JSON.parse(String(e.data)).change?.kind, JSON.parse(String(e.data)).change?.slug]);
  assert.deepEqual(changes.filter(([, kind]) => kind === "field.retired"), [["bloc.updated", "field.retired", "field_2"]], "webhooks and streams are told");
  assert.equal((await server.call("DELETE", `/api/admin/blocs/${blocId}/fields/field_2`)).status, 404, "retired already");
  assert.equal((await server.call("DELETE", `/api/admin/blocs/${blocId}/fields/field_9`)).status, 404);
  await assertCountersEqualRecount(server.ctx.store);
});

test("a field that filters by profile, or that an autogenerate format counts by, is not retired (409)", async () => {
  const blocId = await createBloc({
    name: "Guarded",
    fields: [{ name: "Site", applyProfileFilter: true }, { name: "Line" }, { name: "Ticket", type: "autogenerate", format: "T-{seq:3 by field_2}" }],
  });
  const profile = await server.call("DELETE", `/api/admin/blocs/${blocId}/fields/field_1`);
  assert.equal(profile.status, 409, profile.text);
  assert.match(profile.json.error, /applyProfileFilter/);
  const counted = await server.call("DELETE", `/api/admin/blocs/${blocId}/fields/field_2`);
  assert.equal(counted.status, 409, counted.text);
  assert.match(counted.json.error, /field_3/);
  const bloc = await server.call("GET", `/api/admin/blocs/${blocId}`);
  assert.equal(bloc.json.fields.length, 3, "nothing was retired");
});

test("a bloc that holds records is deleted only with withRecords=true, taking everything of its own and nothing else", async () => {
  const doomed = await createBloc({ name: "Doomed", fields: [{ name: "Tag" }, { name: "Photo", type: "file" }] });
  const kept = await createBloc({ name: "Kept", fields: [{ name: "Tag" }, { name: "Photo", type: "file" }] });
  const member = await addMember(server, { blocId: doomed, read: true, add: true, update: true });
  await server.call("PUT", `/api/admin/blocs/${kept}/access/${member.id}`, { json: { read: true } });
  await server.call("PUT", `/api/admin/blocs/${doomed}/restrictions/${member.id}`, { json: { mode: "own" } });
  const role = await server.call("POST", "/api/admin/roles", { json: { name: "doomed-readers" } });
  await server.call("PUT", `/api/admin/blocs/${doomed}/access/roles/${role.json.id}`, { json: { read: true } });
  for (let i = 0; i < 12; i += 1) {
    await addRecord(server, doomed, { field_1: `T-${i % 3}` }, member.token);
    await addRecord(server, kept, { field_1: `T-${i % 3}` });
  }
  const keyed = await server.call("POST", "/api/add-data", {
    token: member.token, headers: { "idempotency-key": "doomed-1" }, json: { scanStationID: doomed, dataToAdd: JSON.stringify({ field_1: "K" }) },
  });
  assert.equal(keyed.status, 200, keyed.text);
  assert.equal((await update(doomed, { field_1: "T-9" }, { field_1: "T-0" })).status, 200);
  // Two files: one only the doomed bloc holds, one both blocs hold.
  const own = crypto.randomBytes(64);
  const shared = crypto.randomBytes(64);
  for (const [bloc, content] of [[doomed, own], [doomed, shared], [kept, shared]] as const) {
    const reply = await postMultipart(server.url, server.adminToken, { scanStationID: bloc, dataToAdd: JSON.stringify({ field_1: "F" }) },
      [{ slug: "field_2", content, filename: "f.bin" }]);
    assert.equal(reply.status, 200, reply.text);
  }
  const contentPath = (content: Buffer): string => {
    const sha = crypto.createHash("sha256").update(content).digest("hex");
    return path.join(server.dir, "files", sha.slice(0, 2), sha);
  };
  assert.ok(fs.existsSync(contentPath(own)) && fs.existsSync(contentPath(shared)));

  // Deleted (restorable) records go with the bloc too; the refusal counts the live ones.
  const removed = await server.call("POST", "/api/delete-records-by-matching-values", {
    json: { blocId: doomed, searchItems: JSON.stringify({ field_1: "T-1" }) },
  });
  assert.equal(removed.status, 200, removed.text);
  assert.equal(removed.json.deleted_record_ids.length, 4);
  assert.equal((await rowsOf("deleted_records", doomed)).length, 4);

  const tables: TableName[] = ["records", "deleted_records", "files", "record_history", "counter_scopes", "value_counts", "events", "event_sequences",
    "grants", "role_grants", "restrictions", "fields", "blocs"];
  const keptBefore = Object.fromEntries(await Promise.all(tables.map(async (t) => [t, await rowsOf(t, kept)] as const)));
  const allBefore = Object.fromEntries(await Promise.all(TABLES.map(async (t) => [t, (await allRows(server.ctx.store, t)).length] as const)));

  const refused = await server.call("DELETE", `/api/admin/blocs/${doomed}`);
  assert.equal(refused.status, 409, refused.text);
  assert.deepEqual(keysOf(refused.json), ["error"]);
  assert.match(refused.json.error, /holds 11 records/);
  assert.match(refused.json.error, /withRecords=true/);
  const notTrue = await server.call("DELETE", `/api/admin/blocs/${doomed}?withRecords=false`);
  assert.equal(notTrue.status, 409, notTrue.text);
  for (const table of TABLES) {
    assert.equal((await allRows(server.ctx.store, table)).length, allBefore[table], `a refused deletion changes no row of ${table}`);
  }

  const deleted = await server.call("DELETE", `/api/admin/blocs/${doomed}?withRecords=true`);
  assert.equal(deleted.status, 204, deleted.text);
  for (const table of [...tables, "sequences", "webhook_lanes", "webhook_deliveries"] as TableName[]) {
    assert.deepEqual(await rowsOf(table, doomed), [], `no row of ${table} is left`);
  }
  assert.deepEqual((await allRows(server.ctx.store, "idempotency_keys")).length, (allBefore.idempotency_keys ?? 0) - 1, "its idempotency entry went");
  assert.equal(fs.existsSync(contentPath(own)), false, "content only the bloc used is removed");
  assert.equal(fs.existsSync(contentPath(shared)), true, "content another bloc uses stays");
  for (const table of tables) assert.deepEqual(await rowsOf(table, kept), keptBefore[table], `the other bloc's ${table} are untouched`);
  await assertCountersEqualRecount(server.ctx.store);

  const asMember = await server.call("POST", "/api/get-data", { token: member.token, json: { blocId: doomed } });
  assert.equal(asMember.status, 401, "to a member a deleted bloc is one they may not use");
  assert.equal((await server.call("GET", `/api/admin/blocs/${doomed}`)).status, 404);
  assert.equal((await server.call("DELETE", `/api/admin/blocs/${doomed}`)).status, 404);
  const keptData = await server.call("POST", "/api/get-data", { token: member.token, json: { blocId: kept } });
  assert.equal(keptData.status, 200, keptData.text);
  assert.equal(keptData.json.data.count, 13);

  // The ID may be used again, for a bloc that starts empty.
  const again = await server.call("POST", "/api/admin/blocs", { json: { id: doomed, name: "Reborn", fields: [{ name: "Tag" }] } });
  assert.equal(again.status, 201, again.text);
  assert.equal((await server.call("POST", "/api/get-data", { json: { blocId: doomed } })).json.data.count, 0);
  const empty = await server.call("DELETE", `/api/admin/blocs/${doomed}`);
  assert.equal(empty.status, 204, "a bloc without records needs no withRecords");
});

test("deleting a role takes its grants' effect away at once", async () => {
  const blocId = await createBloc({ name: "Role-held", fields: [{ name: "Tag" }] });
  const member = await addMember(server);
  const role = await server.call("POST", "/api/admin/roles", { json: { name: "temporary" } });
  const roleId = role.json.id as string;
  await server.call("PUT", `/api/admin/users/${member.id}/roles/${roleId}`);
  await server.call("PUT", `/api/admin/blocs/${blocId}/access/roles/${roleId}`, { json: { read: true, add: true } });
  assert.equal((await add(blocId, { field_1: "x" }, member.token)).status, 200);

  const deleted = await server.call("DELETE", `/api/admin/roles/${roleId}`);
  assert.equal(deleted.status, 204, deleted.text);
  const told = (await rowsOf("events", blocId)).map((e) => JSON.parse(String(e.data)).change).filter((c) => c?.kind === "role.deleted");
  assert.deepEqual(told, [{ kind: "role.deleted", roleId }], "the bloc's access.updated event names the role");
  assert.equal((await add(blocId, { field_1: "y" }, member.token)).status, 403);
  assert.equal((await server.call("POST", "/api/get-data", { token: member.token, json: { blocId } })).status, 401);
  const roles = await server.call("GET", "/api/admin/roles");
  assert.ok(!roles.json.roles.some((r: { id: string }) => r.id === roleId));
  const user = await server.call("GET", `/api/admin/users/${member.id}`);
  assert.deepEqual(user.json.roles, []);
  assert.deepEqual((await server.call("GET", `/api/admin/blocs/${blocId}/access`)).json.roleGrants, []);
  assert.equal((await server.call("DELETE", `/api/admin/roles/${roleId}`)).status, 404);
  // A role of the same name can be made again.
  assert.equal((await server.call("POST", "/api/admin/roles", { json: { name: "temporary" } })).status, 201);
});

test("a module is deleted only once no bloc belongs to it", async () => {
  const mod = await server.call("POST", "/api/admin/modules", { json: { name: "Line 9" } });
  const moduleId = mod.json.id as string;
  const blocId = await createBloc({ name: "In module", moduleId, fields: [{ name: "Tag" }] });
  const refused = await server.call("DELETE", `/api/admin/modules/${moduleId}`);
  assert.equal(refused.status, 409, refused.text);
  assert.match(refused.json.error, new RegExp(`"${blocId}"`));
  assert.ok((await server.call("GET", "/api/admin/modules")).json.modules.some((m: { id: string }) => m.id === moduleId));
  assert.equal((await server.call("PATCH", `/api/admin/blocs/${blocId}`, { json: { moduleId: null } })).status, 200);
  const deleted = await server.call("DELETE", `/api/admin/modules/${moduleId}`);
  assert.equal(deleted.status, 204, deleted.text);
  assert.ok(!(await server.call("GET", "/api/admin/modules")).json.modules.some((m: { id: string }) => m.id === moduleId));
  assert.equal((await server.call("DELETE", `/api/admin/modules/${moduleId}`)).status, 404);
});

test("the access listing names every grant, role grant and restriction on a bloc", async () => {
  const blocId = await createBloc({ name: "Listed", fields: [{ name: "Tag" }] });
  const user = await server.call("POST", "/api/admin/users", { json: { name: "Ann", role: "member" } });
  const userId = user.json.id as string;
  const role = await server.call("POST", "/api/admin/roles", { json: { name: "auditors" } });
  const roleId = role.json.id as string;
  assert.deepEqual((await server.call("GET", `/api/admin/blocs/${blocId}/access`)).json, { grants: [], roleGrants: [], restrictions: [] });
  await server.call("PUT", `/api/admin/blocs/${blocId}/access/${userId}`, { json: { read: true, add: true } });
  await server.call("PUT", `/api/admin/blocs/${blocId}/access/roles/${roleId}`, { json: { read: true, seeHidden: true } });
  await server.call("PUT", `/api/admin/blocs/${blocId}/restrictions/${userId}`, { json: { mode: "own" } });
  const reply = await server.call("GET", `/api/admin/blocs/${blocId}/access`);
  assert.equal(reply.status, 200, reply.text);
  assert.equal(reply.json.grants.length, 1);
  assert.deepEqual({ ...reply.json.grants[0] }, { userId, userName: "Ann", read: true, add: true, update: false, seeHidden: false,
    ...Object.fromEntries(Object.keys(reply.json.grants[0]).filter((k) => !["userId", "userName", "read", "add", "update", "seeHidden"].includes(k)).map((k) => [k, false])) });
  assert.equal(reply.json.roleGrants[0].roleId, roleId);
  assert.equal(reply.json.roleGrants[0].roleName, "auditors");
  assert.equal(reply.json.roleGrants[0].seeHidden, true);
  assert.deepEqual(reply.json.restrictions, [{ userId, userName: "Ann", mode: "own" }]);
  assert.equal((await server.call("GET", "/api/admin/blocs/no-such-bloc/access")).status, 404);
});

test("a non-admin may remove nothing and list no access (403), and nothing changes", async () => {
  const blocId = await createBloc({ name: "Guarded", fields: [{ name: "Tag" }] });
  const member = await addMember(server, { blocId, read: true, add: true, update: true });
  const role = await server.call("POST", "/api/admin/roles", { json: { name: "kept-role" } });
  const mod = await server.call("POST", "/api/admin/modules", { json: { name: "kept-module" } });
  for (const [method, url] of [
    ["DELETE", `/api/admin/blocs/${blocId}?withRecords=true`], ["DELETE", `/api/admin/blocs/${blocId}/fields/field_1`],
    ["DELETE", `/api/admin/roles/${role.json.id}`], ["DELETE", `/api/admin/modules/${mod.json.id}`], ["GET", `/api/admin/blocs/${blocId}/access`],
  ] as const) {
    const reply = await server.call(method, url, { token: member.token });
    assert.equal(reply.status, 403, `${method} ${url}: ${reply.text}`);
    assert.deepEqual(keysOf(reply.json), ["error"]);
  }
  assert.equal((await server.call("GET", `/api/admin/blocs/${blocId}`)).json.fields.length, 1);
  assert.ok((await server.call("GET", "/api/admin/roles")).json.roles.some((r: { id: string }) => r.id === role.json.id));
  assert.ok((await server.call("GET", "/api/admin/modules")).json.modules.some((m: { id: string }) => m.id === mod.json.id));
});

test("a backup taken after removals restores: retired fields stay retired, deleted things stay gone", async () => {
  const blocId = await createBloc({ name: "Backed up", fields: [{ name: "A" }, { name: "B" }] });
  for (let i = 0; i < 10; i += 1) await addRecord(server, blocId, { field_1: `a${i % 2}`, field_2: `b${i % 3}` });
  assert.equal((await server.call("DELETE", `/api/admin/blocs/${blocId}/fields/field_2`)).status, 204);
  const file = path.join(server.dir, "after-removals.backup");
  await backupStore(server.ctx.store, testEngine(), server.ctx.blobs, path.join(server.dir, "files"), file, true);
  const target = await freshDatabaseUrl(path.join(server.dir, "restored"), "removals-restored");
  fs.mkdirSync(path.join(server.dir, "restored"), { recursive: true });
  const restored = await openStoreAt(target.url);
  try {
    await restoreStore(restored, new FileBlobs(path.join(server.dir, "restored", "files")), file);
    for (const table of TABLES) {
      if (table === "counter_scopes" || table === "value_counts") continue;
      assert.deepEqual(await allRows(restored, table), await allRows(server.ctx.store, table), `${table} restored as it was`);
    }
    assert.deepEqual((await restored.blocs.findBloc(blocId))?.fields.map((f) => f.slug), ["field_1"]);
    assert.deepEqual(await restored.blocs.retiredFieldSlugs(blocId), ["field_2"]);
    await assertCountersEqualRecount(restored);
  } finally {
    await restored.close();
    await target.drop();
  }
});

test("rows of a backup made before fields could be retired (no retired_at) restore as fields in use", async () => {
  const blocId = await createBloc({ name: "Older", fields: [{ name: "A" }, { name: "B" }] });
  const old = (rows: Row[]): Row[] => rows.map(({ retired_at: _dropped, ...row }) => row);
  const target = await freshDatabaseUrl(path.join(server.dir, "older"), "removals-older");
  fs.mkdirSync(path.join(server.dir, "older"), { recursive: true });
  const restored = await openStoreAt(target.url);
  try {
    await restored.maintenance.importRows("blocs", (await allRows(server.ctx.store, "blocs")).filter((r) => r.id === blocId));
    const fields = old((await allRows(server.ctx.store, "fields")).filter((r) => r.bloc_id === blocId));
    assert.ok(fields.every((row) => !("retired_at" in row)));
    await restored.maintenance.importRows("fields", fields);
    assert.deepEqual((await restored.blocs.findBloc(blocId))?.fields.map((f) => f.slug), ["field_1", "field_2"]);
    assert.deepEqual(await restored.blocs.retiredFieldSlugs(blocId), []);
  } finally {
    await restored.close();
    await target.drop();
  }
});

import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import crypto from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { call, type Reply } from "./support/http.js";
import { addBloc, addMember, startServer, type Member, type TestServer } from "./support/server.js";
import { keysOf } from "./support/fixtures.js";
import { TABLES } from "../src/domain/ports/store.js";

/** A field as the admin API shows one created with only a name (and maybe a slug). */
function textField(slug: string, name: string): Record<string, unknown> {
  return { slug, name, applyProfileFilter: false, type: "text", options: null, required: false, unique: false, maxLength: null, pattern: null, format: null, indexed: false };
}

const DEFAULT_SETTINGS = {
  openToAllUsers: false, acceptingData: true, restriction: "none", moduleId: null, requireJob: false, scanLimit: null, scanLimitPeriod: null,
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let server: TestServer;
let member: Member;

before(async () => {
  server = await startServer();
  member = await addMember(server);
});

after(async () => {
  await server.close();
});

function assertError(reply: Reply, status: number): void {
  assert.equal(reply.status, status, reply.text);
  assert.deepEqual(keysOf(reply.json), ["error"]);
  assert.equal(typeof reply.json.error, "string");
  assert.notEqual(reply.json.error, "");
}

/**
 * What the service keeps, as bytes: every file of the data folder (a SQLite database and
 * its WAL), and every row of every table as the store exports it (a server's tables).
 */
async function storedBytes(server: TestServer): Promise<Buffer> {
  const entries = await fs.readdir(server.dir, { withFileTypes: true, recursive: true });
  const files = entries.filter((e) => e.isFile()).map((e) => path.join(e.parentPath ?? e.path, e.name));
  const parts = await Promise.all(files.map((file) => fs.readFile(file)));
  for (const table of TABLES) parts.push(Buffer.from(JSON.stringify(await server.ctx.store.maintenance.exportRows(table, undefined, 100_000))));
  return Buffer.concat(parts);
}

describe("admin API: users", () => {
  test("POST /api/admin/users → 201 {id, name, role} with a string id", async () => {
    for (const role of ["member", "admin"] as const) {
      const reply = await server.call("POST", "/api/admin/users", { json: { name: `Someone ${role}`, role } });
      assert.equal(reply.status, 201, reply.text);
      assert.deepEqual(keysOf(reply.json), ["disabled", "email", "id", "name", "profile", "role"]);
      assert.equal(typeof reply.json.id, "string");
      assert.notEqual(reply.json.id, "");
      assert.equal(reply.json.name, `Someone ${role}`);
      assert.equal(reply.json.role, role);
    }
  });

  test("user IDs are distinct", async () => {
    const a = await server.call("POST", "/api/admin/users", { json: { name: "A", role: "member" } });
    const b = await server.call("POST", "/api/admin/users", { json: { name: "B", role: "member" } });
    assert.notEqual(a.json.id, b.json.id);
  });

  test("the user's id is what records show as user_id", async () => {
    const blocId = await addBloc(server, "Who", ["X"]);
    const writer = await addMember(server, { blocId, add: true, read: true });
    const added = await server.call("POST", "/api/add-data", { json: { scanStationID: blocId, dataToAdd: { field_1: "v" } }, token: writer.token });
    assert.equal(added.status, 200, added.text);
    const read = await server.call("GET", "/api/get-data", { json: { blocId }, token: writer.token });
    assert.equal(read.json.data["0"].user_id, writer.id);
  });

  test("a new admin user's token may use the admin API", async () => {
    const admin = await server.call("POST", "/api/admin/users", { json: { name: "Second admin", role: "admin" } });
    const token = await server.call("POST", `/api/admin/users/${admin.json.id}/tokens`, { json: {} });
    assert.equal(token.status, 201, token.text);
    const reply = await server.call("GET", "/api/admin/blocs", { token: token.json.token });
    assert.equal(reply.status, 200, reply.text);
  });

  for (const [name, body] of [
    ["an unknown role", { name: "X", role: "owner" }],
    ["no name", { role: "member" }],
    ["an empty name", { name: "", role: "member" }],
    ["a blank name", { name: "   ", role: "member" }],
    ["a name that is not a string", { name: 5, role: "member" }],
  ] as const) {
    test(`a user with ${name} → 400 {error}`, async () => {
      assertError(await server.call("POST", "/api/admin/users", { json: body }), 400);
    });
  }

  test("a malformed JSON body → 400 {error}", async () => {
    const reply = await server.call("POST", "/api/admin/users", { body: "{\"name\":", headers: { "content-type": "application/json" } });
    assertError(reply, 400);
  });
});

describe("admin API: tokens", () => {
  let userId: string;

  before(async () => {
    userId = (await server.call("POST", "/api/admin/users", { json: { name: "Token owner", role: "member" } })).json.id;
  });

  test("POST /api/admin/users/:id/tokens → 201 {id, token} with a token of at least 43 characters", async () => {
    const reply = await server.call("POST", `/api/admin/users/${userId}/tokens`, { json: { name: "laptop" } });
    assert.equal(reply.status, 201, reply.text);
    assert.deepEqual(keysOf(reply.json), ["id", "token"]);
    assert.equal(typeof reply.json.id, "string");
    assert.equal(typeof reply.json.token, "string");
    assert.ok(reply.json.token.length >= 43, `token length ${reply.json.token.length}`);
    assert.doesNotMatch(reply.json.token, /\s/);
  });

  test("a body is optional, and every token is different", async () => {
    const a = await server.call("POST", `/api/admin/users/${userId}/tokens`);
    const b = await server.call("POST", `/api/admin/users/${userId}/tokens`, { json: {} });
    assert.equal(a.status, 201, a.text);
    assert.equal(b.status, 201, b.text);
    assert.notEqual(a.json.token, b.json.token);
    assert.notEqual(a.json.id, b.json.id);
  });

  test("a token authenticates its user", async () => {
    const blocId = await addBloc(server, "Token bloc", ["X"]);
    const added = await server.call("POST", "/api/add-data", { json: { scanStationID: blocId, dataToAdd: { field_1: "by the admin" } } });
    assert.equal(added.status, 200, added.text);
    const granted = await server.call("PUT", `/api/admin/blocs/${blocId}/access/${userId}`, { json: { read: true } });
    assert.equal(granted.status, 200, granted.text);
    const issued = await server.call("POST", `/api/admin/users/${userId}/tokens`, { json: {} });
    assert.equal(issued.status, 201, issued.text);
    const token: string = issued.json.token;

    const me = await server.call("GET", "/api/me", { token });
    assert.equal(me.status, 200, me.text);
    assert.equal(me.json.user.id, userId, "the token signs in the user it was issued to");
    assert.equal(me.json.user.name, "Token owner");
    const reply = await server.call("GET", "/api/get-data", { json: { blocId }, token });
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.json.data.count, 1, "the user reads the bloc their grant opens");
    assert.equal(reply.json.data["0"].field_1, "by the admin");
    const forged = await server.call("GET", "/api/get-data", { json: { blocId }, token: token.slice(0, -1) + (token.endsWith("A") ? "B" : "A") });
    assert.equal(forged.status, 401, "a token one character off authenticates nobody");
  });

  test("a token with a future expiresAt works; a past expiresAt is refused with 400 {error} (test/token-expiry.test.ts: expiry itself)", async () => {
    const blocId = await addBloc(server, "Expiry bloc", ["X"]);
    await server.call("PUT", `/api/admin/blocs/${blocId}/access/${userId}`, { json: { read: true } });
    const future = await server.call("POST", `/api/admin/users/${userId}/tokens`, { json: { expiresAt: "2999-12-31 23:59:59" } });
    assert.equal(future.status, 201, future.text);
    assert.equal((await server.call("GET", "/api/get-data", { json: { blocId }, token: future.json.token })).status, 200);
    const past = await server.call("POST", `/api/admin/users/${userId}/tokens`, { json: { expiresAt: "2001-01-01 00:00:00" } });
    assertError(past, 400);
    assert.match(past.json.error, /expiresAt 2001-01-01 00:00:00 is not in the future/);
  });

  test("an expiresAt that is not a timestamp → 400 {error}", async () => {
    for (const expiresAt of ["tomorrow", "2026-02-30 00:00:00"]) {
      assertError(await server.call("POST", `/api/admin/users/${userId}/tokens`, { json: { expiresAt } }), 400);
    }
  });

  test("a token for an unknown user → 404 {error}", async () => {
    assertError(await server.call("POST", "/api/admin/users/999999/tokens", { json: {} }), 404);
    assertError(await server.call("POST", "/api/admin/users/not-a-user/tokens", { json: {} }), 404);
  });

  test("tokens are stored only as their SHA-256 hash: no secret appears in what the service keeps", async () => {
    const issued = await server.call("POST", `/api/admin/users/${userId}/tokens`, { json: { name: "scan me" } });
    assert.equal(issued.status, 201, issued.text);
    const secret: string = issued.json.token;
    const bytes = await storedBytes(server);
    assert.equal(bytes.includes(secret), false, "the new token's text is in the data folder");
    assert.equal(bytes.includes(server.adminToken), false, "BLOC_ADMIN_TOKEN's text is in the data folder");
    const hash = crypto.createHash("sha256").update(secret, "utf8").digest("hex");
    assert.equal(bytes.includes(hash), true, "the token's SHA-256 hash is what is stored");
  });

  test("DELETE /api/admin/tokens/:id → 204, and the token is refused from the next request on", async () => {
    const issued = await server.call("POST", `/api/admin/users/${userId}/tokens`, { json: {} });
    const blocId = await addBloc(server, "Revoke bloc", ["X"]);
    await server.call("PUT", `/api/admin/blocs/${blocId}/access/${userId}`, { json: { read: true } });
    assert.equal((await server.call("GET", "/api/get-data", { json: { blocId }, token: issued.json.token })).status, 200);
    const removed = await server.call("DELETE", `/api/admin/tokens/${issued.json.id}`);
    assert.equal(removed.status, 204, removed.text);
    assert.equal(removed.body.length, 0);
    assertError(await server.call("GET", "/api/get-data", { json: { blocId }, token: issued.json.token }), 401);
  });

  test("revoking one token leaves the user's other tokens working", async () => {
    const blocId = await addBloc(server, "Two tokens", ["X"]);
    await server.call("PUT", `/api/admin/blocs/${blocId}/access/${userId}`, { json: { read: true } });
    const first = await server.call("POST", `/api/admin/users/${userId}/tokens`, { json: {} });
    const second = await server.call("POST", `/api/admin/users/${userId}/tokens`, { json: {} });
    assert.equal((await server.call("DELETE", `/api/admin/tokens/${first.json.id}`)).status, 204);
    assert.equal((await server.call("GET", "/api/get-data", { json: { blocId }, token: second.json.token })).status, 200);
  });

  test("DELETE of an unknown token → 404 {error}", async () => {
    assertError(await server.call("DELETE", `/api/admin/tokens/${crypto.randomUUID()}`), 404);
  });
});

describe("admin API: blocs and fields", () => {
  test("POST /api/admin/blocs → 201 {id, name, fields} with default slugs field_1, field_2, … and a UUID id", async () => {
    const reply = await server.call("POST", "/api/admin/blocs", {
      json: { name: "Inspections", fields: [{ name: "Site" }, { name: "Inspector" }, { name: "Result" }] },
    });
    assert.equal(reply.status, 201, reply.text);
    assert.deepEqual(keysOf(reply.json), ["acceptingData", "fields", "id", "moduleId", "name", "openToAllUsers", "requireJob", "restriction", "scanLimit", "scanLimitPeriod"]);
    assert.match(reply.json.id, UUID);
    assert.equal(reply.json.name, "Inspections");
    assert.deepEqual(reply.json.fields, [
      textField("field_1", "Site"), textField("field_2", "Inspector"), textField("field_3", "Result"),
    ]);
  });

  test("an explicit slug is kept", async () => {
    const reply = await server.call("POST", "/api/admin/blocs", {
      json: { name: "Contacts", fields: [{ name: "Email", slug: "email" }, { name: "Phone" }] },
    });
    assert.equal(reply.status, 201, reply.text);
    assert.equal(reply.json.fields[0].slug, "email");
    assert.equal(reply.json.fields[0].name, "Email");
    assert.match(reply.json.fields[1].slug, /^field_\d+$/);
    const added = await server.call("POST", "/api/add-data", { json: { scanStationID: reply.json.id, dataToAdd: { email: "a@b.c" } } });
    assert.equal(added.status, 200, added.text);
  });

  test("fields are optional", async () => {
    const reply = await server.call("POST", "/api/admin/blocs", { json: { name: "Bare" } });
    assert.equal(reply.status, 201, reply.text);
    assert.deepEqual(reply.json.fields, []);
  });

  test("an explicit id is used; a second bloc with that id → 409 {error}", async () => {
    const first = await server.call("POST", "/api/admin/blocs", { json: { name: "Named", id: "inv-2026", fields: [{ name: "A" }] } });
    assert.equal(first.status, 201, first.text);
    assert.equal(first.json.id, "inv-2026");
    const again = await server.call("POST", "/api/admin/blocs", { json: { name: "Clash", id: "inv-2026" } });
    assertError(again, 409);
    const shown = await server.call("GET", "/api/admin/blocs/inv-2026");
    assert.equal(shown.json.name, "Named", "the first bloc is untouched");
  });

  test("an id sent as a number is stored as its decimal string", async () => {
    const reply = await server.call("POST", "/api/admin/blocs", { json: { name: "Numbered", id: 31337 } });
    assert.equal(reply.status, 201, reply.text);
    assert.equal(reply.json.id, "31337");
    assert.equal((await server.call("GET", "/api/admin/blocs/31337")).status, 200);
  });

  for (const [name, body] of [
    ["no name", { fields: [] }],
    ["an empty name", { name: "" }],
    ["fields that are not a list", { name: "X", fields: "field_1" }],
    ["a field without a name", { name: "X", fields: [{ slug: "a" }] }],
    ["a slug with invalid characters", { name: "X", fields: [{ name: "A", slug: "has space" }] }],
    ["a slug starting with a digit", { name: "X", fields: [{ name: "A", slug: "1st" }] }],
    ["a slug reserved for a system value", { name: "X", fields: [{ name: "A", slug: "created_at" }] }],
    ["an id with invalid characters", { name: "X", id: "a/b" }],
    ["an unknown property", { name: "X", colour: "red" }],
  ] as const) {
    test(`a bloc with ${name} → 400 {error}`, async () => {
      const before = (await server.call("GET", "/api/admin/blocs")).json.blocs.length;
      assertError(await server.call("POST", "/api/admin/blocs", { json: body }), 400);
      assert.equal((await server.call("GET", "/api/admin/blocs")).json.blocs.length, before, "no bloc is created");
    });
  }

  test("a bloc with two fields of the same slug is refused and not created", async () => {
    const reply = await server.call("POST", "/api/admin/blocs", {
      json: { name: "Dup", id: "dup-slugs", fields: [{ name: "A", slug: "same" }, { name: "B", slug: "same" }] },
    });
    assert.ok(reply.status === 400 || reply.status === 409, reply.text);
    assert.deepEqual(keysOf(reply.json), ["error"]);
    assertError(await server.call("GET", "/api/admin/blocs/dup-slugs"), 404);
  });

  test("POST /api/admin/blocs/:id/fields → 201 adds a field with the next default slug, or the one asked for", async () => {
    const blocId = await addBloc(server, "Growing", ["One", "Two"]);
    const third = await server.call("POST", `/api/admin/blocs/${blocId}/fields`, { json: { name: "Three" } });
    assert.equal(third.status, 201, third.text);
    assert.deepEqual(third.json, textField("field_3", "Three"));
    const custom = await server.call("POST", `/api/admin/blocs/${blocId}/fields`, { json: { name: "Notes", slug: "notes" } });
    assert.equal(custom.status, 201, custom.text);
    assert.deepEqual(custom.json, textField("notes", "Notes"));
    const shown = await server.call("GET", `/api/admin/blocs/${blocId}`);
    assert.deepEqual(shown.json.fields, [
      textField("field_1", "One"), textField("field_2", "Two"),
      textField("field_3", "Three"), textField("notes", "Notes"),
    ]);
    const added = await server.call("POST", "/api/add-data", { json: { scanStationID: blocId, dataToAdd: { field_3: "c", notes: "n" } } });
    assert.equal(added.status, 200, added.text);
    const read = await server.call("GET", "/api/get-data", { json: { blocId } });
    assert.deepEqual(read.json.data.fieldNames, { field_1: "One", field_2: "Two", field_3: "Three", notes: "Notes" });
  });

  test("adding a field whose slug is taken → 409 {error}; a bad field → 400; an unknown bloc → 404", async () => {
    const blocId = await addBloc(server, "Taken", ["One"]);
    assertError(await server.call("POST", `/api/admin/blocs/${blocId}/fields`, { json: { name: "Again", slug: "field_1" } }), 409);
    assertError(await server.call("POST", `/api/admin/blocs/${blocId}/fields`, { json: { slug: "x" } }), 400);
    assertError(await server.call("POST", `/api/admin/blocs/${blocId}/fields`, { json: { name: "Bad", slug: "no-dash" } }), 400);
    assertError(await server.call("POST", "/api/admin/blocs/no-such-bloc/fields", { json: { name: "X" } }), 404);
    const shown = await server.call("GET", `/api/admin/blocs/${blocId}`);
    assert.deepEqual(shown.json.fields, [textField("field_1", "One")]);
  });

  test("GET /api/admin/blocs lists blocs with their fields; GET /api/admin/blocs/:id shows one", async () => {
    const blocId = await addBloc(server, "Listed", ["Alpha", "Beta"]);
    const list = await server.call("GET", "/api/admin/blocs");
    assert.equal(list.status, 200, list.text);
    assert.ok(Array.isArray(list.json.blocs));
    const listed = list.json.blocs.find((b: { id: string }) => b.id === blocId);
    assert.deepEqual(listed, { id: blocId, name: "Listed", ...DEFAULT_SETTINGS, fields: [textField("field_1", "Alpha"), textField("field_2", "Beta")] });
    const shown = await server.call("GET", `/api/admin/blocs/${blocId}`);
    assert.equal(shown.status, 200, shown.text);
    assert.deepEqual(shown.json, listed);
  });

  test("GET of an unknown bloc → 404 {error}", async () => {
    assertError(await server.call("GET", "/api/admin/blocs/no-such-bloc"), 404);
  });
});

describe("admin API: numeric bloc IDs", () => {
  let numeric: TestServer;
  before(async () => { numeric = await startServer({ BLOC_ID_STYLE: "numeric" }); });
  after(async () => { await numeric.close(); });

  test("with BLOC_ID_STYLE=numeric new blocs get 1, 2, … and continue after the highest numeric id", async () => {
    const first = await numeric.call("POST", "/api/admin/blocs", { json: { name: "One" } });
    const second = await numeric.call("POST", "/api/admin/blocs", { json: { name: "Two" } });
    assert.equal(first.status, 201, first.text);
    assert.equal(first.json.id, "1");
    assert.equal(second.json.id, "2");
    const explicit = await numeric.call("POST", "/api/admin/blocs", { json: { name: "Fifty", id: "50" } });
    assert.equal(explicit.json.id, "50");
    const named = await numeric.call("POST", "/api/admin/blocs", { json: { name: "Named", id: "alpha" } });
    assert.equal(named.json.id, "alpha");
    const next = await numeric.call("POST", "/api/admin/blocs", { json: { name: "Next" } });
    assert.equal(next.json.id, "51");
  });

  test("a numeric bloc is addressed by a number on every endpoint", async () => {
    const bloc = await numeric.call("POST", "/api/admin/blocs", { json: { name: "Addressed", fields: [{ name: "V" }] } });
    const id = Number(bloc.json.id);
    assert.ok(Number.isInteger(id));
    assert.equal((await numeric.call("POST", "/api/add-data", { json: { scanStationID: id, dataToAdd: { field_1: "x" } } })).status, 200);
    const read = await numeric.call("GET", "/api/get-data", { json: { blocId: id } });
    assert.equal(read.json.data.count, 1);
    const rows = await numeric.call("GET", "/api/get-data-report", { json: { stationID: id, fieldsToReport: "all" } });
    assert.equal(rows.json.data.length, 1);
    const updated = await numeric.call("POST", "/api/update-records-by-matching-values", {
      json: { blocId: id, fieldsToUpdate: { field_1: "y" }, searchItems: { field_1: "x" } },
    });
    assert.equal(updated.json.updated_record_ids.length, 1);
  });
});

describe("admin API: access grants", () => {
  let blocId: string;
  let user: Member;

  before(async () => {
    blocId = await addBloc(server, "Granted", ["X"]);
    user = await addMember(server);
  });

  const can = async () => ({
    read: (await server.call("GET", "/api/get-data", { json: { blocId }, token: user.token })).status === 200,
    add: (await server.call("POST", "/api/add-data", { json: { scanStationID: blocId, dataToAdd: { field_1: "x" } }, token: user.token })).status === 200,
    update: (await server.call("POST", "/api/update-records-by-matching-values", {
      json: { blocId, fieldsToUpdate: { field_1: "x" }, searchItems: { field_1: "x" } }, token: user.token,
    })).status === 200,
  });

  test("PUT /api/admin/blocs/:blocId/access/:userId → 200 and grants exactly the given permissions", async () => {
    assert.deepEqual(await can(), { read: false, add: false, update: false });
    const put = await server.call("PUT", `/api/admin/blocs/${blocId}/access/${user.id}`, { json: { read: true, add: false, update: true } });
    assert.equal(put.status, 200, put.text);
    assert.deepEqual(await can(), { read: true, add: false, update: true });
  });

  test("a second PUT replaces the permissions", async () => {
    await server.call("PUT", `/api/admin/blocs/${blocId}/access/${user.id}`, { json: { read: true, add: true, update: true } });
    const put = await server.call("PUT", `/api/admin/blocs/${blocId}/access/${user.id}`, { json: { add: true } });
    assert.equal(put.status, 200, put.text);
    assert.deepEqual(await can(), { read: false, add: true, update: false });
  });

  test("DELETE /api/admin/blocs/:blocId/access/:userId → 204 and removes every permission", async () => {
    await server.call("PUT", `/api/admin/blocs/${blocId}/access/${user.id}`, { json: { read: true, add: true, update: true } });
    const removed = await server.call("DELETE", `/api/admin/blocs/${blocId}/access/${user.id}`);
    assert.equal(removed.status, 204, removed.text);
    assert.equal(removed.body.length, 0);
    assert.deepEqual(await can(), { read: false, add: false, update: false });
  });

  test("a grant on one bloc gives nothing on another", async () => {
    const other = await addBloc(server, "Other", ["X"]);
    const put = await server.call("PUT", `/api/admin/blocs/${blocId}/access/${user.id}`, { json: { read: true } });
    assert.equal(put.status, 200, put.text);
    const granted = await server.call("GET", "/api/get-data", { json: { blocId }, token: user.token });
    assert.equal(granted.status, 200, `the grant opens its own bloc: ${granted.text}`);
    const reply = await server.call("GET", "/api/get-data", { json: { blocId: other }, token: user.token });
    assert.equal(reply.status, 401, reply.text);
  });

  test("a grant for an unknown user or on an unknown bloc → 404 {error}", async () => {
    assertError(await server.call("PUT", `/api/admin/blocs/${blocId}/access/999999`, { json: { read: true } }), 404);
    assertError(await server.call("PUT", `/api/admin/blocs/no-such-bloc/access/${user.id}`, { json: { read: true } }), 404);
    assertError(await server.call("DELETE", `/api/admin/blocs/${blocId}/access/999999`), 404);
    assertError(await server.call("DELETE", `/api/admin/blocs/no-such-bloc/access/${user.id}`), 404);
  });

  test("a grant with a permission that is not a boolean, or an unknown one → 400 {error}", async () => {
    assertError(await server.call("PUT", `/api/admin/blocs/${blocId}/access/${user.id}`, { json: { read: "yes" } }), 400);
    assertError(await server.call("PUT", `/api/admin/blocs/${blocId}/access/${user.id}`, { json: { remove: true } }), 400);
  });
});

describe("admin API: who may call it", () => {
  const requests = (): [string, string, unknown][] => [
    ["POST", "/api/admin/users", { name: "X", role: "admin" }],
    ["POST", "/api/admin/users/1/tokens", {}],
    ["DELETE", `/api/admin/tokens/${crypto.randomUUID()}`, undefined],
    ["POST", "/api/admin/blocs", { name: "X" }],
    ["GET", "/api/admin/blocs", undefined],
    ["GET", "/api/admin/blocs/x", undefined],
    ["POST", "/api/admin/blocs/x/fields", { name: "X" }],
    ["PUT", "/api/admin/blocs/x/access/1", { read: true }],
    ["DELETE", "/api/admin/blocs/x/access/1", undefined],
  ];

  test("a member gets 403 {error} on every admin endpoint, and nothing is created", async () => {
    const before = (await server.call("GET", "/api/admin/blocs")).json.blocs.length;
    for (const [method, url, json] of requests()) {
      const reply = await server.call(method, url, { json, token: member.token });
      assert.equal(reply.status, 403, `${method} ${url}: ${reply.text}`);
      assert.deepEqual(keysOf(reply.json), ["error"]);
    }
    assert.equal((await server.call("GET", "/api/admin/blocs")).json.blocs.length, before);
  });

  test("a member with a bad body still gets 403, not 400", async () => {
    const reply = await server.call("POST", "/api/admin/blocs", {
      body: "{not json", headers: { "content-type": "application/json" }, token: member.token,
    });
    assertError(reply, 403);
  });

  test("no token, an unknown token or a revoked admin token → 401 {error} on every admin endpoint", async () => {
    const admin = await server.call("POST", "/api/admin/users", { json: { name: "Revoked admin", role: "admin" } });
    const issued = await server.call("POST", `/api/admin/users/${admin.json.id}/tokens`, { json: {} });
    await server.call("DELETE", `/api/admin/tokens/${issued.json.id}`);
    for (const token of [undefined, "bds_unknown-unknown-unknown-unknown-unknown", issued.json.token as string]) {
      for (const [method, url, json] of requests()) {
        const reply = await call(server.url, method, url, { json, ...(token === undefined ? {} : { token }) });
        assertError(reply, 401);
      }
    }
  });
});

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { addMember, startServer, type TestServer } from "./support/server.js";
import { issueToken, keysOf } from "./support/fixtures.js";

/**
 * GET /api/blocs/:blocId/fields (issue 21): what a form needs, for anyone who may do
 * something on the bloc; everyone else, and a bloc that does not exist, gets one 401.
 */

let server: TestServer;
let blocId: string;
let otherBloc: string;
let moduleId: string;

const NOT_AUTHORISED = { error: "You are not authorized to access this bloc" };

before(async () => {
  server = await startServer();
  const mod = await server.call("POST", "/api/admin/modules", { json: { name: "Line 4" } });
  moduleId = mod.json.id as string;
  const bloc = await server.call("POST", "/api/admin/blocs", {
    json: {
      name: "Inspection", moduleId, requireJob: true,
      fields: [
        { name: "Part", required: true, maxLength: 20, pattern: "P-\\d+" },
        { name: "Result", type: "select", options: ["pass", "fail"] },
        { name: "Checked on", type: "date" },
        { name: "Site", applyProfileFilter: true },
        { name: "Ticket", type: "autogenerate", format: "T-{seq:4}" },
        { name: "Serial", unique: true, indexed: true },
      ],
    },
  });
  assert.equal(bloc.status, 201, bloc.text);
  blocId = bloc.json.id as string;
  const other = await server.call("POST", "/api/admin/blocs", { json: { name: "Other", fields: [{ name: "X" }] } });
  otherBloc = other.json.id as string;
});

after(async () => {
  await server.close();
});

function fields(token: string, bloc = blocId) {
  return server.call("GET", `/api/blocs/${bloc}/fields`, { token });
}

test("an admin gets the form: fields with their rules, the module, every permission", async () => {
  const reply = await fields(server.adminToken);
  assert.equal(reply.status, 200, reply.text);
  assert.deepEqual(keysOf(reply.json), ["acceptingData", "blocId", "fields", "modules", "name", "permissions", "requireJob"]);
  assert.equal(reply.json.blocId, blocId);
  assert.equal(reply.json.name, "Inspection");
  assert.equal(reply.json.acceptingData, true);
  assert.equal(reply.json.requireJob, true);
  assert.deepEqual(reply.json.modules, [{ id: moduleId, name: "Line 4" }]);
  assert.deepEqual(reply.json.fields[0], {
    slug: "field_1", name: "Part", type: "text", required: true, options: null, maxLength: 20, pattern: "P-\\d+", unique: false, format: null,
  });
  assert.deepEqual(reply.json.fields[1].options, ["pass", "fail"]);
  assert.equal(reply.json.fields[2].type, "date");
  assert.equal(reply.json.fields[4].format, "T-{seq:4}");
  assert.equal(reply.json.fields[5].unique, true);
  assert.deepEqual(reply.json.fields.map((f: { slug: string }) => f.slug), ["field_1", "field_2", "field_3", "field_4", "field_5", "field_6"]);
  for (const field of reply.json.fields) {
    assert.deepEqual(keysOf(field), ["format", "maxLength", "name", "options", "pattern", "required", "slug", "type", "unique"],
      "nothing only an admin decides (profile filtering, indexing)");
  }
  assert.equal(reply.json.permissions.read, true);
  assert.equal(reply.json.permissions.add, true);
  assert.equal(reply.json.permissions.update, true);
  assert.ok(Object.values(reply.json.permissions).every((v) => v === true), "an admin holds every permission");
});

test("a member with a direct grant gets the form with their own permissions", async () => {
  const member = await addMember(server, { blocId, read: true, add: true });
  const reply = await fields(member.token);
  assert.equal(reply.status, 200, reply.text);
  assert.equal(reply.json.fields.length, 6);
  assert.equal(reply.json.permissions.read, true);
  assert.equal(reply.json.permissions.add, true);
  assert.equal(reply.json.permissions.update, false);
  assert.ok(!reply.text.includes("applyProfileFilter") && !reply.text.includes("profile"), "no profile settings");
});

test("a member through a role's grant gets it; a member without any grant gets 401", async () => {
  const member = await addMember(server);
  assert.deepEqual((await fields(member.token)).json, NOT_AUTHORISED);
  assert.equal((await fields(member.token)).status, 401);
  const role = await server.call("POST", "/api/admin/roles", { json: { name: "inspectors" } });
  await server.call("PUT", `/api/admin/users/${member.id}/roles/${role.json.id}`);
  const grant = await server.call("PUT", `/api/admin/blocs/${blocId}/access/roles/${role.json.id}`, { json: { update: true } });
  assert.equal(grant.status, 200, grant.text);
  const reply = await fields(member.token);
  assert.equal(reply.status, 200, reply.text);
  assert.deepEqual([reply.json.permissions.read, reply.json.permissions.add, reply.json.permissions.update], [false, false, true]);
});

test("a bloc open to all users gives every signed-in user its form", async () => {
  const member = await addMember(server);
  assert.equal((await fields(member.token, otherBloc)).status, 401);
  const open = await server.call("PATCH", `/api/admin/blocs/${otherBloc}`, { json: { openToAllUsers: true } });
  assert.equal(open.status, 200, open.text);
  const reply = await fields(member.token, otherBloc);
  assert.equal(reply.status, 200, reply.text);
  assert.deepEqual(reply.json.modules, []);
  assert.equal(reply.json.requireJob, false);
  assert.deepEqual([reply.json.permissions.read, reply.json.permissions.add, reply.json.permissions.update], [true, true, false]);
  await server.call("PATCH", `/api/admin/blocs/${otherBloc}`, { json: { openToAllUsers: false } });
  assert.equal((await fields(member.token, otherBloc)).status, 401, "closing it takes the form away at once");
});

test("an unknown bloc is the same 401 as a forbidden one; only an admin's unscoped token learns it is missing", async () => {
  const member = await addMember(server, { blocId, read: true });
  const unknown = await fields(member.token, "no-such-bloc");
  const forbidden = await fields(member.token, otherBloc);
  assert.equal(unknown.status, 401);
  assert.deepEqual(unknown.json, forbidden.json);
  assert.deepEqual(unknown.json, NOT_AUTHORISED);
  const admin = await fields(server.adminToken, "no-such-bloc");
  assert.equal(admin.status, 404, admin.text);
  assert.deepEqual(keysOf(admin.json), ["error"]);
});

test("a token scoped to other blocs, or refused, gets 401", async () => {
  const member = await addMember(server, { blocId, read: true, add: true });
  const scoped = await server.call("POST", `/api/admin/users/${member.id}/tokens`, { json: { blocs: [otherBloc] } });
  assert.equal(scoped.status, 201, scoped.text);
  const reply = await fields(scoped.json.token as string);
  assert.equal(reply.status, 401);
  assert.deepEqual(reply.json, NOT_AUTHORISED);
  const readOnly = await server.call("POST", `/api/admin/users/${member.id}/tokens`, { json: { permissions: ["read"] } });
  const narrowed = await fields(readOnly.json.token as string);
  assert.equal(narrowed.status, 200, narrowed.text);
  assert.deepEqual([narrowed.json.permissions.read, narrowed.json.permissions.add], [true, false], "the scope narrows the permissions shown");
  const noToken = await server.call("GET", `/api/blocs/${blocId}/fields`, { token: "not-a-token" });
  assert.equal(noToken.status, 401);
  assert.deepEqual(keysOf(noToken.json), ["error"]);
  const { token } = await issueToken(server, member.id);
  assert.equal((await fields(token)).status, 200);
});

test("a retired field is not in the form", async () => {
  const bloc = await server.call("POST", "/api/admin/blocs", { json: { name: "Retiring", fields: [{ name: "A" }, { name: "B" }, { name: "C" }] } });
  const id = bloc.json.id as string;
  const retire = await server.call("DELETE", `/api/admin/blocs/${id}/fields/field_2`);
  assert.equal(retire.status, 204, retire.text);
  const reply = await fields(server.adminToken, id);
  assert.deepEqual(reply.json.fields.map((f: { slug: string }) => f.slug), ["field_1", "field_3"]);
});

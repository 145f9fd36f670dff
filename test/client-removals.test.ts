import { test, before, after } from "node:test";
import assert from "node:assert/strict";
// Through the package's exports map, as another package imports it.
import { BlocClient } from "bloc-data-service/client";
import { refusal } from "./support/refusal.js";
import { startServer, type TestServer } from "./support/server.js";

/*
 * The typed client's methods for issue 21's server side: a bloc's form, every failing
 * field of a refusal, the removals and the access listing.
 */

let server: TestServer;
let admin: BlocClient;

before(async () => {
  server = await startServer();
  admin = new BlocClient({ url: server.url, token: server.adminToken });
});
after(async () => {
  admin.close();
  await server.close();
});

test("blocFields, and a refusal's fields on BlocApiError", async () => {
  const bloc = await admin.admin.createBloc({
    name: "Form", fields: [{ name: "Part", required: true }, { name: "Qty", type: "number" }, { name: "Result", type: "select", options: ["ok", "nok"] }],
  });
  const form = await admin.blocFields(bloc.id);
  assert.equal(form.name, "Form");
  assert.deepEqual(form.fields.map((f) => [f.slug, f.type, f.required]), [["field_1", "text", true], ["field_2", "number", false], ["field_3", "select", false]]);
  assert.deepEqual(form.fields[2]!.options, ["ok", "nok"]);
  assert.equal(form.permissions.add, true);
  const error = await refusal(admin.addData({ scanStationID: bloc.id, dataToAdd: { field_2: "x", field_3: "maybe" } }));
  assert.equal(error.status, 400);
  assert.deepEqual(Object.keys(error.fields ?? {}), ["field_1", "field_2", "field_3"]);
  assert.match(error.text, /field_1 .*; field_2 .*; field_3 /);
  const other = await refusal(admin.blocFields("no-such-bloc"));
  assert.equal(other.status, 404);
  assert.equal(other.fields, undefined);
});

test("retireField, deleteBloc (withRecords), deleteRole, deleteModule and getAccess", async () => {
  const mod = await admin.admin.createModule("Cell 2");
  const bloc = await admin.admin.createBloc({ name: "Undo", moduleId: mod.id, fields: [{ name: "A" }, { name: "B" }] });
  await admin.admin.retireField(bloc.id, "field_2");
  assert.deepEqual((await admin.admin.getBloc(bloc.id)).fields.map((f) => f.slug), ["field_1"]);

  const user = await admin.admin.createUser("Bo", "member");
  const role = await admin.admin.createRole("cell-2");
  await admin.admin.setAccess(bloc.id, user.id, { read: true });
  await admin.admin.setRoleAccess(bloc.id, role.id, { add: true });
  const access = await admin.admin.getAccess(bloc.id);
  assert.deepEqual(access.grants.map((g) => [g.userId, g.userName, g.read, g.add]), [[user.id, "Bo", true, false]]);
  assert.deepEqual(access.roleGrants.map((g) => [g.roleId, g.roleName, g.add]), [[role.id, "cell-2", true]]);
  await admin.admin.deleteRole(role.id);
  assert.deepEqual((await admin.admin.getAccess(bloc.id)).roleGrants, []);

  assert.equal((await refusal(admin.admin.deleteModule(mod.id))).status, 409);
  await admin.addData({ scanStationID: bloc.id, dataToAdd: { field_1: "x" }, jobID: mod.id });
  const held = await refusal(admin.admin.deleteBloc(bloc.id));
  assert.equal(held.status, 409);
  assert.match(held.text, /holds 1 record/);
  await admin.admin.deleteBloc(bloc.id, { withRecords: true });
  assert.equal((await refusal(admin.admin.getBloc(bloc.id))).status, 404);
  await admin.admin.deleteModule(mod.id);
  assert.deepEqual((await admin.admin.listModules()).filter((m) => m.id === mod.id), []);
});

import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { addBloc, addMember, startServer, type TestServer } from "./support/server.js";
import { keysOf, storedRecords } from "./support/fixtures.js";

/** Modules (the spec's jobs), a bloc's jobID requirement, and records' submitted_status. */

let server: TestServer;

before(async () => {
  server = await startServer();
});

after(async () => {
  await server.close();
});

async function createModule(name: string): Promise<string> {
  const reply = await server.call("POST", "/api/admin/modules", { json: { name } });
  assert.equal(reply.status, 201, reply.text);
  return reply.json.id as string;
}

async function createBloc(settings: Record<string, unknown>): Promise<string> {
  const reply = await server.call("POST", "/api/admin/blocs", { json: { name: "Jobbed", fields: [{ name: "Part" }], ...settings } });
  assert.equal(reply.status, 201, reply.text);
  return reply.json.id as string;
}

function add(body: Record<string, unknown>, token?: string) {
  return server.call("POST", "/api/add-data", { json: body, ...(token === undefined ? {} : { token }) });
}

function count(blocId: string): Promise<number> {
  return server.ctx.store.records.countRecords({ blocId });
}

async function recordOf(blocId: string, id: number) {
  const record = (await storedRecords(server, blocId)).find((r) => r.id === id);
  assert.ok(record, `record ${id} is stored`);
  return record;
}

async function assertAddRefused(body: Record<string, unknown>, pattern: RegExp, blocId: string): Promise<void> {
  const before = await count(blocId);
  const reply = await add(body);
  assert.equal(reply.status, 400, reply.text);
  assert.deepEqual(keysOf(reply.json), ["error"]);
  assert.match(String(reply.json.error), pattern);
  assert.equal(await count(blocId), before, "a refused add writes nothing");
}

describe("modules", () => {
  test("POST /api/admin/modules → 201 {id, name}; GET /api/admin/modules lists them in order", async () => {
    const reply = await server.call("POST", "/api/admin/modules", { json: { name: "  Assembly  " } });
    assert.equal(reply.status, 201, reply.text);
    assert.deepEqual(keysOf(reply.json), ["id", "name"]);
    assert.equal(reply.json.name, "Assembly");
    assert.equal(typeof reply.json.id, "string");
    const second = await createModule("Packing");
    const list = await server.call("GET", "/api/admin/modules");
    assert.equal(list.status, 200, list.text);
    const modules = list.json.modules as { id: string; name: string }[];
    const ids = modules.map((m) => m.id);
    assert.ok(ids.includes(reply.json.id) && ids.includes(second));
    assert.deepEqual(modules.find((m) => m.id === second), { id: second, name: "Packing" });
    assert.ok(ids.indexOf(reply.json.id) < ids.indexOf(second));
  });

  test("a module without a name, or with a blank one, is refused with 400 {error}", async () => {
    for (const body of [{}, { name: "" }, { name: "   " }, { name: 5 }]) {
      const reply = await server.call("POST", "/api/admin/modules", { json: body });
      assert.equal(reply.status, 400, `${JSON.stringify(body)} → ${reply.text}`);
      assert.deepEqual(keysOf(reply.json), ["error"]);
    }
  });

  test("only admins may create or list modules", async () => {
    const member = await addMember(server);
    const created = await server.call("POST", "/api/admin/modules", { json: { name: "Sneaky" }, token: member.token });
    assert.equal(created.status, 403, created.text);
    const listed = await server.call("GET", "/api/admin/modules", { token: member.token });
    assert.equal(listed.status, 403, listed.text);
    const all = await server.call("GET", "/api/admin/modules");
    assert.ok(!(all.json.modules as { name: string }[]).some((m) => m.name === "Sneaky"));
  });

  test("a bloc with an unknown moduleId is refused with 404 {error}, at creation and by PATCH", async () => {
    const created = await server.call("POST", "/api/admin/blocs", { json: { name: "Orphan", moduleId: "9999" } });
    assert.equal(created.status, 404, created.text);
    assert.deepEqual(keysOf(created.json), ["error"]);
    const bloc = await createBloc({});
    const patched = await server.call("PATCH", `/api/admin/blocs/${bloc}`, { json: { moduleId: 9999 } });
    assert.equal(patched.status, 404, patched.text);
    assert.equal((await server.call("GET", `/api/admin/blocs/${bloc}`)).json.moduleId, null);
  });

  test("GET /api/admin/blocs/:blocId shows moduleId and requireJob; PATCH changes them", async () => {
    const moduleId = await createModule("Shown");
    const bloc = await createBloc({ moduleId, requireJob: true });
    let shown = (await server.call("GET", `/api/admin/blocs/${bloc}`)).json;
    assert.equal(shown.moduleId, moduleId);
    assert.equal(shown.requireJob, true);
    const patched = await server.call("PATCH", `/api/admin/blocs/${bloc}`, { json: { moduleId: null, requireJob: false } });
    assert.equal(patched.status, 200, patched.text);
    shown = (await server.call("GET", `/api/admin/blocs/${bloc}`)).json;
    assert.equal(shown.moduleId, null);
    assert.equal(shown.requireJob, false);
  });
});

describe("add-data and jobID", () => {
  let moduleId: string;
  let otherModule: string;
  let bloc: string;

  before(async () => {
    moduleId = await createModule("Line 2");
    otherModule = await createModule("Line 3");
    bloc = await createBloc({ moduleId, requireJob: true });
  });

  test("a bloc that requires a job refuses add-data without jobID (absent, null or blank) with 400 {error}", async () => {
    await assertAddRefused({ scanStationID: bloc, dataToAdd: { field_1: "x" } }, /jobID/, bloc);
    await assertAddRefused({ scanStationID: bloc, jobID: null, dataToAdd: { field_1: "x" } }, /jobID/, bloc);
    await assertAddRefused({ scanStationID: bloc, jobID: "  ", dataToAdd: { field_1: "x" } }, /jobID/, bloc);
  });

  test("a jobID that is not the bloc's module is refused with 400 {error}", async () => {
    await assertAddRefused({ scanStationID: bloc, jobID: otherModule, dataToAdd: { field_1: "x" } }, /jobID/, bloc);
    await assertAddRefused({ scanStationID: bloc, jobID: "J-unknown", dataToAdd: { field_1: "x" } }, /jobID/, bloc);
  });

  test("the bloc's module as jobID → 200, and the record keeps it (as a string or a number)", async () => {
    const reply = await add({ scanStationID: bloc, jobID: moduleId, dataToAdd: { field_1: "ok" } });
    assert.equal(reply.status, 200, reply.text);
    assert.equal((await recordOf(bloc, reply.json.returnedStationID)).jobId, moduleId);
    const numeric = await add({ scanStationID: bloc, jobID: Number(moduleId), dataToAdd: { field_1: "ok" } });
    assert.equal(numeric.status, 200, numeric.text);
    assert.equal((await recordOf(bloc, numeric.json.returnedStationID)).jobId, moduleId);
  });

  test("a member's add is checked the same way", async () => {
    const member = await addMember(server, { blocId: bloc, add: true });
    const refused = await add({ scanStationID: bloc, dataToAdd: { field_1: "x" } }, member.token);
    assert.equal(refused.status, 400, refused.text);
    const accepted = await add({ scanStationID: bloc, jobID: moduleId, dataToAdd: { field_1: "x" } }, member.token);
    assert.equal(accepted.status, 200, accepted.text);
    assert.equal((await recordOf(bloc, accepted.json.returnedStationID)).jobId, moduleId);
  });

  test("a bloc in a module that does not require a job: no jobID is fine (null), a wrong one is refused", async () => {
    const optional = await createBloc({ moduleId });
    const without = await add({ scanStationID: optional, dataToAdd: { field_1: "x" } });
    assert.equal(without.status, 200, without.text);
    assert.equal((await recordOf(optional, without.json.returnedStationID)).jobId, null);
    await assertAddRefused({ scanStationID: optional, jobID: otherModule, dataToAdd: { field_1: "x" } }, /jobID/, optional);
  });

  test("a bloc that requires a job but has no module takes any jobID", async () => {
    const free = await createBloc({ requireJob: true });
    await assertAddRefused({ scanStationID: free, dataToAdd: { field_1: "x" } }, /jobID/, free);
    const reply = await add({ scanStationID: free, jobID: "WO-2291", dataToAdd: { field_1: "x" } });
    assert.equal(reply.status, 200, reply.text);
    assert.equal((await recordOf(free, reply.json.returnedStationID)).jobId, "WO-2291");
  });

  test("moving a bloc to another module by PATCH changes which jobID it takes", async () => {
    const moved = await createBloc({ moduleId, requireJob: true });
    const patched = await server.call("PATCH", `/api/admin/blocs/${moved}`, { json: { moduleId: otherModule } });
    assert.equal(patched.status, 200, patched.text);
    await assertAddRefused({ scanStationID: moved, jobID: moduleId, dataToAdd: { field_1: "x" } }, /jobID/, moved);
    assert.equal((await add({ scanStationID: moved, jobID: otherModule, dataToAdd: { field_1: "x" } })).status, 200);
  });
});

describe("submitted_status", () => {
  let bloc: string;

  before(async () => {
    bloc = await addBloc(server, "Drafts", ["Part"]);
  });

  async function statusShown(id: number): Promise<unknown> {
    const reply = await server.call("GET", "/api/get-data", { json: { blocId: bloc, resultLimit: 1000 } });
    assert.equal(reply.status, 200, reply.text);
    for (let i = 0; reply.json.data[String(i)] !== undefined; i += 1) {
      const record = reply.json.data[String(i)];
      if (record.service_entry_row_id === id) return record.submitted_status;
    }
    assert.fail(`record ${id} is not in get-data`);
  }

  test("records are added with submitted_status 1 by default", async () => {
    const reply = await add({ scanStationID: bloc, dataToAdd: { field_1: "default" } });
    assert.equal(reply.status, 200, reply.text);
    assert.equal(await statusShown(reply.json.returnedStationID), 1);
    assert.equal((await recordOf(bloc, reply.json.returnedStationID)).submittedStatus, 1);
  });

  for (const status of [0, "0"]) {
    test(`submittedStatus ${JSON.stringify(status)} adds a draft: get-data shows submitted_status 0`, async () => {
      const reply = await add({ scanStationID: bloc, submittedStatus: status, dataToAdd: { field_1: "draft" } });
      assert.equal(reply.status, 200, reply.text);
      assert.equal(await statusShown(reply.json.returnedStationID), 0);
    });
  }

  test("submittedStatus 1 and \"1\" add submitted records", async () => {
    for (const status of [1, "1"]) {
      const reply = await add({ scanStationID: bloc, submittedStatus: status, dataToAdd: { field_1: "submitted" } });
      assert.equal(reply.status, 200, reply.text);
      assert.equal(await statusShown(reply.json.returnedStationID), 1);
    }
  });

  test("any other submittedStatus is refused with 400 {error} naming it, and nothing is written", async () => {
    for (const status of [2, "2", -1, "draft", true, 0.5]) {
      await assertAddRefused({ scanStationID: bloc, submittedStatus: status, dataToAdd: { field_1: "bad" } }, /submittedStatus/, bloc);
    }
  });

  test("update-records may search by submitted_status and set it", async () => {
    const drafts: number[] = [];
    for (let i = 0; i < 2; i += 1) {
      const reply = await add({ scanStationID: bloc, submittedStatus: 0, dataToAdd: { field_1: "to submit" } });
      drafts.push(reply.json.returnedStationID as number);
    }
    const submitted = await add({ scanStationID: bloc, dataToAdd: { field_1: "to submit" } });
    const update = (fieldsToUpdate: unknown, searchItems: unknown) =>
      server.call("POST", "/api/update-records-by-matching-values", { json: { blocId: bloc, fieldsToUpdate, searchItems } });

    let reply = await update({ submitted_status: 1 }, { field_1: "to submit", submitted_status: "0" });
    assert.equal(reply.status, 200, reply.text);
    assert.deepEqual(reply.json, { updated_record_ids: drafts });
    for (const id of drafts) assert.equal(await statusShown(id), 1);

    reply = await update({ submitted_status: 1 }, { field_1: "to submit", submitted_status: "0" });
    assert.deepEqual(reply.json, { updated_record_ids: [] }, "no draft is left to match");

    reply = await update({ submitted_status: "0", field_1: "back to draft" }, { service_entry_row_id: String(submitted.json.returnedStationID) });
    assert.equal(reply.status, 200, reply.text);
    assert.equal(await statusShown(submitted.json.returnedStationID), 0);
    assert.equal((await recordOf(bloc, submitted.json.returnedStationID)).values.field_1, "back to draft");

    reply = await update({ field_1: "status kept" }, { service_entry_row_id: String(submitted.json.returnedStationID) });
    assert.equal(reply.status, 200, reply.text);
    assert.equal(await statusShown(submitted.json.returnedStationID), 0, "an update that does not name the status keeps it");
  });

  test("update-records refuses a submitted_status other than 0 or 1 with 400 {message}, changing nothing", async () => {
    const reply0 = await add({ scanStationID: bloc, dataToAdd: { field_1: "stay" } });
    const before = await storedRecords(server, bloc);
    const reply = await server.call("POST", "/api/update-records-by-matching-values", {
      json: { blocId: bloc, fieldsToUpdate: { submitted_status: 2, field_1: "moved" }, searchItems: { field_1: "stay" } },
    });
    assert.equal(reply.status, 400, reply.text);
    assert.deepEqual(keysOf(reply.json), ["message"]);
    assert.match(String(reply.json.message), /submitted_status/);
    assert.deepEqual(await storedRecords(server, bloc), before);
    assert.equal(await statusShown(reply0.json.returnedStationID), 1);
  });
});

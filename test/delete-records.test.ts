import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import ExcelJS from "exceljs";
import { addBloc, addMember, addRecord, startServer, type TestServer } from "./support/server.js";
import type { Reply } from "./support/http.js";
import { insertAt, keysOf, storedRecords } from "./support/fixtures.js";
import { assertCountersEqualRecount } from "./support/recount.js";
import { Receiver } from "./support/receiver.js";
import { SseClient } from "./support/sse.js";
import type { JsonBody } from "./support/json.js";

/**
 * POST /api/delete-records-by-matching-values and the admin restore (issue 21, "Records"):
 * a deleted record leaves every read, count and report, keeps its history and files, is
 * announced only to those who saw it, and comes back with its ID on restore; the counters
 * equal a recount throughout.
 */

const PATH = "/api/delete-records-by-matching-values";
const MISSING = { error: "Search Key/Value pairs or Bloc ID have not been provided" };
const NOT_AUTHORISED = { message: "You are not authorized to access this bloc" };

let server: TestServer;
const streams: SseClient[] = [];
const receivers: Receiver[] = [];

before(async () => {
  server = await startServer({ BLOC_EVENTS_POLL_MS: "50" });
});

after(async () => {
  for (const stream of streams) stream.close();
  for (const receiver of receivers) await receiver.close();
  await server.close();
});

function remove(body: unknown, token?: string): Promise<Reply> {
  return server.call("POST", PATH, { json: body, ...(token === undefined ? {} : { token }) });
}

async function deleted(blocId: string, searchItems: Record<string, string | number>, token?: string): Promise<number[]> {
  const reply = await remove({ blocId, searchItems }, token);
  assert.equal(reply.status, 200, reply.text);
  assert.deepEqual(keysOf(reply.json), ["deleted_record_ids"]);
  return reply.json.deleted_record_ids as number[];
}

function restore(blocId: string, recordId: number | string, token?: string): Promise<Reply> {
  return server.call("POST", `/api/admin/blocs/${blocId}/records/${recordId}/restore`, token === undefined ? {} : { token });
}

async function getData(blocId: string, token?: string): Promise<Record<string, JsonBody>> {
  const reply = await server.call("GET", "/api/get-data", { json: { blocId }, ...(token === undefined ? {} : { token }) });
  assert.equal(reply.status, 200, reply.text);
  return reply.json.data as Record<string, JsonBody>;
}

function idsOf(data: Record<string, JsonBody>): number[] {
  return Object.keys(data).filter((k) => /^\d+$/.test(k)).map((k) => data[k].service_entry_row_id as number).sort((a, b) => a - b);
}

async function storedIds(blocId: string): Promise<number[]> {
  return (await storedRecords(server, blocId)).map((r) => r.id).sort((a, b) => a - b);
}

async function grant(blocId: string, userId: string, rights: Record<string, boolean>): Promise<void> {
  const reply = await server.call("PUT", `/api/admin/blocs/${blocId}/access/${userId}`, { json: rights });
  assert.equal(reply.status, 200, reply.text);
}

/** A bloc (Part, Colour) of five records from today, each as `who` says. */
async function fiveParts(): Promise<{ blocId: string; ids: number[] }> {
  const blocId = await addBloc(server, "Parts", ["Part", "Colour"]);
  const ids: number[] = [];
  for (const [part, colour] of [["P1", "red"], ["P2", "red"], ["P3", "blue"], ["P4", "red"], ["P5", "blue"]]) {
    ids.push(await addRecord(server, blocId, { field_1: part, field_2: colour }));
  }
  return { blocId, ids };
}

describe("delete-records: parameters and refusals, as update-records answers them", () => {
  let blocId: string;
  let ids: number[];
  before(async () => { ({ blocId, ids } = await fiveParts()); });

  const cases: [string, (blocId: string) => unknown][] = [
    ["an empty body", () => ({})],
    ["no blocId", () => ({ searchItems: { field_1: "P1" } })],
    ["a blank blocId", () => ({ blocId: " ", searchItems: { field_1: "P1" } })],
    ["no searchItems", (b) => ({ blocId: b })],
    ["an empty searchItems", (b) => ({ blocId: b, searchItems: {} })],
    ["an empty searchItems as a JSON string", (b) => ({ blocId: b, searchItems: "{}" })],
    ["a null searchItems", (b) => ({ blocId: b, searchItems: null })],
  ];
  for (const [name, body] of cases) {
    test(`${name}: 400 with the one missing-parameter text under error`, async () => {
      const reply = await remove(body(blocId));
      assert.equal(reply.status, 400, reply.text);
      assert.deepEqual(reply.json, MISSING);
      assert.deepEqual(await storedIds(blocId), ids);
    });
  }

  test("searchItems as a JSON string is read as update-records reads it", async () => {
    const other = await fiveParts();
    const json = await remove({ blocId: other.blocId, searchItems: JSON.stringify({ field_1: "P1" }) });
    assert.equal(json.status, 200, json.text);
    assert.deepEqual(json.json.deleted_record_ids, [other.ids[0]]);
  });

  test("an unknown field in searchItems: 400 under message, nothing deleted", async () => {
    const reply = await remove({ blocId, searchItems: { field_1: "P1", nope: "x" } });
    assert.equal(reply.status, 400, reply.text);
    assert.deepEqual(keysOf(reply.json), ["message"]);
    assert.match(reply.json.message, /nope/);
    assert.deepEqual(await storedIds(blocId), ids);
  });

  test("no token: 401 under message; a member without delete, or on an unknown bloc: the spec's 401", async () => {
    const anonymous = await server.call("POST", PATH, { json: { blocId, searchItems: { field_1: "P1" } }, token: "" });
    assert.equal(anonymous.status, 401, anonymous.text);
    assert.deepEqual(keysOf(anonymous.json), ["message"]);
    const member = await addMember(server, { blocId, read: true, add: true, update: true });
    assert.deepEqual((await remove({ blocId, searchItems: { field_1: "P1" } }, member.token)).json, NOT_AUTHORISED);
    const refused = await remove({ blocId, searchItems: { field_1: "P1" } }, member.token);
    assert.equal(refused.status, 401);
    const unknown = await remove({ blocId: "no-such-bloc", searchItems: { field_1: "P1" } }, member.token);
    assert.equal(unknown.status, 401);
    assert.deepEqual(unknown.json, NOT_AUTHORISED);
    assert.deepEqual(await storedIds(blocId), ids);
  });

  test("an admin's token scoped to read and update may not delete; one scoped to delete may", async () => {
    const scoped = await server.call("POST", "/api/admin/users/1/tokens", { json: { permissions: ["read", "update"] } });
    assert.equal(scoped.status, 201, scoped.text);
    assert.deepEqual((await remove({ blocId, searchItems: { field_1: "P5" } }, scoped.json.token)).json, NOT_AUTHORISED);
    const deleter = await server.call("POST", "/api/admin/users/1/tokens", { json: { permissions: ["delete"], blocs: [blocId] } });
    assert.equal(deleter.status, 201, deleter.text);
    assert.deepEqual(await deleted(blocId, { field_1: "P5" }, deleter.json.token), [ids[4]]);
    assert.equal((await restore(blocId, ids[4]!)).status, 200);
  });

  test("no record matching: 200 with an empty list", async () => {
    assert.deepEqual(await deleted(blocId, { field_1: "P9" }), []);
    assert.deepEqual(await deleted(blocId, { service_entry_row_id: 999_999_999 }), []);
    assert.deepEqual(await deleted(blocId, { service_entry_row_id: "not-a-number" }), []);
  });
});

describe("the delete permission in grants", () => {
  test("a user grant and a role grant carry delete (false unless given); /api/me lists it", async () => {
    const blocId = await addBloc(server, "Granted", ["Part"]);
    const member = await addMember(server, { blocId, read: true });
    const reply = await server.call("PUT", `/api/admin/blocs/${blocId}/access/${member.id}`, { json: { read: true } });
    assert.deepEqual(reply.json, { blocId, userId: member.id, read: true, add: false, update: false, delete: false, seeHidden: false });
    const role = await server.call("POST", "/api/admin/roles", { json: { name: "Cleaners" } });
    assert.equal(role.status, 201, role.text);
    const roleGrant = await server.call("PUT", `/api/admin/blocs/${blocId}/access/roles/${role.json.id}`, { json: { delete: true } });
    assert.equal(roleGrant.status, 200, roleGrant.text);
    assert.equal(roleGrant.json.delete, true);
    const member2 = await server.call("PUT", `/api/admin/users/${member.id}/roles/${role.json.id}`);
    assert.ok(member2.status < 300, member2.text);
    const me = await server.call("GET", "/api/me", { token: member.token });
    assert.deepEqual(me.json.blocs.find((b: { id: string }) => b.id === blocId).permissions, ["read", "delete"]);
    const id = await addRecord(server, blocId, { field_1: "X" });
    assert.deepEqual(await deleted(blocId, { field_1: "X" }, member.token), [id]);
  });
});

describe("what a deletion removes and a restore brings back", () => {
  test("get-data's page, count, fieldCounts and scans_counted, the reports and update-records leave it; restore brings all back", async () => {
    const { blocId, ids } = await fiveParts();
    const before = await getData(blocId);
    assert.equal(before.count, 5);
    assert.deepEqual(before.fieldCounts.field_2, { red: 3, blue: 2 });

    assert.deepEqual(await deleted(blocId, { field_2: "red", field_1: "P2" }), [ids[1]]);
    assert.deepEqual(await deleted(blocId, { field_2: "blue" }), [ids[2], ids[4]]);
    await assertCountersEqualRecount(server.ctx.store);

    const after = await getData(blocId);
    assert.equal(after.count, 2);
    assert.deepEqual(idsOf(after), [ids[0], ids[3]]);
    assert.deepEqual(after.fieldCounts.field_2, { red: 2 });
    assert.equal(after.countLimitInfo.scans_counted, 2);

    const report = await server.call("GET", "/api/get-data-report", { json: { stationID: blocId, fieldsToReport: "all" } });
    assert.equal(report.status, 200, report.text);
    assert.deepEqual(report.json.data.map((row: Record<string, string>) => row.field_1), ["P1", "P4"]);
    const csv = await server.call("POST", "/api/get-data-report", { json: { stationID: blocId, fieldsToReport: "all", responseType: "csv" } });
    assert.equal(csv.status, 200, csv.text);
    assert.ok(csv.text.includes("P1") && csv.text.includes("P4"));
    for (const gone of ["P2", "P3", "P5"]) assert.ok(!csv.text.includes(gone), `${gone} is not in the CSV report`);
    const xlsx = await server.call("POST", "/api/get-data-report", { json: { stationID: blocId, fieldsToReport: "all", responseType: "blob" } });
    assert.equal(xlsx.status, 200);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(xlsx.body as unknown as Parameters<typeof workbook.xlsx.load>[0]);
    const cells: string[] = [];
    workbook.worksheets[0]!.eachRow((row) => row.eachCell((cell) => { cells.push(cell.text); }));
    assert.ok(cells.includes("P1") && cells.includes("P4"));
    for (const gone of ["P2", "P3", "P5"]) assert.ok(!cells.includes(gone), `${gone} is not in the .xlsx report`);

    const update = await server.call("POST", "/api/update-records-by-matching-values", {
      json: { blocId, fieldsToUpdate: { field_2: "green" }, searchItems: { field_2: "blue" } },
    });
    assert.deepEqual(update.json, { updated_record_ids: [] }, "update-records does not see deleted records");
    assert.deepEqual(await deleted(blocId, { field_2: "blue" }), [], "nor does a second delete");

    const restored = await restore(blocId, ids[2]!);
    assert.equal(restored.status, 200, restored.text);
    assert.deepEqual(restored.json, { blocId, recordId: ids[2] });
    const back = await getData(blocId);
    assert.equal(back.count, 3);
    assert.deepEqual(idsOf(back), [ids[0], ids[2], ids[3]]);
    const record = Object.values(back).find((r: JsonBody) => r?.service_entry_row_id === ids[2]) as Record<string, unknown>;
    assert.equal(record.field_1, "P3");
    assert.equal(record.field_2, "blue");
    assert.deepEqual(back.fieldCounts.field_2, { red: 2, blue: 1 });
    assert.equal(back.countLimitInfo.scans_counted, 3);
    await assertCountersEqualRecount(server.ctx.store);

    const again = await restore(blocId, ids[2]!);
    assert.equal(again.status, 404, again.text);
    assert.deepEqual(keysOf(again.json), ["error"]);
    assert.equal((await restore(blocId, ids[0]!)).status, 404, "a record that is not deleted is not restored");
    assert.equal((await restore(blocId, 999_999)).status, 404);
    assert.equal((await restore("no-such-bloc", ids[1]!)).status, 404);
    const member = await addMember(server, { blocId, read: true, delete: true });
    const forbidden = await restore(blocId, ids[1]!, member.token);
    assert.equal(forbidden.status, 403, forbidden.text);
    assert.deepEqual(keysOf(forbidden.json), ["error"]);
  });

  test("counters equal a recount across deletes and restores in hourly, daily and older windows", async () => {
    const blocId = await addBloc(server, "Windows", ["Part", "Colour"]);
    const ids: number[] = [];
    const stamps = ["2025-01-15 08:10:00", "2025-01-15 08:20:00", "2025-03-02 12:00:00", "2026-02-01 23:59:59"];
    let n = 0;
    for (const at of stamps) {
      for (const colour of ["red", "red", "blue"]) ids.push(await insertAt(server, blocId, at, { field_1: `W${n += 1}`, field_2: colour }));
    }
    await deleted(blocId, { field_2: "red" });
    await assertCountersEqualRecount(server.ctx.store);
    for (const id of ids.filter((_, i) => i % 3 === 0)) assert.equal((await restore(blocId, id)).status, 200);
    await assertCountersEqualRecount(server.ctx.store);
    const window = await server.call("GET", "/api/get-data", { json: { blocId, fromDate: "2025-01-15", toDate: "2025-01-15" } });
    assert.equal(window.json.data.count, 4);
    assert.deepEqual(window.json.data.fieldCounts.field_2, { blue: 2, red: 2 });
  });

  test("service_entry_row_id: update-records edits exactly that record, delete-records deletes exactly it", async () => {
    const { blocId, ids } = await fiveParts();
    const update = await server.call("POST", "/api/update-records-by-matching-values", {
      json: { blocId, fieldsToUpdate: { field_2: "green" }, searchItems: { service_entry_row_id: String(ids[3]) } },
    });
    assert.equal(update.status, 200, update.text);
    assert.deepEqual(update.json.updated_record_ids, [ids[3]]);
    const stored = await storedRecords(server, blocId);
    assert.deepEqual(stored.map((r) => r.values.field_2), ["red", "red", "blue", "green", "blue"]);
    assert.deepEqual(await deleted(blocId, { service_entry_row_id: ids[1]! }), [ids[1]]);
    assert.deepEqual(await storedIds(blocId), [ids[0], ids[2], ids[3], ids[4]]);
    assert.deepEqual(await deleted(blocId, { service_entry_row_id: String(ids[2]), field_2: "red" }), [], "every search item must match");
    await assertCountersEqualRecount(server.ctx.store);
  });

  test("history keeps a deleted entry (who, when, the values) and a restored one", async () => {
    const { blocId, ids } = await fiveParts();
    const member = await addMember(server, { blocId, read: true, update: true });
    await grant(blocId, member.id, { read: true, update: true, delete: true });
    await server.call("POST", "/api/update-records-by-matching-values", {
      token: member.token, json: { blocId, fieldsToUpdate: { field_2: "pink" }, searchItems: { field_1: "P1" } },
    });
    assert.deepEqual(await deleted(blocId, { field_1: "P1" }, member.token), [ids[0]]);
    const whileDeleted = await server.call("GET", `/api/admin/blocs/${blocId}/records/${ids[0]}/history`);
    assert.equal(whileDeleted.status, 200, whileDeleted.text);
    const [updated, removed] = whileDeleted.json.history;
    assert.equal(updated.action, "updated");
    assert.equal(removed.action, "deleted");
    assert.equal(removed.userId, member.id);
    assert.match(removed.at, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    assert.ok(removed.tokenId);
    assert.deepEqual(removed.changes, {
      field_1: { from: "P1", to: "" }, field_2: { from: "pink", to: "" }, submitted_status: { from: "1", to: "" },
    });
    assert.equal((await restore(blocId, ids[0]!)).status, 200);
    const history = (await server.call("GET", `/api/admin/blocs/${blocId}/records/${ids[0]}/history`)).json.history;
    assert.deepEqual(history.map((h: { action: string }) => h.action), ["updated", "deleted", "restored"]);
    assert.equal(history[2].userId, "1");
    assert.deepEqual(history[2].changes.field_2, { from: "", to: "pink" });
  });

  test("a unique value taken since the deletion refuses the restore with 409, changing nothing", async () => {
    const bloc = await server.call("POST", "/api/admin/blocs", { json: { name: "Serials", fields: [{ name: "Serial", unique: true }] } });
    assert.equal(bloc.status, 201, bloc.text);
    const blocId = bloc.json.id as string;
    const first = await addRecord(server, blocId, { field_1: "S-1" });
    assert.deepEqual(await deleted(blocId, { field_1: "S-1" }), [first]);
    const second = await addRecord(server, blocId, { field_1: "S-1" });
    const refused = await restore(blocId, first);
    assert.equal(refused.status, 409, refused.text);
    assert.deepEqual(keysOf(refused.json), ["error"]);
    assert.match(refused.json.error, /field_1 \(Serial\) "S-1"/);
    assert.deepEqual(await storedIds(blocId), [second]);
    const history = (await server.call("GET", `/api/admin/blocs/${blocId}/records/${first}/history`)).json.history;
    assert.deepEqual(history.map((h: { action: string }) => h.action), ["deleted"], "a refused restore writes no history");
    assert.deepEqual(await deleted(blocId, { field_1: "S-1" }), [second]);
    assert.equal((await restore(blocId, first)).status, 200, "once the value is free again, the restore goes through");
    assert.deepEqual(await storedIds(blocId), [first]);
    await assertCountersEqualRecount(server.ctx.store);
  });

  test("a deleted record's file stays stored but unreadable until the record is restored", async () => {
    const bloc = await server.call("POST", "/api/admin/blocs", { json: { name: "Photos", fields: [{ name: "Part" }, { name: "Photo", type: "file" }] } });
    assert.equal(bloc.status, 201, bloc.text);
    const blocId = bloc.json.id as string;
    const form = new FormData();
    form.append("scanStationID", blocId);
    form.append("dataToAdd", JSON.stringify({ field_1: "F1" }));
    form.append("field_2", new Blob(["photo bytes"], { type: "text/plain" }), "photo.txt");
    const added = await fetch(`${server.url}/api/add-data`, { method: "POST", body: form, headers: { authorization: `Bearer ${server.adminToken}` } });
    assert.equal(added.status, 200, await added.clone().text());
    const id = (await added.json() as { returnedStationID: number }).returnedStationID;
    const ref = (await storedRecords(server, blocId))[0]!.values.field_2!;
    assert.equal((await server.call("GET", `/api/files/${ref}`)).status, 200);
    await deleted(blocId, { service_entry_row_id: id });
    assert.notEqual((await server.call("GET", `/api/files/${ref}`)).status, 200, "no one reads the file of a deleted record");
    assert.equal((await restore(blocId, id)).status, 200);
    const back = await server.call("GET", `/api/files/${ref}`);
    assert.equal(back.status, 200);
    assert.equal(back.text, "photo bytes");
  });
});

describe("restrictions: a caller deletes only what they see", () => {
  test("an own-restricted member deletes only their own records; a profile-filtered one only their profile's", async () => {
    const bloc = await server.call("POST", "/api/admin/blocs", {
      json: { name: "Lines", fields: [{ name: "Part" }, { name: "Site", applyProfileFilter: true }] },
    });
    const blocId = bloc.json.id as string;
    const own = await addMember(server, { blocId, read: true, add: true });
    await grant(blocId, own.id, { read: true, add: true, delete: true });
    await server.call("PUT", `/api/admin/users/${own.id}`, { json: { profile: ["Cork", "Dublin"] } });
    assert.equal((await server.call("PUT", `/api/admin/blocs/${blocId}/restrictions/${own.id}`, { json: { mode: "own" } })).status, 200);
    const cork = await addMember(server, { blocId, read: true });
    await grant(blocId, cork.id, { read: true, delete: true });
    await server.call("PUT", `/api/admin/users/${cork.id}`, { json: { profile: ["Cork"] } });

    const adminCork = await addRecord(server, blocId, { field_1: "X", field_2: "Cork" });
    const adminDublin = await addRecord(server, blocId, { field_1: "X", field_2: "Dublin" });
    const ownCork = await addRecord(server, blocId, { field_1: "X", field_2: "Cork" }, own.token);
    const ownDublin = await addRecord(server, blocId, { field_1: "X", field_2: "Dublin" }, own.token);

    assert.deepEqual(await deleted(blocId, { field_1: "X" }, own.token), [ownCork, ownDublin]);
    for (const id of [ownCork, ownDublin]) assert.equal((await restore(blocId, id)).status, 200);
    assert.deepEqual(await deleted(blocId, { field_1: "X" }, cork.token), [adminCork, ownCork]);
    assert.deepEqual(await storedIds(blocId), [adminDublin, ownDublin]);
    assert.deepEqual(await deleted(blocId, { service_entry_row_id: adminDublin }, cork.token), [], "a record out of sight is not addressed by ID either");
    assert.deepEqual(await storedIds(blocId), [adminDublin, ownDublin]);
    await assertCountersEqualRecount(server.ctx.store);
  });
});

describe("events: record.deleted and record.restored", () => {
  test("webhooks subscribed to them receive both; live streams only of readers who saw the record", async () => {
    const bloc = await server.call("POST", "/api/admin/blocs", {
      json: { name: "Evented", fields: [{ name: "Part" }, { name: "Site", applyProfileFilter: true }] },
    });
    const blocId = bloc.json.id as string;
    const receiver = await Receiver.start();
    receivers.push(receiver);
    const hook = await server.call("POST", "/api/admin/webhooks", {
      json: { url: receiver.url, blocs: [blocId], events: ["record.deleted", "record.restored"], secret: "a-webhook-secret-of-some-length" },
    });
    assert.equal(hook.status, 201, hook.text);

    const dublin = await addMember(server, { blocId, read: true });
    await server.call("PUT", `/api/admin/users/${dublin.id}`, { json: { profile: ["Dublin"] } });
    const cork = await addMember(server, { blocId, read: true });
    await server.call("PUT", `/api/admin/users/${cork.id}`, { json: { profile: ["Cork"] } });
    const open = async (token: string): Promise<SseClient> => {
      const stream = await SseClient.open(server.url, `/api/events?blocId=${blocId}`, token);
      streams.push(stream);
      assert.equal(stream.status, 200);
      await stream.until(() => stream.events.some((e) => e.event === "ready"), "the ready event");
      return stream;
    };
    const dublinStream = await open(dublin.token);
    const corkStream = await open(cork.token);

    const id = await addRecord(server, blocId, { field_1: "E1", field_2: "Dublin" });
    assert.deepEqual(await deleted(blocId, { service_entry_row_id: id }), [id]);
    assert.equal((await restore(blocId, id)).status, 200);

    await receiver.until(() => receiver.acknowledged.length >= 2, "both events delivered");
    const [gone, back] = receiver.acknowledged.map((r) => r.body);
    assert.equal(gone!.type, "record.deleted");
    assert.equal(back!.type, "record.restored");
    assert.equal((gone as JsonBody).record.service_entry_row_id, id);
    assert.equal((gone as JsonBody).record.field_1, "E1");
    assert.equal((gone as JsonBody).actor.userId, "1");
    assert.ok(!receiver.received.some((r) => r.body.type === "record.added"), "the webhook filter left record.added out");

    await dublinStream.until(() => dublinStream.of("record.restored").length === 1, "the restore on Dublin's stream");
    assert.equal(dublinStream.of("record.deleted").length, 1);
    assert.equal(dublinStream.of("record.deleted")[0]!.body.record.service_entry_row_id, id);
    // A later record Cork sees proves its stream was live past the others.
    await addRecord(server, blocId, { field_1: "E2", field_2: "Cork" });
    await corkStream.until(() => corkStream.of("record.added").length === 1, "Cork's own record");
    assert.deepEqual(corkStream.of("record.deleted", "record.restored"), [], "Cork never saw E1, so hears nothing of it");
  });

  test("the webhook API accepts the new event types and refuses unknown ones", async () => {
    const bad = await server.call("POST", "/api/admin/webhooks", { json: { url: "http://127.0.0.1:9/", events: ["record.removed"] } });
    assert.equal(bad.status, 400, bad.text);
    const good = await server.call("POST", "/api/admin/webhooks", { json: { url: "http://127.0.0.1:9/", events: ["record.deleted"] } });
    assert.equal(good.status, 201, good.text);
    assert.equal((await server.call("DELETE", `/api/admin/webhooks/${good.json.id}`)).status, 204);
    const byDefault = await server.call("POST", "/api/admin/webhooks", { json: { url: "http://127.0.0.1:9/" } });
    assert.equal(byDefault.status, 201, byDefault.text);
    assert.deepEqual(byDefault.json.events, ["record.added", "record.updated", "record.deleted", "record.restored"]);
    assert.equal((await server.call("DELETE", `/api/admin/webhooks/${byDefault.json.id}`)).status, 204);
  });
});

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startServer, type TestServer } from "./support/server.js";
import { keysOf, storedRecords } from "./support/fixtures.js";

/**
 * add-data and update-records refuse every failing field at once (issue 21): `error`
 * (or update-records' `message`) names each failure, and `fields` gives each failing
 * field's own sentence, so that a form marks them all in one round trip. Nothing is stored.
 */

let server: TestServer;
let blocId: string;

before(async () => {
  server = await startServer();
  const bloc = await server.call("POST", "/api/admin/blocs", {
    json: {
      name: "Refusals",
      fields: [
        { name: "Part", required: true },
        { name: "Qty", type: "number" },
        { name: "Result", type: "select", options: ["pass", "fail"] },
        { name: "Note", maxLength: 3 },
        { name: "Serial", unique: true },
      ],
    },
  });
  assert.equal(bloc.status, 201, bloc.text);
  blocId = bloc.json.id as string;
});

after(async () => {
  await server.close();
});

function add(values: Record<string, unknown>) {
  return server.call("POST", "/api/add-data", { json: { scanStationID: blocId, dataToAdd: JSON.stringify(values) } });
}

const REQUIRED = 'field_1 (Part) breaks rule "required": a value must be given';
const NUMBER = 'field_2 (Qty) breaks rule "number": "many" is not a number';
const OPTIONS = 'field_3 (Result) breaks rule "options": "maybe" is not one of pass, fail';

test("two failing fields are refused in one answer, and nothing is stored", async () => {
  const reply = await add({ field_2: "many", field_3: "pass" });
  assert.equal(reply.status, 400, reply.text);
  assert.deepEqual(keysOf(reply.json), ["error", "fields"]);
  assert.deepEqual(reply.json.fields, { field_1: REQUIRED, field_2: NUMBER });
  assert.equal(reply.json.error, `${REQUIRED}; ${NUMBER}`);
  assert.equal((await storedRecords(server, blocId)).length, 0);
});

test("three failing fields are refused in one answer, in the bloc's field order", async () => {
  const reply = await add({ field_3: "maybe", field_2: "many", field_4: "long" });
  assert.equal(reply.status, 400, reply.text);
  assert.deepEqual(Object.keys(reply.json.fields), ["field_1", "field_2", "field_3", "field_4"]);
  assert.equal(reply.json.fields.field_4, 'field_4 (Note) breaks rule "maxLength": at most 3 characters');
  for (const sentence of Object.values(reply.json.fields)) assert.ok(reply.json.error.includes(sentence), `${String(sentence)} is in error`);
  assert.equal((await storedRecords(server, blocId)).length, 0);
});

test("one failing field keeps the refusal's text as before, with fields beside it", async () => {
  const reply = await add({ field_1: "P-1", field_2: "many" });
  assert.equal(reply.status, 400);
  assert.deepEqual(reply.json, { error: NUMBER, fields: { field_2: NUMBER } });
});

test("a taken unique value is refused with its field named under fields", async () => {
  const first = await add({ field_1: "P-1", field_5: "S-1" });
  assert.equal(first.status, 200, first.text);
  const reply = await add({ field_1: "P-2", field_5: "S-1" });
  assert.equal(reply.status, 400, reply.text);
  assert.deepEqual(keysOf(reply.json.fields), ["field_5"]);
  assert.equal(reply.json.error, reply.json.fields.field_5);
  assert.equal((await storedRecords(server, blocId)).length, 1);
});

test("update-records refuses every failing field at once under message, changing nothing", async () => {
  const before = await storedRecords(server, blocId);
  const reply = await server.call("POST", "/api/update-records-by-matching-values", {
    json: { blocId, fieldsToUpdate: { field_2: "many", field_3: "maybe", field_1: "" }, searchItems: { field_1: "P-1" } },
  });
  assert.equal(reply.status, 400, reply.text);
  assert.deepEqual(keysOf(reply.json), ["fields", "message"]);
  assert.deepEqual(reply.json.fields, { field_2: NUMBER, field_3: OPTIONS, field_1: REQUIRED });
  assert.equal(reply.json.message, `${NUMBER}; ${OPTIONS}; ${REQUIRED}`);
  assert.deepEqual(await storedRecords(server, blocId), before);
});

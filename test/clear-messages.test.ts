import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { addBloc, startServer, type TestServer } from "./support/server.js";
import { keysOf } from "./support/fixtures.js";

/**
 * Refusals that say what to send instead (issue 11, "Unclear messages"), in the
 * endpoint's own key, and schema refusals that read like the hand-made ones.
 */

let server: TestServer;
let blocId: string;

before(async () => {
  server = await startServer();
  blocId = await addBloc(server, "Messages", ["Part", "Site"]);
  const added = await server.call("POST", "/api/add-data", { json: { scanStationID: blocId, dataToAdd: { field_1: "P1", field_2: "North" } } });
  assert.equal(added.status, 200, added.text);
});

after(async () => {
  await server.close();
});

const BOUNDARY = "----clear-messages";

function multipart(parts: readonly { name: string; value: string; filename?: string }[]): string {
  return parts.map((p) => `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${p.name}"` +
    (p.filename === undefined ? "" : `; filename="${p.filename}"\r\nContent-Type: application/json`) +
    `\r\n\r\n${p.value}\r\n`).join("") + `--${BOUNDARY}--\r\n`;
}

async function records(): Promise<number> {
  return server.ctx.store.records.countRecords({ blocId });
}

describe("add-data: dataToAdd sent as a file part", () => {
  test("→ 400 {error} saying it came as a file part and how to send it as text, and nothing is added", async () => {
    const before = await records();
    const reply = await server.call("POST", "/api/add-data", {
      body: multipart([{ name: "scanStationID", value: blocId }, { name: "dataToAdd", value: '{"field_1":"x"}', filename: "data.json" }]),
      headers: { "content-type": `multipart/form-data; boundary=${BOUNDARY}` },
    });
    assert.equal(reply.status, 400, reply.text);
    assert.deepEqual(keysOf(reply.json), ["error"]);
    assert.match(reply.json.error, /dataToAdd arrived as a file part/);
    assert.match(reply.json.error, /text part/);
    assert.doesNotMatch(reply.json.error, /is required/);
    assert.equal(await records(), before);
  });

  test("the same form with dataToAdd as a text part is accepted", async () => {
    const reply = await server.call("POST", "/api/add-data", {
      body: multipart([{ name: "scanStationID", value: blocId }, { name: "dataToAdd", value: '{"field_1":"x"}' }]),
      headers: { "content-type": `multipart/form-data; boundary=${BOUNDARY}` },
    });
    assert.equal(reply.status, 200, reply.text);
  });

  test("a form without dataToAdd still says it is required", async () => {
    const reply = await server.call("POST", "/api/add-data", {
      body: multipart([{ name: "scanStationID", value: blocId }]),
      headers: { "content-type": `multipart/form-data; boundary=${BOUNDARY}` },
    });
    assert.equal(reply.status, 400, reply.text);
    assert.deepEqual(reply.json, { error: "dataToAdd is required" });
  });
});

describe("get-data-report: fieldsToReport", () => {
  for (const sent of ["ALL", "All", " all"]) {
    test(`${JSON.stringify(sent)} → 400 {error} hinting to send "all" in lower case`, async () => {
      const reply = await server.call("GET", "/api/get-data-report", { json: { stationID: blocId, fieldsToReport: sent } });
      assert.equal(reply.status, 400, reply.text);
      assert.deepEqual(keysOf(reply.json), ["error"]);
      assert.match(reply.json.error, /send "all" \(in lower case\)/);
    });
  }

  test("any other string that is not JSON → 400 {error} with the same hint", async () => {
    const reply = await server.call("GET", "/api/get-data-report", { json: { stationID: blocId, fieldsToReport: "{field_1: true}" } });
    assert.equal(reply.status, 400, reply.text);
    assert.match(reply.json.error, /fieldsToReport is neither "all" nor valid JSON .*send "all"/);
  });

  test('"all" is accepted', async () => {
    const reply = await server.call("GET", "/api/get-data-report", { json: { stationID: blocId, fieldsToReport: "all" } });
    assert.equal(reply.status, 200, reply.text);
  });
});

describe("get-data-report: filterDataToQuery values must be arrays", () => {
  const cases: [string, unknown][] = [
    ["JSON-encoded, as the spec sends it", JSON.stringify({ filterDataToQuery: { field_1: "P1" } })],
    ["as an object", { filterDataToQuery: { field_1: "P1" } }],
  ];
  for (const [name, dataFilteringData] of cases) {
    test(`{"field_1": "P1"} ${name} → 400 {error} naming the field and asking for an array`, async () => {
      const reply = await server.call("GET", "/api/get-data-report", { json: { stationID: blocId, fieldsToReport: "all", dataFilteringData } });
      assert.equal(reply.status, 400, reply.text);
      assert.deepEqual(keysOf(reply.json), ["error"]);
      assert.match(reply.json.error, /dataFilteringData\.filterDataToQuery\.field_1 must be an array of accepted values, got "P1"/);
    });
  }

  test('{"field_1": ["P1"]} is accepted and filters', async () => {
    const reply = await server.call("GET", "/api/get-data-report", {
      json: { stationID: blocId, fieldsToReport: "all", dataFilteringData: JSON.stringify({ filterDataToQuery: { field_1: ["P1"] } }) },
    });
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.json.data.length, 1);
  });
});

describe("schema refusals name the parameter, what it must be and what came", () => {
  const cases: [string, string, string, unknown, "error" | "message", RegExp][] = [
    ["get-data blocId true", "GET", "/api/get-data", { blocId: true }, "error", /^blocId must be a string or a whole number, got true$/],
    ["get-data resultLimit \"x\"", "GET", "/api/get-data", { blocId: "b", resultLimit: "x" }, "error", /^resultLimit must be a whole number from 1 to \d+, got "x"$/],
    ["get-data reverse \"yes\"", "POST", "/api/get-data", { blocId: "b", reverse: "yes" }, "error", /^reverse must be true or false, got "yes"$/],
    ["report responseType 5", "GET", "/api/get-data-report", { stationID: "b", fieldsToReport: "all", responseType: 5 }, "error", /^responseType must be "blob" \(for \.xlsx\), "csv" or "json", got 5$/],
    ["add-data dataToAdd 5", "POST", "/api/add-data", { scanStationID: "b", dataToAdd: 5 }, "error", /^dataToAdd must be a JSON-encoded object/],
    ["update searchItems value an object", "POST", "/api/update-records-by-matching-values",
      { blocId: "b", fieldsToUpdate: { field_1: "a" }, searchItems: { field_1: { $ne: 1 } } }, "message", /^searchItems\.field_1 must be a string, number, boolean or null, got an object$/],
    ["update without searchItems: the spec's text", "POST", "/api/update-records-by-matching-values",
      { blocId: "b", fieldsToUpdate: { field_1: "a" } }, "error", /^Search Key\/Value pairs or Bloc ID or Search Fields to update have not been provided$/],
    ["update with blocId null: the spec's text", "POST", "/api/update-records-by-matching-values",
      { blocId: null, fieldsToUpdate: { field_1: "a" }, searchItems: { field_1: "b" } }, "error", /^Search Key\/Value pairs/],
    ["get-data without blocId", "GET", "/api/get-data", { resultLimit: 5 }, "error", /^blocId is required$/],
  ];
  for (const [name, method, path, json, key, text] of cases) {
    test(`${name} → 400 {${key}}`, async () => {
      const reply = await server.call(method, path, { json });
      assert.equal(reply.status, 400, reply.text);
      assert.deepEqual(keysOf(reply.json), [key]);
      assert.match(reply.json[key], text);
    });
  }

  test("the query string is validated like a body: get-data?blocId=…&reverse=maybe → 400 {error}", async () => {
    const reply = await server.call("GET", `/api/get-data?blocId=${encodeURIComponent(blocId)}&reverse=maybe`);
    assert.equal(reply.status, 400, reply.text);
    assert.deepEqual(reply.json, { error: 'reverse must be true or false, got "maybe"' });
  });

  test("a JSON body without a Content-Type is validated too", async () => {
    const reply = await server.call("POST", "/api/add-data", { body: JSON.stringify({ scanStationID: blocId, dataToAdd: [] }) });
    assert.equal(reply.status, 400, reply.text);
    assert.match(reply.json.error, /^dataToAdd must be a JSON-encoded object/);
  });
});

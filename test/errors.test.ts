import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { call, type Reply } from "./support/http.js";
import { addBloc, addMember, startServer, type Member, type TestServer } from "./support/server.js";
import { keysOf } from "./support/fixtures.js";

const DEBUG_KEYS = ["line", "file", "trace"];
const UPDATE = "/api/update-records-by-matching-values";
/** A valid JSON body a little over the 1 MiB limit. */
const OVERSIZED = JSON.stringify({ padding: "x".repeat(1024 * 1024 + 100) });

interface Probe {
  readonly name: string;
  readonly status: number;
  readonly key: "error" | "message";
  send(server: TestServer): Promise<Reply>;
}

let plain: TestServer;
let debug: TestServer;
const blocs = new Map<TestServer, string>();
const members = new Map<TestServer, Member>();

before(async () => {
  [plain, debug] = await Promise.all([startServer(), startServer({ BLOC_DEBUG: "1" })]);
  for (const server of [plain, debug]) {
    const blocId = await addBloc(server, "Errors", ["A"]);
    blocs.set(server, blocId);
    members.set(server, await addMember(server, { blocId, read: false }));
  }
});

after(async () => {
  await Promise.all([plain.close(), debug.close()]);
});

const JSON_TYPE = { "content-type": "application/json" };

/** One failure of each kind on each endpoint, with the status and key it must answer. */
const probes: Probe[] = [
  { name: "add-data unknown slug", status: 400, key: "error",
    send: (s) => s.call("POST", "/api/add-data", { json: { scanStationID: blocs.get(s), dataToAdd: { nope: 1 } } }) },
  { name: "add-data malformed JSON", status: 400, key: "error",
    send: (s) => s.call("POST", "/api/add-data", { body: "{", headers: JSON_TYPE }) },
  { name: "add-data no permission", status: 403, key: "error",
    send: (s) => s.call("POST", "/api/add-data", { json: { scanStationID: blocs.get(s), dataToAdd: {} }, token: members.get(s)!.token }) },
  { name: "add-data no token", status: 401, key: "error",
    send: (s) => call(s.url, "POST", "/api/add-data", { json: { scanStationID: blocs.get(s), dataToAdd: {} } }) },
  { name: "get-data bad resultLimit", status: 400, key: "error",
    send: (s) => s.call("GET", "/api/get-data", { json: { blocId: blocs.get(s), resultLimit: 0 } }) },
  { name: "get-data impossible date", status: 400, key: "error",
    send: (s) => s.call("GET", "/api/get-data", { json: { blocId: blocs.get(s), fromDate: "2026-02-30" } }) },
  { name: "get-data malformed JSON", status: 400, key: "message",
    send: (s) => s.call("GET", "/api/get-data", { body: "{\"blocId\": 1} x", headers: JSON_TYPE }) },
  { name: "get-data no access", status: 401, key: "error",
    send: (s) => s.call("GET", "/api/get-data", { json: { blocId: blocs.get(s) }, token: members.get(s)!.token }) },
  { name: "get-data bad token", status: 401, key: "error",
    send: (s) => s.call("GET", "/api/get-data", { json: { blocId: blocs.get(s) }, token: "bds_nope-nope-nope-nope-nope-nope-nope-nope" }) },
  { name: "get-data-report missing fieldsToReport", status: 400, key: "error",
    send: (s) => s.call("GET", "/api/get-data-report", { json: { stationID: blocs.get(s) } }) },
  { name: "get-data-report unknown slug", status: 400, key: "error",
    send: (s) => s.call("GET", "/api/get-data-report", { json: { stationID: blocs.get(s), fieldsToReport: { zz: true } } }) },
  { name: "get-data-report no access", status: 401, key: "error",
    send: (s) => s.call("GET", "/api/get-data-report", { json: { stationID: blocs.get(s), fieldsToReport: "all" }, token: members.get(s)!.token }) },
  { name: "update-records missing parameters", status: 400, key: "error",
    send: (s) => s.call("POST", UPDATE, { json: { blocId: blocs.get(s) } }) },
  { name: "update-records unknown slug", status: 400, key: "message",
    send: (s) => s.call("POST", UPDATE, { json: { blocId: blocs.get(s), fieldsToUpdate: { zz: 1 }, searchItems: { field_1: "a" } } }) },
  { name: "update-records malformed JSON", status: 400, key: "message",
    send: (s) => s.call("POST", UPDATE, { body: "[", headers: JSON_TYPE }) },
  { name: "update-records no access", status: 401, key: "message",
    send: (s) => s.call("POST", UPDATE, {
      json: { blocId: blocs.get(s), fieldsToUpdate: { field_1: "b" }, searchItems: { field_1: "a" } }, token: members.get(s)!.token,
    }) },
  { name: "update-records no token", status: 401, key: "message",
    send: (s) => call(s.url, "POST", UPDATE, { json: { blocId: blocs.get(s), fieldsToUpdate: { field_1: "b" }, searchItems: { field_1: "a" } } }) },
  { name: "admin bad body", status: 400, key: "error",
    send: (s) => s.call("POST", "/api/admin/users", { json: { name: "" } }) },
  { name: "admin unknown bloc", status: 404, key: "error",
    send: (s) => s.call("GET", "/api/admin/blocs/no-such-bloc") },
  { name: "admin as a member", status: 403, key: "error",
    send: (s) => s.call("GET", "/api/admin/blocs", { token: members.get(s)!.token }) },
  { name: "admin conflict", status: 409, key: "error",
    send: async (s) => {
      await s.call("POST", "/api/admin/blocs", { json: { name: "Twice", id: "twice" } });
      return s.call("POST", "/api/admin/blocs", { json: { name: "Twice", id: "twice" } });
    } },
  { name: "add-data unsupported media type", status: 415, key: "error",
    send: (s) => s.call("POST", "/api/add-data", { body: "<x/>", headers: { "content-type": "application/xml" } }) },
  { name: "update-records oversized body", status: 413, key: "message",
    send: (s) => s.call("POST", UPDATE, { body: OVERSIZED, headers: JSON_TYPE }) },
];

describe("debug fields", () => {
  for (const probe of probes) {
    test(`without BLOC_DEBUG, ${probe.name} → ${probe.status} {${probe.key}} and no line/file/trace`, async () => {
      const reply = await probe.send(plain);
      assert.equal(reply.status, probe.status, reply.text.slice(0, 300));
      assert.deepEqual(keysOf(reply.json), [probe.key]);
      assert.equal(typeof reply.json[probe.key], "string");
      for (const key of DEBUG_KEYS) assert.equal(key in reply.json, false, `${key} must not appear`);
    });
  }

  test("with BLOC_DEBUG=1 a failure carries line, file and trace beside the endpoint's key", async () => {
    const reply = await probes[0]!.send(debug);
    assert.equal(reply.status, 400, reply.text);
    assert.equal(typeof reply.json.error, "string");
    for (const key of DEBUG_KEYS) assert.equal(typeof reply.json[key], "string", `${key} appears with BLOC_DEBUG=1`);
    assert.notEqual(reply.json.trace, "");
  });

  test("with BLOC_DEBUG=1 the spec's exact refusal texts are unchanged", async () => {
    const reply = await debug.call("POST", "/api/add-data", {
      json: { scanStationID: blocs.get(debug), dataToAdd: {} }, token: members.get(debug)!.token,
    });
    assert.equal(reply.status, 403);
    assert.equal(reply.json.error, "You do not have permission to add or edit data on this form.");
  });

  test("BLOC_DEBUG=0 is the same as unset", async () => {
    const zero = await startServer({ BLOC_DEBUG: "0" });
    try {
      const reply = await zero.call("GET", "/api/get-data", { json: { resultLimit: 5 } });
      assert.equal(reply.status, 400, reply.text);
      assert.deepEqual(keysOf(reply.json), ["error"]);
    } finally {
      await zero.close();
    }
  });
});

describe("unknown routes", () => {
  for (const [method, url] of [["GET", "/api/nope"], ["POST", "/api/get-everything"], ["GET", "/"], ["DELETE", "/api/add-data"]]) {
    test(`${method} ${url} → 404 JSON {error}, with or without a token`, async () => {
      for (const reply of [await plain.call(method!, url!), await call(plain.url, method!, url!)]) {
        assert.equal(reply.status, 404, reply.text);
        assert.match(String(reply.headers["content-type"]), /^application\/json/);
        assert.deepEqual(keysOf(reply.json), ["error"]);
        assert.equal(typeof reply.json.error, "string");
      }
    });
  }
});

describe("oversized bodies", () => {
  const cases: [string, string, "error" | "message"][] = [
    ["POST", "/api/add-data", "error"],
    ["POST", "/api/get-data", "error"],
    ["GET", "/api/get-data", "error"],
    ["POST", "/api/get-data-report", "error"],
    ["GET", "/api/get-data-report", "error"],
    ["POST", UPDATE, "message"],
    ["POST", "/api/admin/blocs", "error"],
  ];
  for (const [method, url, key] of cases) {
    test(`${method} ${url} with a body over 1 MiB → 413 {${key}}`, async () => {
      const before = await plain.ctx.store.records.countRecords({ blocId: blocs.get(plain)! });
      const reply = await plain.call(method, url, { body: OVERSIZED, headers: JSON_TYPE });
      assert.equal(reply.status, 413, reply.text.slice(0, 300));
      assert.deepEqual(keysOf(reply.json), [key]);
      assert.equal(typeof reply.json[key], "string");
      assert.equal(await plain.ctx.store.records.countRecords({ blocId: blocs.get(plain)! }), before);
    });
  }

  test("a body just under 1 MiB is accepted", async () => {
    // Padding outside the record: one value may hold at most BLOC_MAX_VALUE_BYTES (64 KiB).
    const padding = "y".repeat(1024 * 1024 - 200);
    const reply = await plain.call("POST", "/api/add-data", {
      json: { scanStationID: blocs.get(plain), dataToAdd: { field_1: "small" }, padding },
    });
    assert.equal(reply.status, 200, reply.text.slice(0, 300));
  });
});

describe("unsupported content types", () => {
  const cases: [string, "error" | "message"][] = [
    ["/api/add-data", "error"],
    ["/api/get-data", "error"],
    ["/api/get-data-report", "error"],
    [UPDATE, "message"],
    ["/api/admin/blocs", "error"],
  ];
  for (const [url, key] of cases) {
    test(`POST ${url} as application/xml → 415 {${key}}`, async () => {
      const reply = await plain.call("POST", url, { body: "<bloc/>", headers: { "content-type": "application/xml" } });
      assert.equal(reply.status, 415, reply.text);
      assert.deepEqual(keysOf(reply.json), [key]);
      assert.equal(typeof reply.json[key], "string");
    });
  }

  test("JSON sent as text/plain is refused (415), as docs/endpoints.md says", async () => {
    const reply = await plain.call("POST", "/api/add-data", {
      body: JSON.stringify({ scanStationID: blocs.get(plain), dataToAdd: { field_1: "plain" } }),
      headers: { "content-type": "text/plain" },
    });
    assert.equal(reply.status, 415, reply.text);
    assert.deepEqual(keysOf(reply.json), ["error"]);
  });

  test("without a token the answer is 401, whatever the content type", async () => {
    const reply = await call(plain.url, "POST", UPDATE, { body: "<bloc/>", headers: { "content-type": "application/xml" } });
    assert.equal(reply.status, 401, reply.text);
    assert.deepEqual(keysOf(reply.json), ["message"]);
  });
});

import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { addBloc, addMember, startServer, type Member, type TestServer } from "./support/server.js";
import { keysOf } from "./support/fixtures.js";
import { rawRequest, type RawReply } from "./support/raw-http.js";

/**
 * Issue 9: the body limit (BLOC_MAX_BODY_BYTES → 413, one text everywhere, the connection
 * closed when the body was not read) and the content-type rule (docs/endpoints.md: JSON, a body
 * without a type read as JSON, multipart for add-data only, anything else 415), over a
 * bare socket that sends its whole body before reading, as Python's `requests` does.
 */

const UPDATE = "/api/update-records-by-matching-values";
const MiB = 1024 * 1024;

let server: TestServer;
let blocId: string;
let writer: Member;

before(async () => {
  server = await startServer();
  blocId = await addBloc(server, "Limits", ["Part"]);
  writer = await addMember(server, { blocId, read: true, add: true, update: true });
});

after(async () => {
  await server.close();
});

function records(): Promise<number> {
  return server.ctx.store.records.countRecords({ blocId });
}

/** A valid JSON body of about `size` bytes naming the bloc under every endpoint's key. */
function bigBody(size: number): string {
  return JSON.stringify({
    blocId, stationID: blocId, scanStationID: blocId, fieldsToReport: "all",
    dataToAdd: { field_1: "P" }, fieldsToUpdate: { field_1: "Q" }, searchItems: { field_1: "P" },
    padding: "x".repeat(size),
  });
}

const ENDPOINTS: readonly [string, string, "error" | "message"][] = [
  ["GET", "/api/get-data", "error"],
  ["POST", "/api/get-data", "error"],
  ["GET", "/api/get-data-report", "error"],
  ["POST", "/api/get-data-report", "error"],
  ["POST", "/api/add-data", "error"],
  ["POST", UPDATE, "message"],
];

describe("a 2 MiB body against the default 1 MiB limit", () => {
  const texts = new Set<string>();

  for (const [method, path, key] of ENDPOINTS) {
    for (const chunked of [false, true]) {
      test(`${method} ${path} (${chunked ? "chunked" : "with a length"}) → a prompt 413 {${key}}, Connection: close, the connection closed`, async () => {
        const before = await records();
        const reply = await rawRequest(server.url, {
          method, path, chunked, body: bigBody(2 * MiB),
          headers: { authorization: `Bearer ${writer.token}`, "content-type": "application/json" },
        });
        assert.equal(reply.status, 413, reply.text.slice(0, 300));
        assert.deepEqual(keysOf(reply.json), [key]);
        assert.equal(reply.headers.connection, "close");
        assert.ok(reply.closed, "the server closed the connection after its answer");
        texts.add(reply.json[key] as string);
        assert.equal(await records(), before, "nothing stored");
      });
    }
  }

  test("every 413 above says the same", () => {
    assert.equal(texts.size, 1, [...texts].join(" | "));
    assert.match([...texts][0]!, /larger than 1048576 bytes/);
  });

  test("a refusal before the body is read (no token) also closes the connection", async () => {
    const reply = await rawRequest(server.url, {
      method: "POST", path: "/api/add-data", body: bigBody(2 * MiB), headers: { "content-type": "application/json" },
    });
    assert.equal(reply.status, 401, reply.text);
    assert.deepEqual(keysOf(reply.json), ["error"]);
    assert.equal(reply.headers.connection, "close");
    assert.ok(reply.closed);
  });

  test("a body that was read keeps the connection alive", async () => {
    const reply = await rawRequest(server.url, {
      method: "GET", path: "/api/get-data", body: JSON.stringify({ blocId }), untilClosed: false,
      headers: { authorization: `Bearer ${writer.token}`, "content-type": "application/json" },
    });
    assert.equal(reply.status, 200, reply.text);
    assert.notEqual(reply.headers.connection, "close");
  });
});

/** One request on each endpoint with the given content type; the body is valid JSON for it. */
async function send(method: string, path: string, contentType: string | undefined): Promise<RawReply> {
  const bodies: Record<string, unknown> = {
    "/api/get-data": { blocId },
    "/api/get-data-report": { stationID: blocId, fieldsToReport: "all" },
    "/api/add-data": { scanStationID: blocId, dataToAdd: { field_1: "typed" } },
    [UPDATE]: { blocId, fieldsToUpdate: { field_1: "typed" }, searchItems: { field_1: "never" } },
  };
  return rawRequest(server.url, {
    method, path, body: JSON.stringify(bodies[path]), untilClosed: false,
    headers: { authorization: `Bearer ${writer.token}`, ...(contentType === undefined ? {} : { "content-type": contentType }) },
  });
}

const TYPED: readonly [string, string, "error" | "message"][] = [
  ["GET", "/api/get-data", "error"],
  ["POST", "/api/get-data", "error"],
  ["GET", "/api/get-data-report", "error"],
  ["POST", "/api/add-data", "error"],
  ["POST", UPDATE, "message"],
];

describe("content types", () => {
  const JSON_TYPES = [
    "application/json", "application/json; charset=utf-8", "Application/JSON; charset=\"UTF-8\"",
    "application/vnd.api+json", "application/merge-patch+json; charset=utf-8", undefined,
  ];
  for (const type of JSON_TYPES) {
    for (const [method, path] of TYPED) {
      test(`${method} ${path} as ${type ?? "no Content-Type"} is read as JSON`, async () => {
        const reply = await send(method, path, type);
        assert.equal(reply.status, 200, reply.text);
      });
    }
  }

  const REFUSED = [
    "text/plain", "text/plain; charset=utf-8", "application/xml", "text/csv", "application/x-www-form-urlencoded",
    "application/json; charset=iso-8859-1", "application/octet-stream", "application/jsonp",
  ];
  for (const type of REFUSED) {
    for (const [method, path, key] of TYPED) {
      test(`${method} ${path} as ${type} → 415 {${key}}, nothing stored`, async () => {
        const before = await records();
        const reply = await send(method, path, type);
        assert.equal(reply.status, 415, reply.text);
        assert.deepEqual(keysOf(reply.json), [key]);
        assert.equal(await records(), before);
      });
    }
  }

  for (const [method, path, key] of TYPED.filter(([, p]) => p !== "/api/add-data")) {
    test(`${method} ${path} as multipart/form-data → 415 {${key}}: only add-data takes it`, async () => {
      const reply = await rawRequest(server.url, {
        method, path, untilClosed: false,
        body: `--b\r\nContent-Disposition: form-data; name="blocId"\r\n\r\n${blocId}\r\n--b--\r\n`,
        headers: { authorization: `Bearer ${writer.token}`, "content-type": "multipart/form-data; boundary=b" },
      });
      assert.equal(reply.status, 415, reply.text);
      assert.deepEqual(keysOf(reply.json), [key]);
    });
  }

  test("add-data as multipart/form-data without a boundary → 415 {error}, not 500", async () => {
    const before = await records();
    const reply = await rawRequest(server.url, {
      method: "POST", path: "/api/add-data", untilClosed: false,
      body: `--x\r\nContent-Disposition: form-data; name="scanStationID"\r\n\r\n${blocId}\r\n--x--\r\n`,
      headers: { authorization: `Bearer ${writer.token}`, "content-type": "multipart/form-data" },
    });
    assert.equal(reply.status, 415, reply.text);
    assert.deepEqual(keysOf(reply.json), ["error"]);
    assert.match(reply.json.error, /boundary/);
    assert.equal(await records(), before);
  });

  test("an empty body is not refused for its type: there is nothing to read", async () => {
    const reply = await rawRequest(server.url, {
      method: "GET", path: `/api/get-data?blocId=${encodeURIComponent(blocId)}`, body: "", untilClosed: false,
      headers: { authorization: `Bearer ${writer.token}`, "content-type": "text/plain" },
    });
    assert.equal(reply.status, 200, reply.text);
  });

  test("a JSON body that is not UTF-8 → 400 {error}", async () => {
    const reply = await rawRequest(server.url, {
      method: "POST", path: "/api/add-data", untilClosed: false,
      body: Buffer.concat([Buffer.from(`{"scanStationID":"${blocId}","dataToAdd":{"field_1":"`), Buffer.from([0xff, 0xfe]), Buffer.from("\"}}")]),
      headers: { authorization: `Bearer ${writer.token}`, "content-type": "application/json" },
    });
    assert.equal(reply.status, 400, reply.text);
    assert.deepEqual(keysOf(reply.json), ["error"]);
  });
});

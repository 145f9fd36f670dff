import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import { addMember, startServer, type Member, type TestServer } from "./support/server.js";
import { keysOf } from "./support/fixtures.js";
import { rawRequest } from "./support/raw-http.js";

/**
 * Issue 9: the configurable limits (fields per record, value length, resultLimit, report
 * page, multipart parts and text bytes, body and header deadlines, keep-alive), the ID and
 * token length bounds (finding 1), and what used to answer 500 (finding 6): nested values
 * in parameters, multipart without a boundary, files written before the permission check.
 * Small limits make the server under test quick to exhaust.
 */

const UPDATE = "/api/update-records-by-matching-values";
const LIMITS = {
  BLOC_MAX_BODY_BYTES: "65536",
  BLOC_MAX_VALUE_BYTES: "1024",
  BLOC_MAX_FIELDS_PER_RECORD: "3",
  BLOC_MAX_RESULT_LIMIT: "5",
  BLOC_MAX_REPORT_PAGE: "7",
  BLOC_MAX_PARTS: "6",
  BLOC_REQUEST_TIMEOUT_MS: "1500",
  BLOC_UPLOAD_TIMEOUT_MS: "1500",
  BLOC_HEADERS_TIMEOUT_MS: "1000",
  BLOC_IDLE_TIMEOUT_MS: "1000",
};

let server: TestServer;
let blocId: string;
let writer: Member;
let reader: Member;

before(async () => {
  server = await startServer(LIMITS);
  const created = await server.call("POST", "/api/admin/blocs", {
    json: { name: "Limited", fields: [{ name: "A" }, { name: "B" }, { name: "C" }, { name: "D" }, { name: "Photo", type: "file" }] },
  });
  assert.equal(created.status, 201, created.text);
  blocId = created.json.id as string;
  writer = await addMember(server, { blocId, read: true, add: true, update: true });
  reader = await addMember(server, { blocId, read: true });
});

after(async () => {
  await server.close();
});

function records(): Promise<number> {
  return server.ctx.store.records.countRecords({ blocId });
}

const add = (dataToAdd: unknown, token = writer.token) =>
  server.call("POST", "/api/add-data", { token, json: { scanStationID: blocId, dataToAdd } });

describe("fields per record and value length", () => {
  test("dataToAdd naming more than BLOC_MAX_FIELDS_PER_RECORD fields → 400 {error}, nothing stored", async () => {
    const before = await records();
    const reply = await add({ field_1: "a", field_2: "b", field_3: "c", field_4: "d" });
    assert.equal(reply.status, 400, reply.text);
    assert.deepEqual(keysOf(reply.json), ["error"]);
    assert.match(reply.json.error, /at most 3/);
    assert.equal(await records(), before);
    assert.equal((await add({ field_1: "a", field_2: "b", field_3: "c" })).status, 200);
  });

  test("a value over BLOC_MAX_VALUE_BYTES (counted in UTF-8) → 400 {error}, nothing stored", async () => {
    const before = await records();
    for (const value of ["x".repeat(1025), "é".repeat(513)]) {
      const reply = await add({ field_1: value });
      assert.equal(reply.status, 400, reply.text);
      assert.deepEqual(keysOf(reply.json), ["error"]);
      assert.match(reply.json.error, /field_1 is longer than 1024 bytes/);
    }
    assert.equal(await records(), before);
    assert.equal((await add({ field_1: "é".repeat(512) })).status, 200, "exactly 1024 bytes is accepted");
  });

  test("update values and search values over the limit → 400 {message}, nothing changed", async () => {
    await add({ field_1: "keep" });
    for (const json of [
      { blocId, fieldsToUpdate: { field_2: "y".repeat(1025) }, searchItems: { field_1: "keep" } },
      { blocId, fieldsToUpdate: { field_2: "z" }, searchItems: { field_1: "k".repeat(1025) } },
      { blocId, fieldsToUpdate: { field_1: "1", field_2: "2", field_3: "3", field_4: "4" }, searchItems: { field_1: "keep" } },
    ]) {
      const reply = await server.call("POST", UPDATE, { token: writer.token, json });
      assert.equal(reply.status, 400, reply.text);
      assert.deepEqual(keysOf(reply.json), ["message"]);
    }
    const unchanged = await server.call("POST", UPDATE, { token: writer.token, json: { blocId, fieldsToUpdate: { field_4: "seen" }, searchItems: { field_2: "z" } } });
    assert.deepEqual(unchanged.json, { updated_record_ids: [] }, "no record got field_2 = z");
  });
});

describe("page sizes", () => {
  test("resultLimit over BLOC_MAX_RESULT_LIMIT → 400 {error}; at it → 200", async () => {
    const over = await server.call("GET", "/api/get-data", { token: reader.token, json: { blocId, resultLimit: 6 } });
    assert.equal(over.status, 400, over.text);
    assert.match(over.json.error, /resultLimit must be a whole number from 1 to 5/);
    assert.equal((await server.call("GET", "/api/get-data", { token: reader.token, json: { blocId, resultLimit: 5 } })).status, 200);
  });

  test("a report page over BLOC_MAX_REPORT_PAGE → 400 {error}, with or without currentPage; at it → 200", async () => {
    for (const paging of [{ currentPage: 1, resultLimit: 8 }, { resultLimit: 8 }]) {
      const reply = await server.call("GET", "/api/get-data-report", {
        token: reader.token, json: { stationID: blocId, fieldsToReport: "all", dataFilteringData: paging },
      });
      assert.equal(reply.status, 400, reply.text);
      assert.match(reply.json.error, /dataFilteringData.resultLimit must be a whole number from 1 to 7/);
    }
    const ok = await server.call("GET", "/api/get-data-report", {
      token: reader.token, json: { stationID: blocId, fieldsToReport: "all", dataFilteringData: { currentPage: 1, resultLimit: 7 } },
    });
    assert.equal(ok.status, 200, ok.text);
  });
});

/** A multipart/form-data body from text parts and file parts, in the order given. */
function multipart(parts: readonly (readonly [string, string | Buffer, string?])[]): Buffer {
  const chunks: Buffer[] = [];
  for (const [name, value, filename] of parts) {
    const disposition = filename === undefined ? `form-data; name="${name}"` : `form-data; name="${name}"; filename="${filename}"`;
    const type = filename === undefined ? "" : "Content-Type: application/octet-stream\r\n";
    chunks.push(Buffer.from(`--B\r\nContent-Disposition: ${disposition}\r\n${type}\r\n`), Buffer.from(value), Buffer.from("\r\n"));
  }
  chunks.push(Buffer.from("--B--\r\n"));
  return Buffer.concat(chunks);
}

const MULTIPART = { "content-type": "multipart/form-data; boundary=B" };

async function tmpEntries(): Promise<string[]> {
  return fs.readdir(path.join(server.dir, "files", "tmp")).catch(() => []);
}

describe("multipart limits", () => {
  test("text parts together over BLOC_MAX_BODY_BYTES → 413 {error} with the body limit's text, nothing stored", async () => {
    const before = await records();
    const filler = "f".repeat(30_000);
    const reply = await rawRequest(server.url, {
      method: "POST", path: "/api/add-data", headers: { authorization: `Bearer ${writer.token}`, ...MULTIPART },
      body: multipart([["scanStationID", blocId], ["dataToAdd", "{}"], ["a", filler], ["b", filler], ["c", filler]]),
    });
    assert.equal(reply.status, 413, reply.text);
    assert.deepEqual(reply.json, { error: "The request body is larger than 65536 bytes (BLOC_MAX_BODY_BYTES)" });
    const json = await server.call("POST", "/api/add-data", { token: writer.token, json: { scanStationID: blocId, dataToAdd: {}, padding: "p".repeat(70_000) } });
    assert.deepEqual(json.json, reply.json, "the same text as a JSON body over the limit");
    assert.equal(await records(), before);
  });

  test("more parts than BLOC_MAX_PARTS → 413 {error}, nothing stored", async () => {
    const before = await records();
    const parts: [string, string][] = [["scanStationID", blocId], ["dataToAdd", "{}"]];
    for (let i = 0; i < 6; i += 1) parts.push([`extra${i}`, "x"]);
    const reply = await rawRequest(server.url, {
      method: "POST", path: "/api/add-data", headers: { authorization: `Bearer ${writer.token}`, ...MULTIPART },
      body: multipart(parts),
    });
    assert.equal(reply.status, 413, reply.text);
    assert.match(reply.json.error, /more than 6 parts/);
    assert.equal(await records(), before);
  });

  test("a file part is refused before a byte of it is written when the token may not add to the bloc", async () => {
    const before = await records();
    let duringUpload: string[] = [];
    const body = multipart([["scanStationID", blocId], ["dataToAdd", "{}"], ["field_5", Buffer.alloc(40_000, 7), "big.bin"]]);
    const reply = await rawRequest(server.url, {
      method: "POST", path: "/api/add-data", headers: { authorization: `Bearer ${reader.token}`, ...MULTIPART },
      body, splitAt: body.length - 10_000,
      // Half the file is sent; an upload written before the check would be in the tmp folder now.
      pause: async () => { await new Promise((r) => setTimeout(r, 300)); duringUpload = await tmpEntries(); },
    });
    assert.equal(reply.status, 403, reply.text);
    assert.deepEqual(keysOf(reply.json), ["error"]);
    assert.deepEqual(duringUpload, [], "nothing was written while the file arrived");
    assert.equal(await records(), before);
  });

  test("a truncated or malformed multipart body → 400 {error}, not 500", async () => {
    for (const body of [
      `--B\r\nContent-Disposition: form-data; name="scanStationID"\r\n\r\n${blocId}`,
      "no boundary in sight",
    ]) {
      const reply = await rawRequest(server.url, {
        method: "POST", path: "/api/add-data", headers: { authorization: `Bearer ${writer.token}`, ...MULTIPART }, body, untilClosed: false,
      });
      assert.equal(reply.status, 400, reply.text);
      assert.deepEqual(keysOf(reply.json), ["error"]);
    }
  });

  test("a file part naming a field that is not a file field is refused before it is written", async () => {
    const reply = await rawRequest(server.url, {
      method: "POST", path: "/api/add-data", headers: { authorization: `Bearer ${writer.token}`, ...MULTIPART },
      body: multipart([["scanStationID", blocId], ["dataToAdd", "{}"], ["field_1", Buffer.alloc(1000, 1), "a.bin"]]),
    });
    assert.equal(reply.status, 400, reply.text);
    assert.match(reply.json.error, /not a file field/);
    assert.deepEqual(await tmpEntries(), []);
  });
});

describe("deadlines", () => {
  for (const [method, p, key, json] of [
    ["GET", "/api/get-data", "error", { blocId }],
    ["POST", UPDATE, "message", { blocId, fieldsToUpdate: { field_1: "t" }, searchItems: { field_1: "t" } }],
  ] as const) {
    test(`${method} ${p} with a body trickled at 1 byte per 2 s → 408 {${key}} after BLOC_REQUEST_TIMEOUT_MS, connection closed`, async () => {
      const reply = await rawRequest(server.url, {
        method, path: p, body: JSON.stringify(json), trickle: { bytes: 1, everyMs: 2000 },
        headers: { authorization: `Bearer ${writer.token}`, "content-type": "application/json" },
      });
      assert.equal(reply.status, 408, reply.text);
      assert.deepEqual(keysOf(reply.json), [key]);
      assert.match(reply.json[key], /BLOC_REQUEST_TIMEOUT_MS/);
      assert.equal(reply.headers.connection, "close");
      assert.ok(reply.closed);
    });
  }

  test("a multipart upload trickled past BLOC_UPLOAD_TIMEOUT_MS → 408 {error}, nothing stored, no file left", async () => {
    const before = await records();
    const reply = await rawRequest(server.url, {
      method: "POST", path: "/api/add-data", headers: { authorization: `Bearer ${writer.token}`, ...MULTIPART },
      body: multipart([["scanStationID", blocId], ["dataToAdd", "{}"], ["field_5", Buffer.alloc(3000, 2), "slow.bin"]]),
      trickle: { bytes: 100, everyMs: 400 },
    });
    assert.equal(reply.status, 408, reply.text);
    assert.match(reply.json.error, /BLOC_UPLOAD_TIMEOUT_MS/);
    assert.ok(reply.closed);
    assert.equal(await records(), before);
    await new Promise((r) => setTimeout(r, 500));
    assert.deepEqual(await tmpEntries(), []);
  });

  test("headers trickled past BLOC_HEADERS_TIMEOUT_MS → 408 JSON with both keys (no route is known yet), connection closed", async () => {
    const url = new URL(server.url);
    const socket = net.connect(Number(url.port), url.hostname);
    const answer = await new Promise<string>((resolve, reject) => {
      let text = "";
      const guard = setTimeout(() => { socket.destroy(); reject(new Error(`no answer: ${text}`)); }, 15_000);
      socket.on("data", (c: Buffer) => { text += c.toString(); });
      socket.on("close", () => { clearTimeout(guard); resolve(text); });
      socket.on("error", () => undefined);
      socket.write("GET /healthz HTTP/1.1\r\nHost: x\r\n");
      const drip = setInterval(() => { if (socket.writable) socket.write("X-Slow: 1\r\n"); else clearInterval(drip); }, 300);
      socket.on("close", () => clearInterval(drip));
    });
    assert.match(answer, /^HTTP\/1\.1 408 /);
    assert.deepEqual(JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4)), {
      error: "The request did not arrive in time", message: "The request did not arrive in time",
    });
  });

  test("a kept-alive connection left idle is closed after BLOC_IDLE_TIMEOUT_MS", async () => {
    const reply = await rawRequest(server.url, { method: "GET", path: "/healthz" });
    assert.equal(reply.status, 200);
    assert.ok(reply.closed, "closed by the server while idle");
  });
});

describe("IDs and tokens past their maximum (finding 1)", () => {
  const long = "b".repeat(129);

  /** Counts calls of a store method while `work` runs; the real method still answers. */
  async function counting(method: "findBloc" | "findTokenByHash", work: () => Promise<void>): Promise<number> {
    const store = server.ctx.store as unknown as Record<string, (...args: unknown[]) => unknown>;
    const real = store[method]!;
    let calls = 0;
    store[method] = function (this: unknown, ...args: unknown[]) { calls += 1; return real.apply(this, args); };
    try {
      await work();
    } finally {
      store[method] = real;
    }
    return calls;
  }

  const cases: readonly [string, string, string, "error" | "message", (id: string) => unknown][] = [
    ["GET", "/api/get-data", "blocId", "error", (id) => ({ blocId: id })],
    ["GET", "/api/get-data-report", "stationID", "error", (id) => ({ stationID: id, fieldsToReport: "all" })],
    ["POST", "/api/add-data", "scanStationID", "error", (id) => ({ scanStationID: id, dataToAdd: {} })],
    ["POST", "/api/add-data", "jobID", "error", (id) => ({ scanStationID: blocId, jobID: id, dataToAdd: {} })],
    ["POST", UPDATE, "blocId", "message", (id) => ({ blocId: id, fieldsToUpdate: { field_1: "a" }, searchItems: { field_1: "b" } })],
  ];
  for (const [method, p, name, key, body] of cases) {
    test(`${method} ${p} with a ${name} of 129 characters → 400 {${key}} before any bloc lookup`, async () => {
      let reply: Awaited<ReturnType<TestServer["call"]>> | undefined;
      const lookups = await counting("findBloc", async () => {
        reply = await server.call(method, p, { token: writer.token, json: body(long) });
      });
      assert.equal(reply!.status, 400, reply!.text);
      assert.deepEqual(reply!.json, { [key]: `${name} is longer than 128 characters` });
      assert.equal(lookups, 0);
    });
  }

  test("a bloc ID of exactly 128 characters is looked up as usual (401: no such bloc)", async () => {
    const reply = await server.call("GET", "/api/get-data", { token: writer.token, json: { blocId: "b".repeat(128) } });
    assert.equal(reply.status, 401, reply.text);
  });

  test("admin paths and bodies with IDs of 129 characters → 400 {error}", async () => {
    for (const [method, p, json] of [
      ["GET", `/api/admin/blocs/${long}`, undefined],
      ["PUT", `/api/admin/blocs/${blocId}/access/${long}`, { read: true }],
      ["DELETE", `/api/admin/tokens/${long}`, undefined],
      ["GET", `/api/admin/blocs/${blocId}/records/${long}/history`, undefined],
      ["GET", `/api/admin/blocs/${long}/records/1/history`, undefined],
      ["POST", "/api/admin/blocs", { name: "Too long", id: long }],
      ["POST", `/api/admin/users/${writer.id}/tokens`, { blocs: [long] }],
    ] as const) {
      const reply = await server.call(method, p, json === undefined ? {} : { json });
      assert.equal(reply.status, 400, `${method} ${p}: ${reply.text}`);
      assert.deepEqual(keysOf(reply.json), ["error"]);
    }
  });

  test("a bearer token over 256 characters → 401 without a token lookup", async () => {
    let reply: Awaited<ReturnType<TestServer["call"]>> | undefined;
    const lookups = await counting("findTokenByHash", async () => {
      reply = await server.call("GET", "/api/get-data", { token: `bds_${"t".repeat(300)}`, json: { blocId } });
    });
    assert.equal(reply!.status, 401, reply!.text);
    assert.deepEqual(keysOf(reply!.json), ["error"]);
    assert.equal(lookups, 0);
  });
});

describe("nested values in parameters answer 400, not 500 (finding 6)", () => {
  const deep = (n: number): string => "[".repeat(n) + "]".repeat(n);
  const nested = deep(20_000);
  const cases: readonly [string, string, "error" | "message", (bloc: string) => string][] = [
    ["GET", "/api/get-data", "error", (bloc) => `{"blocId":"${bloc}","resultLimit":${nested}}`],
    ["GET", "/api/get-data", "error", (bloc) => `{"blocId":"${bloc}","currentPage":${nested}}`],
    ["GET", "/api/get-data", "error", (bloc) => `{"blocId":"${bloc}","reverse":${nested}}`],
    ["GET", "/api/get-data", "error", (bloc) => `{"blocId":"${bloc}","fromDate":${nested}}`],
    ["GET", "/api/get-data", "error", (bloc) => `{"blocId":"${bloc}","toDate":{"a":${nested}}}`],
    ["GET", "/api/get-data", "error", (_bloc) => `{"blocId":${nested}}`],
    ["GET", "/api/get-data-report", "error", (bloc) => `{"stationID":"${bloc}","fieldsToReport":"all","requestedReportData":{"reportFromDate":${nested}}}`],
    ["GET", "/api/get-data-report", "error", (bloc) => `{"stationID":"${bloc}","fieldsToReport":"all","dataFilteringData":{"currentPage":${nested}}}`],
    ["GET", "/api/get-data-report", "error", (bloc) => `{"stationID":"${bloc}","fieldsToReport":"all","dataFilteringData":{"resultLimit":${nested}}}`],
    ["GET", "/api/get-data-report", "error", (bloc) => `{"stationID":"${bloc}","fieldsToReport":"all","dataFilteringData":{"reverse":${nested}}}`],
    ["GET", "/api/get-data-report", "error", (bloc) => `{"stationID":"${bloc}","fieldsToReport":"all","responseType":${nested}}`],
    ["POST", "/api/add-data", "error", (bloc) => `{"scanStationID":"${bloc}","dataToAdd":{"field_1":${nested}}}`],
    ["POST", "/api/add-data", "error", (bloc) => `{"scanStationID":"${bloc}","dataToAdd":{},"submittedStatus":${nested}}`],
    ["POST", "/api/add-data", "error", (bloc) => `{"scanStationID":"${bloc}","dataToAdd":{},"jobID":${nested}}`],
    ["POST", UPDATE, "message", (bloc) => `{"blocId":"${bloc}","fieldsToUpdate":{"field_1":${nested}},"searchItems":{"field_1":"a"}}`],
    ["POST", UPDATE, "message", (bloc) => `{"blocId":"${bloc}","fieldsToUpdate":{"field_1":"a"},"searchItems":{"field_1":${nested}}}`],
  ];
  for (const [method, p, key, body] of cases) {
    // The innermost key holding the nested value, with the object it sits in.
    const name = /(?:"(\w+)":\{)?"(\w+)":\[\[/.exec(body("b"))!.slice(1).filter(Boolean).join(".");
    test(`${method} ${p} with ${name} nested 20,000 deep → 400 {${key}}`, async () => {
      const before = await records();
      const reply = await server.call(method, p, { token: writer.token, body: body(blocId), headers: { "content-type": "application/json" } });
      assert.equal(reply.status, 400, reply.text.slice(0, 300));
      assert.deepEqual(keysOf(reply.json), [key]);
      assert.ok(reply.text.length < 400, "the answer does not echo the value");
      assert.equal(await records(), before);
    });
  }
});

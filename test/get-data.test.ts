import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { call } from "./support/http.js";
import { addBloc, addMember, startServer, type Member, type TestServer } from "./support/server.js";
import { expiredToken, insertAt, keysOf, revokedToken, shuffled, stamp } from "./support/fixtures.js";

const NOT_AUTHORISED = { error: "You are not authorized to access this bloc" };

let server: TestServer;

before(async () => {
  server = await startServer();
});

after(async () => {
  await server.close();
});

function getData(body: unknown, token?: string) {
  return server.call("GET", "/api/get-data", { json: body, ...(token === undefined ? {} : { token }) });
}

/** The records of a get-data answer, in answer order ("0", "1", …). */
function recordsOf(data: Record<string, unknown>): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (let i = 0; String(i) in data; i += 1) out.push(data[String(i)] as Record<string, unknown>);
  return out;
}

function idsOf(data: Record<string, unknown>): number[] {
  return recordsOf(data).map((r) => r.service_entry_row_id as number);
}

describe("get-data: response shape", () => {
  let blocId: string;
  const ids: number[] = [];

  before(async () => {
    blocId = await addBloc(server, "Paint", ["Colour", "Size", "Note"]);
    ids.push(await insertAt(server, blocId, "2026-01-01 10:00:00", { field_1: "red", field_2: "L" }, "u-1"));
    ids.push(await insertAt(server, blocId, "2026-01-02 10:00:00", { field_1: "red", field_2: "" }, "u-2"));
    ids.push(await insertAt(server, blocId, "2026-01-03 10:00:00", { field_1: "blue" }, "u-3"));
  });

  test("answers {data} whose keys are the page's records and the four aggregates", async () => {
    const reply = await getData({ blocId });
    assert.equal(reply.status, 200, reply.text);
    assert.deepEqual(keysOf(reply.json), ["data"]);
    assert.equal(Array.isArray(reply.json.data), false);
    assert.deepEqual(keysOf(reply.json.data), ["0", "1", "2", "count", "countLimitInfo", "fieldCounts", "fieldNames"]);
  });

  test("each record holds created_at, submitted_status, user_id, service_entry_row_id and every field", async () => {
    const reply = await getData({ blocId });
    assert.equal(reply.status, 200, reply.text);
    assert.deepEqual(reply.json.data["0"], {
      created_at: "2026-01-03 10:00:00", submitted_status: 1, user_id: "u-3", service_entry_row_id: ids[2],
      field_1: "blue", field_2: "", field_3: "",
    });
    assert.deepEqual(reply.json.data["2"], {
      created_at: "2026-01-01 10:00:00", submitted_status: 1, user_id: "u-1", service_entry_row_id: ids[0],
      field_1: "red", field_2: "L", field_3: "",
    });
  });

  test("count and fieldCounts cover all matching records, not only the page", async () => {
    const reply = await getData({ blocId, resultLimit: 1 });
    assert.equal(reply.status, 200, reply.text);
    assert.deepEqual(keysOf(reply.json.data), ["0", "count", "countLimitInfo", "fieldCounts", "fieldNames"]);
    assert.equal(reply.json.data.count, 3);
    assert.deepEqual(reply.json.data.fieldCounts, {
      field_1: { red: 2, blue: 1 },
      field_2: { L: 1 }, // the empty value is not counted
      field_3: {}, // a field with no values maps to {}
    });
  });

  test("fieldNames maps every slug to its display name", async () => {
    const reply = await getData({ blocId });
    assert.deepEqual(reply.json.data.fieldNames, { field_1: "Colour", field_2: "Size", field_3: "Note" });
  });

  test("countLimitInfo is exactly the no-scan-limit object, counting every record of the bloc", async () => {
    const reply = await getData({ blocId, fromDate: "2026-01-02" });
    assert.equal(reply.status, 200, reply.text);
    assert.deepEqual(reply.json.data.countLimitInfo, {
      scan_limit: null, scan_limit_time_logged: null, scans_counted: 3, limit_reached: 0,
    });
    // count and fieldCounts follow the window; scans_counted does not.
    assert.equal(reply.json.data.count, 2);
    assert.deepEqual(reply.json.data.fieldCounts, { field_1: { red: 1, blue: 1 }, field_2: {}, field_3: {} });
  });

  test("an empty bloc answers count 0, every slug in fieldCounts and no records", async () => {
    const empty = await addBloc(server, "Empty", ["A", "B"]);
    const reply = await getData({ blocId: empty });
    assert.equal(reply.status, 200, reply.text);
    assert.deepEqual(reply.json, {
      data: {
        count: 0,
        fieldCounts: { field_1: {}, field_2: {} },
        countLimitInfo: { scan_limit: null, scan_limit_time_logged: null, scans_counted: 0, limit_reached: 0 },
        fieldNames: { field_1: "A", field_2: "B" },
      },
    });
  });

  test("fieldCounts counts values exactly as stored: case counts, and constructor is a plain value", async () => {
    const bloc = await addBloc(server, "Case values", ["Word"]);
    await insertAt(server, bloc, "2026-01-01 00:00:01", { field_1: "constructor" });
    await insertAt(server, bloc, "2026-01-01 00:00:02", { field_1: "Red" });
    await insertAt(server, bloc, "2026-01-01 00:00:03", { field_1: "red" });
    await insertAt(server, bloc, "2026-01-01 00:00:04", { field_1: "red " });
    const reply = await getData({ blocId: bloc });
    assert.equal(reply.status, 200, reply.text);
    assert.deepEqual(reply.json.data.fieldCounts.field_1, { constructor: 1, Red: 1, red: 1, "red ": 1 });
  });

  test("fieldCounts counts a value spelled __proto__ like any other value", async () => {
    const bloc = await addBloc(server, "Proto values", ["Word"]);
    await insertAt(server, bloc, "2026-01-01 00:00:00", { field_1: "__proto__" });
    await insertAt(server, bloc, "2026-01-01 00:00:01", { field_1: "__proto__" });
    await insertAt(server, bloc, "2026-01-01 00:00:02", { field_1: "plain" });
    const reply = await getData({ blocId: bloc });
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.json.data.count, 3);
    // JSON.parse, because an object literal would read "__proto__" as the prototype.
    assert.deepEqual(reply.json.data.fieldCounts.field_1, JSON.parse('{"__proto__":2,"plain":1}'));
  });
});

describe("get-data: order and paging", () => {
  let blocId: string;
  /** Record IDs newest first: created_at descending, then ID descending. */
  let newestFirst: number[];

  before(async () => {
    blocId = await addBloc(server, "Paged", ["Seq"]);
    // 25 records, three per second, inserted in a shuffled order so that IDs and times disagree.
    const planned = Array.from({ length: 25 }, (_, i) => ({ i, createdAt: stamp("2026-02-01 00:00:00", Math.floor(i / 3)) }));
    const inserted: { id: number; createdAt: string }[] = [];
    for (const p of shuffled(planned)) {
      inserted.push({ id: await insertAt(server, blocId, p.createdAt, { field_1: String(p.i) }), createdAt: p.createdAt });
    }
    inserted.sort((a, b) => (a.createdAt === b.createdAt ? b.id - a.id : a.createdAt < b.createdAt ? 1 : -1));
    newestFirst = inserted.map((r) => r.id);
  });

  test("defaults to the 10 newest records (page 1), newest first by created_at then ID", async () => {
    const reply = await getData({ blocId });
    assert.equal(reply.status, 200, reply.text);
    assert.deepEqual(idsOf(reply.json.data), newestFirst.slice(0, 10));
    assert.equal(reply.json.data.count, 25);
  });

  test("pages with resultLimit and currentPage cover every record exactly once", async () => {
    const seen: number[] = [];
    for (let page = 1; page <= 4; page += 1) {
      const reply = await getData({ blocId, resultLimit: 7, currentPage: page });
      assert.equal(reply.status, 200, reply.text);
      assert.equal(reply.json.data.count, 25);
      seen.push(...idsOf(reply.json.data));
    }
    assert.deepEqual(seen, newestFirst);
  });

  test("a page past the end holds no records but still the count", async () => {
    const reply = await getData({ blocId, resultLimit: 10, currentPage: 4 });
    assert.equal(reply.status, 200, reply.text);
    assert.deepEqual(idsOf(reply.json.data), []);
    assert.equal("0" in reply.json.data, false);
    assert.equal(reply.json.data.count, 25);
  });

  test("pages are stable: asking twice answers the same records", async () => {
    const first = await getData({ blocId, resultLimit: 4, currentPage: 3 });
    const second = await getData({ blocId, resultLimit: 4, currentPage: 3 });
    assert.deepEqual(idsOf(first.json.data), newestFirst.slice(8, 12));
    assert.deepEqual(second.json, first.json);
  });

  test("reverse true, \"true\", 1 and \"1\" give oldest first", async () => {
    const oldestFirst = [...newestFirst].reverse();
    for (const reverse of [true, "true", 1, "1"]) {
      const reply = await getData({ blocId, reverse, resultLimit: 25 });
      assert.equal(reply.status, 200, `${JSON.stringify(reverse)}: ${reply.text}`);
      assert.deepEqual(idsOf(reply.json.data), oldestFirst, `reverse ${JSON.stringify(reverse)}`);
    }
    const page2 = await getData({ blocId, reverse: true, resultLimit: 10, currentPage: 2 });
    assert.deepEqual(idsOf(page2.json.data), oldestFirst.slice(10, 20));
  });

  test("reverse false, \"false\", 0 and \"0\" give newest first", async () => {
    for (const reverse of [false, "false", 0, "0"]) {
      const reply = await getData({ blocId, reverse, resultLimit: 25 });
      assert.equal(reply.status, 200, `${JSON.stringify(reverse)}: ${reply.text}`);
      assert.deepEqual(idsOf(reply.json.data), newestFirst, `reverse ${JSON.stringify(reverse)}`);
    }
  });

  test("resultLimit accepts 1 and 1000, and a whole number sent as a string", async () => {
    const one = await getData({ blocId, resultLimit: 1 });
    assert.deepEqual(idsOf(one.json.data), newestFirst.slice(0, 1));
    const max = await getData({ blocId, resultLimit: 1000 });
    assert.equal(max.status, 200, max.text);
    assert.deepEqual(idsOf(max.json.data), newestFirst);
    const text = await getData({ blocId, resultLimit: "3", currentPage: "2" });
    assert.equal(text.status, 200, text.text);
    assert.deepEqual(idsOf(text.json.data), newestFirst.slice(3, 6));
  });

  for (const resultLimit of [0, 1001, "abc", 1.5, -1, true]) {
    test(`resultLimit ${JSON.stringify(resultLimit)} → 400 {error}`, async () => {
      const reply = await getData({ blocId, resultLimit });
      assert.equal(reply.status, 400, reply.text);
      assert.deepEqual(keysOf(reply.json), ["error"]);
      assert.match(reply.json.error, /resultLimit/);
    });
  }

  for (const currentPage of [0, -1, "x", 2.5]) {
    test(`currentPage ${JSON.stringify(currentPage)} → 400 {error}`, async () => {
      const reply = await getData({ blocId, currentPage });
      assert.equal(reply.status, 400, reply.text);
      assert.deepEqual(keysOf(reply.json), ["error"]);
      assert.match(reply.json.error, /currentPage/);
    });
  }

  test("a reverse that is not a flag → 400 {error}", async () => {
    const reply = await getData({ blocId, reverse: "sideways" });
    assert.equal(reply.status, 400, reply.text);
    assert.deepEqual(keysOf(reply.json), ["error"]);
    assert.match(reply.json.error, /reverse/);
  });
});

describe("get-data: date bounds", () => {
  let blocId: string;
  const idOf: Record<string, number> = {};
  const times: Record<string, string> = {
    d9late: "2026-03-09 23:59:59",
    d10start: "2026-03-10 00:00:00",
    d10noon: "2026-03-10 12:00:00",
    d10end: "2026-03-10 23:59:59",
    d11start: "2026-03-11 00:00:00",
    d11morning: "2026-03-11 08:30:00",
    d12start: "2026-03-12 00:00:00",
  };

  before(async () => {
    blocId = await addBloc(server, "Dated", ["Label"]);
    for (const [label, createdAt] of Object.entries(times)) {
      idOf[label] = await insertAt(server, blocId, createdAt, { field_1: label });
    }
  });

  /** The labels a window selects, oldest first. */
  async function labelsFor(bounds: Record<string, string>): Promise<string[]> {
    const reply = await getData({ blocId, reverse: true, resultLimit: 100, ...bounds });
    assert.equal(reply.status, 200, `${JSON.stringify(bounds)}: ${reply.text}`);
    const labels = recordsOf(reply.json.data).map((r) => r.field_1 as string);
    assert.equal(reply.json.data.count, labels.length, "count agrees with the window");
    return labels;
  }

  const cases: { name: string; bounds: Record<string, string>; expected: string[] }[] = [
    { name: "date-only fromDate alone starts at 00:00:00", bounds: { fromDate: "2026-03-10" },
      expected: ["d10start", "d10noon", "d10end", "d11start", "d11morning", "d12start"] },
    { name: "datetime fromDate alone is inclusive", bounds: { fromDate: "2026-03-10 12:00:00" },
      expected: ["d10noon", "d10end", "d11start", "d11morning", "d12start"] },
    { name: "date-only toDate alone ends at 23:59:59", bounds: { toDate: "2026-03-10" },
      expected: ["d9late", "d10start", "d10noon", "d10end"] },
    { name: "datetime toDate alone is inclusive", bounds: { toDate: "2026-03-10 12:00:00" },
      expected: ["d9late", "d10start", "d10noon"] },
    { name: "date-only fromDate and toDate on the same day select the whole day",
      bounds: { fromDate: "2026-03-10", toDate: "2026-03-10" }, expected: ["d10start", "d10noon", "d10end"] },
    { name: "date-only fromDate with date-only toDate a day later",
      bounds: { fromDate: "2026-03-10", toDate: "2026-03-11" },
      expected: ["d10start", "d10noon", "d10end", "d11start", "d11morning"] },
    { name: "date-only fromDate with datetime toDate",
      bounds: { fromDate: "2026-03-10", toDate: "2026-03-11 00:00:00" },
      expected: ["d10start", "d10noon", "d10end", "d11start"] },
    { name: "datetime fromDate with date-only toDate",
      bounds: { fromDate: "2026-03-10 12:00:00", toDate: "2026-03-11" },
      expected: ["d10noon", "d10end", "d11start", "d11morning"] },
    { name: "datetime fromDate with datetime toDate, both inclusive",
      bounds: { fromDate: "2026-03-10 12:00:00", toDate: "2026-03-11 08:30:00" },
      expected: ["d10noon", "d10end", "d11start", "d11morning"] },
    { name: "a window of one second selects the record at that second",
      bounds: { fromDate: "2026-03-10 23:59:59", toDate: "2026-03-10 23:59:59" }, expected: ["d10end"] },
    { name: "a window between records selects nothing",
      bounds: { fromDate: "2026-03-10 00:00:01", toDate: "2026-03-10 11:59:59" }, expected: [] },
  ];

  for (const c of cases) {
    test(c.name, async () => {
      assert.deepEqual(await labelsFor(c.bounds), c.expected);
    });
  }

  test("the window's records come newest first by default", async () => {
    const reply = await getData({ blocId, fromDate: "2026-03-10", toDate: "2026-03-10" });
    assert.deepEqual(idsOf(reply.json.data), [idOf.d10end, idOf.d10noon, idOf.d10start]);
  });

  test("date bounds work from the query string too", async () => {
    const reply = await server.call("GET",
      `/api/get-data?blocId=${blocId}&fromDate=2026-03-10%2012:00:00&toDate=2026-03-11&reverse=true`);
    assert.equal(reply.status, 200, reply.text);
    assert.deepEqual(recordsOf(reply.json.data).map((r) => r.field_1), ["d10noon", "d10end", "d11start", "d11morning"]);
  });

  test("a real leap day is accepted", async () => {
    const reply = await getData({ blocId, fromDate: "2024-02-29", toDate: "2024-02-29 12:00:00" });
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.json.data.count, 0);
  });

  const impossible: [string, string][] = [
    ["fromDate", "2026-02-30"],
    ["fromDate", "2026-02-29"],
    ["toDate", "2026-13-01"],
    ["toDate", "2026-00-10"],
    ["fromDate", "2026-03-10 25:00:00"],
    ["toDate", "2026-03-10 12:60:00"],
    ["toDate", "2026-03-10 12:00:61"],
    ["fromDate", "10/03/2026"],
    ["toDate", "2026-3-1"],
    ["fromDate", "yesterday"],
  ];
  for (const [parameter, value] of impossible) {
    test(`${parameter} "${value}" → 400 {error} naming ${parameter}`, async () => {
      const other = parameter === "fromDate" ? { toDate: "2026-12-31" } : { fromDate: "2026-01-01" };
      for (const body of [{ blocId, [parameter]: value }, { blocId, ...other, [parameter]: value }]) {
        const reply = await getData(body);
        assert.equal(reply.status, 400, `${JSON.stringify(body)}: ${reply.text}`);
        assert.deepEqual(keysOf(reply.json), ["error"]);
        assert.ok(reply.json.error.includes(parameter), `"${reply.json.error}" should name ${parameter}`);
      }
    });
  }
});

describe("get-data: transport", () => {
  let blocId: string;
  let otherBloc: string;
  let numericBloc: string;

  before(async () => {
    blocId = await addBloc(server, "Transport", ["Name"]);
    otherBloc = await addBloc(server, "Other", ["Name"]);
    numericBloc = await addBloc(server, "Numeric", ["Name"], "7001");
    for (let i = 0; i < 5; i += 1) await insertAt(server, blocId, stamp("2026-04-01 00:00:00", i), { field_1: `t${i}` });
    await insertAt(server, otherBloc, "2026-04-01 00:00:00", { field_1: "other" });
    await insertAt(server, numericBloc, "2026-04-01 00:00:00", { field_1: "numeric" });
  });

  test("GET with a JSON body from a raw HTTP client, no query string", async () => {
    const reply = await call(server.url, "GET", "/api/get-data", {
      token: server.adminToken, json: { blocId, resultLimit: 2 },
    });
    assert.equal(reply.status, 200, reply.text);
    assert.match(String(reply.headers["content-type"]), /^application\/json/);
    assert.deepEqual(recordsOf(reply.json.data).map((r) => r.field_1), ["t4", "t3"]);
    assert.equal(reply.json.data.count, 5);
  });

  test("the same parameters as a query string, without a body", async () => {
    const reply = await server.call("GET", `/api/get-data?blocId=${blocId}&resultLimit=2&currentPage=2&reverse=true`);
    assert.equal(reply.status, 200, reply.text);
    assert.deepEqual(recordsOf(reply.json.data).map((r) => r.field_1), ["t2", "t3"]);
  });

  test("the body wins over the query string", async () => {
    const reply = await server.call("GET", `/api/get-data?blocId=${otherBloc}&resultLimit=1`, {
      json: { blocId, resultLimit: 3 },
    });
    assert.equal(reply.status, 200, reply.text);
    assert.deepEqual(recordsOf(reply.json.data).map((r) => r.field_1), ["t4", "t3", "t2"]);
  });

  test("query and body parameters combine", async () => {
    const reply = await server.call("GET", "/api/get-data?resultLimit=1&reverse=true", { json: { blocId } });
    assert.equal(reply.status, 200, reply.text);
    assert.deepEqual(recordsOf(reply.json.data).map((r) => r.field_1), ["t0"]);
  });

  test("POST behaves like GET", async () => {
    const body = { blocId, resultLimit: 3, currentPage: 1, reverse: "true", fromDate: "2026-04-01 00:00:01" };
    const viaGet = await getData(body);
    const viaPost = await server.call("POST", "/api/get-data", { json: body });
    assert.equal(viaGet.status, 200, viaGet.text);
    assert.equal(viaPost.status, 200, viaPost.text);
    assert.deepEqual(viaPost.json, viaGet.json);
    assert.deepEqual(recordsOf(viaPost.json.data).map((r) => r.field_1), ["t1", "t2", "t3"]);
  });

  test("a bloc ID sent as a number is read as its decimal string", async () => {
    const reply = await getData({ blocId: 7001 });
    assert.equal(reply.status, 200, reply.text);
    assert.deepEqual(recordsOf(reply.json.data).map((r) => r.field_1), ["numeric"]);
  });

  test("a missing blocId → 400 {error} naming it", async () => {
    const reply = await getData({ resultLimit: 5 });
    assert.equal(reply.status, 400, reply.text);
    assert.deepEqual(keysOf(reply.json), ["error"]);
    assert.match(reply.json.error, /blocId/);
  });

  test("a malformed JSON body on GET → 400 with a message saying what is wrong", async () => {
    const reply = await server.call("GET", "/api/get-data", {
      body: `{"blocId": "${blocId}",}`, headers: { "content-type": "application/json" },
    });
    assert.equal(reply.status, 400, reply.text);
    assert.deepEqual(keysOf(reply.json), ["message"]);
    assert.match(reply.json.message, /JSON/);
  });

  test("a malformed JSON body on POST → 400 with a message", async () => {
    const reply = await server.call("POST", "/api/get-data", {
      body: `{"blocId": "${blocId}"} trailing`, headers: { "content-type": "application/json" },
    });
    assert.equal(reply.status, 400, reply.text);
    assert.deepEqual(keysOf(reply.json), ["message"]);
    assert.match(reply.json.message, /JSON/);
  });

  test("a JSON body that is not an object → 400", async () => {
    const reply = await getData([blocId]);
    assert.equal(reply.status, 400, reply.text);
    assert.equal(typeof (reply.json.message ?? reply.json.error), "string");
  });
});

describe("get-data: access", () => {
  let blocId: string;
  let reader: Member;
  let noRead: Member;
  let stranger: Member;

  before(async () => {
    blocId = await addBloc(server, "Guarded", ["Secret"]);
    await insertAt(server, blocId, "2026-05-01 00:00:00", { field_1: "s1" });
    reader = await addMember(server, { blocId, read: true });
    noRead = await addMember(server, { blocId, add: true, update: true });
    stranger = await addMember(server);
  });

  test("a member with read permission reads the bloc", async () => {
    const reply = await getData({ blocId }, reader.token);
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.json.data["0"].field_1, "s1");
  });

  test("a member with add and update but no read → 401 with the spec's text", async () => {
    const reply = await getData({ blocId }, noRead.token);
    assert.equal(reply.status, 401, reply.text);
    assert.deepEqual(reply.json, NOT_AUTHORISED);
  });

  test("a member with no grant → the same 401", async () => {
    const reply = await getData({ blocId }, stranger.token);
    assert.equal(reply.status, 401, reply.text);
    assert.deepEqual(reply.json, NOT_AUTHORISED);
  });

  test("a bloc that does not exist looks exactly like a forbidden one to a member", async () => {
    const forbidden = await getData({ blocId }, noRead.token);
    const missing = await getData({ blocId: "no-such-bloc" }, reader.token);
    assert.equal(missing.status, 401);
    assert.equal(missing.text, forbidden.text);
  });

  test("removing the grant takes read access away", async () => {
    const member = await addMember(server, { blocId, read: true });
    assert.equal((await getData({ blocId }, member.token)).status, 200);
    const removed = await server.call("DELETE", `/api/admin/blocs/${blocId}/access/${member.id}`);
    assert.equal(removed.status, 204, removed.text);
    const reply = await getData({ blocId }, member.token);
    assert.equal(reply.status, 401, reply.text);
    assert.deepEqual(reply.json, NOT_AUTHORISED);
  });

  test("no token, an unknown token, an expired token and a revoked token → 401 {error}", async () => {
    const tokens: (string | undefined)[] = [
      undefined, "bds_unknown-token-unknown-token-unknown-token",
      await expiredToken(server, reader.id), await revokedToken(server, reader.id),
    ];
    for (const token of tokens) {
      const reply = await server.call("GET", "/api/get-data", { json: { blocId }, token });
      assert.equal(reply.status, 401, `${token}: ${reply.text}`);
      assert.deepEqual(keysOf(reply.json), ["error"]);
      assert.equal(typeof reply.json.error, "string");
    }
  });
});

import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { addBloc, addMember, startServer, type Member, type TestServer } from "./support/server.js";
import { expiredToken, keysOf, revokedToken, storedRecords } from "./support/fixtures.js";

const DENIED = { error: "You do not have permission to add or edit data on this form." };

let server: TestServer;
let blocId: string;
let numericBlocId: string;
let writer: Member;
let readerOnly: Member;
let stranger: Member;

before(async () => {
  server = await startServer();
  blocId = await addBloc(server, "Deliveries", ["Name", "Amount", "Checked"]);
  numericBlocId = await addBloc(server, "Numbered", ["Name"], "42");
  writer = await addMember(server, { blocId, add: true });
  readerOnly = await addMember(server, { blocId, read: true, update: true });
  stranger = await addMember(server);
});

after(async () => {
  await server.close();
});

function add(body: unknown, token?: string) {
  return server.call("POST", "/api/add-data", { json: body, ...(token === undefined ? {} : { token }) });
}

async function count(bloc = blocId): Promise<number> {
  return server.ctx.store.records.countRecords({ blocId: bloc });
}

async function recordById(id: number, bloc = blocId) {
  const found = (await storedRecords(server, bloc)).find((r) => r.id === id);
  assert.ok(found, `record ${id} is stored`);
  return found;
}

/** Asserts a 400 `{error}` naming `needle`, and that nothing was written. */
async function assertRejected(body: unknown, needle: string): Promise<void> {
  const before = await count();
  const reply = await add(body);
  assert.equal(reply.status, 400, reply.text);
  assert.deepEqual(keysOf(reply.json), ["error"]);
  assert.equal(typeof reply.json.error, "string");
  assert.ok(reply.json.error.includes(needle), `"${reply.json.error}" should name ${needle}`);
  assert.equal(await count(), before, "a refused request writes nothing");
}

describe("add-data: success", () => {
  test("answers 200 with an integer returnedStationID and an empty autogenerateReplacements", async () => {
    const reply = await add({ scanStationID: blocId, dataToAdd: JSON.stringify({ field_1: "Ann" }) });
    assert.equal(reply.status, 200, reply.text);
    assert.deepEqual(keysOf(reply.json), ["autogenerateReplacements", "returnedStationID"]);
    assert.ok(Number.isInteger(reply.json.returnedStationID) && reply.json.returnedStationID > 0);
    assert.deepEqual(reply.json.autogenerateReplacements, []);
  });

  test("gives each new record the next integer ID", async () => {
    const first = await add({ scanStationID: blocId, dataToAdd: "{}" });
    const second = await add({ scanStationID: blocId, dataToAdd: "{}" });
    assert.equal(first.status, 200);
    assert.equal(second.status, 200);
    assert.equal(second.json.returnedStationID, first.json.returnedStationID + 1);
  });

  test("accepts dataToAdd as a JSON-encoded string", async () => {
    const reply = await add({ scanStationID: blocId, dataToAdd: JSON.stringify({ field_1: "string form", field_2: "3" }) });
    assert.equal(reply.status, 200, reply.text);
    const record = await recordById(reply.json.returnedStationID);
    assert.deepEqual(record.values, { field_1: "string form", field_2: "3" });
  });

  test("accepts dataToAdd as a nested object", async () => {
    const reply = await add({ scanStationID: blocId, dataToAdd: { field_1: "object form", field_3: "yes" } });
    assert.equal(reply.status, 200, reply.text);
    const record = await recordById(reply.json.returnedStationID);
    assert.deepEqual(record.values, { field_1: "object form", field_3: "yes" });
  });

  test("stores numbers and booleans as their string form and null as an empty string", async () => {
    const reply = await add({ scanStationID: blocId, dataToAdd: { field_1: null, field_2: 12.5, field_3: true } });
    assert.equal(reply.status, 200, reply.text);
    const record = await recordById(reply.json.returnedStationID);
    assert.deepEqual(record.values, { field_1: "", field_2: "12.5", field_3: "true" });

    const again = await add({ scanStationID: blocId, dataToAdd: JSON.stringify({ field_2: 0, field_3: false }) });
    assert.equal(again.status, 200, again.text);
    assert.deepEqual((await recordById(again.json.returnedStationID)).values, { field_2: "0", field_3: "false" });
  });

  test("the values read back through get-data as strings", async () => {
    const reply = await add({ scanStationID: blocId, dataToAdd: { field_1: "wire", field_2: 7, field_3: false } });
    assert.equal(reply.status, 200, reply.text);
    const read = await server.call("GET", "/api/get-data", { json: { blocId, resultLimit: 1 } });
    assert.equal(read.status, 200, read.text);
    const record = read.json.data["0"];
    assert.equal(record.service_entry_row_id, reply.json.returnedStationID);
    assert.equal(record.field_1, "wire");
    assert.equal(record.field_2, "7");
    assert.equal(record.field_3, "false");
  });

  test("sets created_at to now (UTC by default), user_id to the token's user and submitted_status to 1", async () => {
    const before = Date.now();
    const reply = await add({ scanStationID: blocId, dataToAdd: { field_1: "by writer" } }, writer.token);
    const after = Date.now();
    assert.equal(reply.status, 200, reply.text);
    const record = await recordById(reply.json.returnedStationID);
    assert.match(record.createdAt, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    const written = Date.parse(`${record.createdAt.replace(" ", "T")}Z`);
    assert.ok(written >= Math.floor(before / 1000) * 1000 - 1000 && written <= after + 1000,
      `created_at ${record.createdAt} should be about now`);
    assert.equal(record.userId, writer.id);
    assert.equal(record.submittedStatus, 1);
  });

  test("stores jobID with the record, and null without one", async () => {
    const withJob = await add({ scanStationID: blocId, jobID: "job-77", dataToAdd: { field_1: "x" } });
    assert.equal(withJob.status, 200, withJob.text);
    assert.equal((await recordById(withJob.json.returnedStationID)).jobId, "job-77");

    const without = await add({ scanStationID: blocId, dataToAdd: { field_1: "x" } });
    assert.equal(without.status, 200, without.text);
    assert.equal((await recordById(without.json.returnedStationID)).jobId, null);
  });

  test("reads a bloc ID sent as a number as its decimal string", async () => {
    const before = await count(numericBlocId);
    const reply = await add({ scanStationID: 42, dataToAdd: { field_1: "numeric" } });
    assert.equal(reply.status, 200, reply.text);
    assert.equal(await count(numericBlocId), before + 1);
    const record = await recordById(reply.json.returnedStationID, numericBlocId);
    assert.deepEqual(record.values, { field_1: "numeric" });
  });
});

describe("add-data: BLOC_TIMEZONE", () => {
  test("created_at is the wall-clock time in BLOC_TIMEZONE", async () => {
    const zone = "Asia/Kathmandu"; // UTC+05:45: no whole-hour offset can pass by accident
    const zoned = await startServer({ BLOC_TIMEZONE: zone });
    try {
      const bloc = await addBloc(zoned, "Zoned", ["V"]);
      const wall = (at: number): number => {
        const parts: Record<string, string> = {};
        const format = new Intl.DateTimeFormat("en-CA", {
          timeZone: zone, hourCycle: "h23", year: "numeric", month: "2-digit", day: "2-digit",
          hour: "2-digit", minute: "2-digit", second: "2-digit",
        });
        for (const part of format.formatToParts(new Date(at))) parts[part.type] = part.value;
        return Date.parse(`${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}Z`);
      };
      const before = wall(Date.now());
      const reply = await zoned.call("POST", "/api/add-data", { json: { scanStationID: bloc, dataToAdd: { field_1: "z" } } });
      const after = wall(Date.now());
      assert.equal(reply.status, 200, reply.text);
      const [record] = await storedRecords(zoned, bloc);
      assert.ok(record);
      const written = Date.parse(`${record.createdAt.replace(" ", "T")}Z`);
      assert.ok(written >= before - 1000 && written <= after + 1000,
        `created_at ${record.createdAt} should be the current wall time in ${zone}`);
    } finally {
      await zoned.close();
    }
  });
});

describe("add-data: unusual slugs", () => {
  test("a value for a field slugged __proto__ is stored, unless such a slug is refused at bloc creation", async () => {
    const created = await server.call("POST", "/api/admin/blocs", {
      json: { name: "Proto slug", fields: [{ name: "Proto", slug: "__proto__" }, { name: "Other" }] },
    });
    if (created.status === 400) return; // refusing the slug up front is a correct answer too
    assert.equal(created.status, 201, created.text);
    const reply = await add({ scanStationID: created.json.id, dataToAdd: '{"__proto__":"kept","field_2":"y"}' });
    if (reply.status === 400) return; // so is refusing the value
    assert.equal(reply.status, 200, reply.text);
    const record = await recordById(reply.json.returnedStationID, created.json.id);
    assert.deepEqual(record.values, JSON.parse('{"__proto__":"kept","field_2":"y"}'),
      "an answered 200 must not silently drop a submitted value");
  });
});

describe("add-data: bad requests", () => {
  test("an unknown field slug is refused with 400 naming it", async () => {
    await assertRejected({ scanStationID: blocId, dataToAdd: { field_1: "ok", no_such_field: "x" } }, "no_such_field");
    await assertRejected({ scanStationID: blocId, dataToAdd: JSON.stringify({ field_9: "x" }) }, "field_9");
  });

  test("a value holding U+0000 is refused with 400 naming the field, on every engine, and nothing is stored", async () => {
    const before = (await storedRecords(server, blocId)).length;
    const reply = await add({ scanStationID: blocId, dataToAdd: { field_1: "a\u0000b" } });
    assert.equal(reply.status, 400, reply.text);
    assert.match(reply.json.error, /dataToAdd\.field_1 must not contain the character U\+0000/);
    assert.equal((await storedRecords(server, blocId)).length, before);
  });

  test("a nested value is refused with 400 naming the field", async () => {
    await assertRejected({ scanStationID: blocId, dataToAdd: { field_1: "ok", field_2: { deep: 1 } } }, "field_2");
    await assertRejected({ scanStationID: blocId, dataToAdd: JSON.stringify({ field_3: [1, 2] }) }, "field_3");
  });

  test("a missing scanStationID is refused with 400 naming it", async () => {
    await assertRejected({ dataToAdd: { field_1: "x" } }, "scanStationID");
  });

  test("a blank scanStationID is refused with 400 naming it", async () => {
    await assertRejected({ scanStationID: "", dataToAdd: { field_1: "x" } }, "scanStationID");
    await assertRejected({ scanStationID: "   ", dataToAdd: { field_1: "x" } }, "scanStationID");
  });

  test("a missing dataToAdd is refused with 400", async () => {
    await assertRejected({ scanStationID: blocId }, "dataToAdd");
  });

  test("a dataToAdd that is not a JSON object is refused with 400", async () => {
    await assertRejected({ scanStationID: blocId, dataToAdd: "{not json" }, "dataToAdd");
    await assertRejected({ scanStationID: blocId, dataToAdd: "[1,2]" }, "dataToAdd");
  });

  test("a malformed JSON body is refused with 400 under error saying what is wrong", async () => {
    const before = await count();
    const reply = await server.call("POST", "/api/add-data", {
      body: `{"scanStationID": "${blocId}", "dataToAdd": `, headers: { "content-type": "application/json" },
    });
    assert.equal(reply.status, 400, reply.text);
    assert.deepEqual(keysOf(reply.json), ["error"]);
    assert.match(reply.json.error, /JSON/);
    assert.equal(await count(), before);
  });

  test("a JSON body that is not an object is refused with 400 under error", async () => {
    const reply = await server.call("POST", "/api/add-data", { json: [blocId] });
    assert.equal(reply.status, 400, reply.text);
    assert.deepEqual(keysOf(reply.json), ["error"]);
  });
});

describe("add-data: permissions", () => {
  test("a member with add permission may add, and the record carries that member's ID", async () => {
    const reply = await add({ scanStationID: blocId, dataToAdd: { field_1: "member" } }, writer.token);
    assert.equal(reply.status, 200, reply.text);
    assert.equal((await recordById(reply.json.returnedStationID)).userId, writer.id);
  });

  test("a member without add permission gets 403 with the spec's text, and nothing is written", async () => {
    const before = await count();
    const reply = await add({ scanStationID: blocId, dataToAdd: { field_1: "x" } }, readerOnly.token);
    assert.equal(reply.status, 403, reply.text);
    assert.deepEqual(reply.json, DENIED);
    assert.equal(await count(), before);
  });

  test("a member with no grant at all gets the same 403", async () => {
    const reply = await add({ scanStationID: blocId, dataToAdd: { field_1: "x" } }, stranger.token);
    assert.equal(reply.status, 403, reply.text);
    assert.deepEqual(reply.json, DENIED);
  });

  test("a bloc that does not exist looks exactly like a forbidden one to a member", async () => {
    const forbidden = await add({ scanStationID: blocId, dataToAdd: { field_1: "x" } }, readerOnly.token);
    const missing = await add({ scanStationID: "no-such-bloc", dataToAdd: { field_1: "x" } }, readerOnly.token);
    assert.equal(missing.status, 403);
    assert.equal(missing.status, forbidden.status);
    assert.equal(missing.text, forbidden.text);
    assert.deepEqual(missing.json, DENIED);
  });

  test("the refusal comes before slug validation, so field names cannot be probed", async () => {
    const reply = await add({ scanStationID: blocId, dataToAdd: { probe: "x" } }, readerOnly.token);
    assert.equal(reply.status, 403, reply.text);
    assert.deepEqual(reply.json, DENIED);
  });
});

describe("add-data: authentication", () => {
  async function assertUnauthenticated(token: string | undefined, headers: Record<string, string> = {}): Promise<void> {
    const before = await count();
    const reply = await server.call("POST", "/api/add-data", {
      json: { scanStationID: blocId, dataToAdd: { field_1: "x" } }, headers, token,
    });
    assert.equal(reply.status, 401, reply.text);
    assert.deepEqual(keysOf(reply.json), ["error"]);
    assert.equal(typeof reply.json.error, "string");
    assert.equal(await count(), before, "nothing is written");
  }

  test("no Authorization header → 401 {error}", async () => {
    await assertUnauthenticated(undefined);
  });

  test("a non-Bearer Authorization header → 401 {error}", async () => {
    await assertUnauthenticated(undefined, { authorization: `Basic ${Buffer.from("a:b").toString("base64")}` });
  });

  test("an unknown token → 401 {error}", async () => {
    await assertUnauthenticated("bds_this-token-was-never-issued-by-the-service-xyz");
  });

  test("an expired token → 401 {error}", async () => {
    await assertUnauthenticated(await expiredToken(server, writer.id));
  });

  test("a revoked token → 401 {error}", async () => {
    await assertUnauthenticated(await revokedToken(server, writer.id));
  });

  test("authentication comes before the body: a malformed body without a token is still 401", async () => {
    const reply = await server.call("POST", "/api/add-data", {
      token: undefined, body: "{oops", headers: { "content-type": "application/json" },
    });
    assert.equal(reply.status, 401, reply.text);
    assert.deepEqual(keysOf(reply.json), ["error"]);
  });
});

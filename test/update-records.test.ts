import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { addBloc, addMember, startServer, type Member, type TestServer } from "./support/server.js";
import type { Reply } from "./support/http.js";
import { expiredToken, insertAt, keysOf, revokedToken, storedRecords } from "./support/fixtures.js";

const PATH = "/api/update-records-by-matching-values";
const MISSING = { error: "Search Key/Value pairs or Bloc ID or Search Fields to update have not been provided" };
const NOT_AUTHORISED = { message: "You are not authorized to access this bloc" };

let server: TestServer;

before(async () => {
  server = await startServer();
});

after(async () => {
  await server.close();
});

function update(body: unknown, token?: string): Promise<Reply> {
  return server.call("POST", PATH, { json: body, ...(token === undefined ? {} : { token }) });
}

/** The seed every test starts from: label → stored values. */
const SEED: Record<string, Record<string, string>> = {
  a: { field_1: "open", field_2: "Ann" },
  b: { field_1: "open", field_2: "ann" },
  c: { field_1: "Open", field_2: "Ann" },
  d: { field_1: "open ", field_2: "Ann" },
  e: { field_1: "closed", field_2: "Ann", field_3: "5" },
  f: { field_1: "open" }, // field_2 never set
  g: { field_1: "open", field_2: "" },
};

interface Seeded {
  readonly blocId: string;
  readonly id: Record<string, number>;
}

/** A new bloc (Status, Owner, Note) holding SEED, so that every test starts from the same records. */
async function seeded(id?: string): Promise<Seeded> {
  const blocId = await addBloc(server, "Tickets", ["Status", "Owner", "Note"], id);
  const ids: Record<string, number> = {};
  let second = 0;
  for (const [label, values] of Object.entries(SEED)) {
    ids[label] = await insertAt(server, blocId, `2026-07-01 00:00:${String(second).padStart(2, "0")}`, values);
    second += 1;
  }
  return { blocId, id: ids };
}

/** label → stored values, for comparing whole blocs before and after. */
async function snapshot(s: Seeded): Promise<Record<string, Record<string, string>>> {
  const records = await storedRecords(server, s.blocId);
  const byId = new Map(records.map((r) => [r.id, r.values]));
  return Object.fromEntries(Object.entries(s.id).map(([label, id]) => [label, { ...byId.get(id) }]));
}

function labelsOf(s: Seeded, ids: readonly number[]): string[] {
  const names = new Map(Object.entries(s.id).map(([label, id]) => [id, label]));
  return ids.map((id) => names.get(id) ?? `?${id}`);
}

describe("update-records: required parameters", () => {
  let s: Seeded;
  before(async () => { s = await seeded(); });

  const cases: [string, (blocId: string) => unknown][] = [
    ["an empty body", () => ({})],
    ["no blocId", () => ({ fieldsToUpdate: { field_3: "x" }, searchItems: { field_1: "open" } })],
    ["a blank blocId", () => ({ blocId: "  ", fieldsToUpdate: { field_3: "x" }, searchItems: { field_1: "open" } })],
    ["no fieldsToUpdate", (blocId) => ({ blocId, searchItems: { field_1: "open" } })],
    ["an empty fieldsToUpdate", (blocId) => ({ blocId, fieldsToUpdate: {}, searchItems: { field_1: "open" } })],
    ["an empty fieldsToUpdate as a JSON string", (blocId) => ({ blocId, fieldsToUpdate: "{}", searchItems: { field_1: "open" } })],
    ["a blank fieldsToUpdate", (blocId) => ({ blocId, fieldsToUpdate: "", searchItems: { field_1: "open" } })],
    ["no searchItems", (blocId) => ({ blocId, fieldsToUpdate: { field_3: "x" } })],
    ["an empty searchItems", (blocId) => ({ blocId, fieldsToUpdate: { field_3: "x" }, searchItems: {} })],
    ["an empty searchItems as a JSON string", (blocId) => ({ blocId, fieldsToUpdate: { field_3: "x" }, searchItems: "{}" })],
    ["a null searchItems", (blocId) => ({ blocId, fieldsToUpdate: { field_3: "x" }, searchItems: null })],
  ];
  for (const [name, body] of cases) {
    test(`${name} → 400 with the spec's exact error`, async () => {
      const before = await snapshot(s);
      const reply = await update(body(s.blocId));
      assert.equal(reply.status, 400, reply.text);
      assert.deepEqual(reply.json, MISSING);
      assert.deepEqual(await snapshot(s), before);
    });
  }

  test("a POST without any body → 400 with the spec's exact error", async () => {
    const reply = await server.call("POST", PATH);
    assert.equal(reply.status, 400, reply.text);
    assert.deepEqual(reply.json, MISSING);
  });
});

describe("update-records: validation failures answer under message", () => {
  let s: Seeded;
  before(async () => { s = await seeded(); });

  const cases: [string, (blocId: string) => unknown, string][] = [
    ["an unknown slug in fieldsToUpdate",
      (blocId) => ({ blocId, fieldsToUpdate: { field_3: "x", colour: "red" }, searchItems: { field_1: "open" } }), "colour"],
    ["an unknown slug in searchItems",
      (blocId) => ({ blocId, fieldsToUpdate: { field_3: "x" }, searchItems: { field_1: "open", size: "L" } }), "size"],
    ["an object value in fieldsToUpdate",
      (blocId) => ({ blocId, fieldsToUpdate: { field_3: "x", field_2: { nested: true } }, searchItems: { field_1: "open" } }), "field_2"],
    ["an array value in fieldsToUpdate",
      (blocId) => ({ blocId, fieldsToUpdate: { field_2: ["a"] }, searchItems: { field_1: "open" } }), "field_2"],
    ["an object value in searchItems",
      (blocId) => ({ blocId, fieldsToUpdate: { field_3: "x" }, searchItems: { field_1: { $ne: "z" } } }), "field_1"],
    ["an unknown slug in fieldsToUpdate sent as a JSON string",
      (blocId) => ({ blocId, fieldsToUpdate: JSON.stringify({ nope: "x" }), searchItems: { field_1: "open" } }), "nope"],
    ["fieldsToUpdate that is not valid JSON",
      (blocId) => ({ blocId, fieldsToUpdate: "{field_3: x}", searchItems: { field_1: "open" } }), "fieldsToUpdate"],
  ];
  for (const [name, body, needle] of cases) {
    test(`${name} → 400 {message} naming ${needle}, and nothing changes`, async () => {
      const before = await snapshot(s);
      const reply = await update(body(s.blocId));
      assert.equal(reply.status, 400, reply.text);
      assert.deepEqual(keysOf(reply.json), ["message"]);
      assert.ok(reply.json.message.includes(needle), `"${reply.json.message}" should name ${needle}`);
      assert.deepEqual(await snapshot(s), before, "a failed update changes nothing");
    });
  }

  test("a malformed JSON body → 400 {message} saying what is wrong", async () => {
    const reply = await server.call("POST", PATH, {
      body: `{"blocId": "${s.blocId}", "fieldsToUpdate": {`, headers: { "content-type": "application/json" },
    });
    assert.equal(reply.status, 400, reply.text);
    assert.deepEqual(keysOf(reply.json), ["message"]);
    assert.match(reply.json.message, /JSON/);
  });
});

describe("update-records: matching and updating", () => {
  test("matching is exact: case and spaces count", async () => {
    const s = await seeded();
    const reply = await update({ blocId: s.blocId, fieldsToUpdate: { field_3: "hit" }, searchItems: { field_1: "open", field_2: "Ann" } });
    assert.equal(reply.status, 200, reply.text);
    assert.deepEqual(reply.json, { updated_record_ids: [s.id.a] });
    const after = await snapshot(s);
    assert.deepEqual(after.a, { field_1: "open", field_2: "Ann", field_3: "hit" });
    for (const label of ["b", "c", "d", "e", "f", "g"]) assert.deepEqual(after[label], SEED[label], label);
  });

  test("every matching record is updated, and the IDs come ascending", async () => {
    const s = await seeded();
    const reply = await update({ blocId: s.blocId, fieldsToUpdate: { field_1: "done" }, searchItems: { field_1: "open" } });
    assert.equal(reply.status, 200, reply.text);
    assert.deepEqual(labelsOf(s, reply.json.updated_record_ids), ["a", "b", "f", "g"]);
    const ids: number[] = reply.json.updated_record_ids;
    assert.deepEqual(ids, [...ids].sort((x, y) => x - y));
    const after = await snapshot(s);
    for (const label of ["a", "b", "f", "g"]) assert.equal(after[label]!.field_1, "done", label);
    for (const label of ["c", "d", "e"]) assert.deepEqual(after[label], SEED[label], label);
  });

  test("only the fields in fieldsToUpdate change; the others keep their values", async () => {
    const s = await seeded();
    const reply = await update({ blocId: s.blocId, fieldsToUpdate: { field_2: "Bea" }, searchItems: { field_1: "closed" } });
    assert.equal(reply.status, 200, reply.text);
    assert.deepEqual(reply.json.updated_record_ids, [s.id.e]);
    assert.deepEqual((await snapshot(s)).e, { field_1: "closed", field_2: "Bea", field_3: "5" });
  });

  test("\"\" matches a field that was never set as well as one set to \"\"", async () => {
    const s = await seeded();
    const reply = await update({ blocId: s.blocId, fieldsToUpdate: { field_2: "nobody" }, searchItems: { field_2: "" } });
    assert.equal(reply.status, 200, reply.text);
    assert.deepEqual(labelsOf(s, reply.json.updated_record_ids), ["f", "g"]);
  });

  test("no match → 200 {updated_record_ids: []} and nothing changes", async () => {
    const s = await seeded();
    const before = await snapshot(s);
    const reply = await update({ blocId: s.blocId, fieldsToUpdate: { field_3: "x" }, searchItems: { field_1: "OPEN" } });
    assert.equal(reply.status, 200, reply.text);
    assert.deepEqual(reply.json, { updated_record_ids: [] });
    assert.deepEqual(await snapshot(s), before);
  });

  test("searchItems may name service_entry_row_id, as a number or a string", async () => {
    const s = await seeded();
    const byNumber = await update({ blocId: s.blocId, fieldsToUpdate: { field_3: "by id" }, searchItems: { service_entry_row_id: s.id.c } });
    assert.equal(byNumber.status, 200, byNumber.text);
    assert.deepEqual(byNumber.json, { updated_record_ids: [s.id.c] });
    const byString = await update({
      blocId: s.blocId, fieldsToUpdate: { field_3: "by id 2" }, searchItems: { service_entry_row_id: String(s.id.d), field_2: "Ann" },
    });
    assert.deepEqual(byString.json, { updated_record_ids: [s.id.d] });
    const noMatch = await update({
      blocId: s.blocId, fieldsToUpdate: { field_3: "never" }, searchItems: { service_entry_row_id: s.id.a, field_1: "closed" },
    });
    assert.deepEqual(noMatch.json, { updated_record_ids: [] });
    const after = await snapshot(s);
    assert.equal(after.c!.field_3, "by id");
    assert.equal(after.d!.field_3, "by id 2");
    assert.equal(after.a!.field_3, undefined);
  });

  test("fieldsToUpdate and searchItems are accepted as JSON strings", async () => {
    const s = await seeded();
    const reply = await update({
      blocId: s.blocId, fieldsToUpdate: JSON.stringify({ field_3: "from strings" }), searchItems: JSON.stringify({ field_2: "ann" }),
    });
    assert.equal(reply.status, 200, reply.text);
    assert.deepEqual(reply.json, { updated_record_ids: [s.id.b] });
    assert.equal((await snapshot(s)).b!.field_3, "from strings");
  });

  test("numbers and booleans are compared and stored as strings; null is stored as \"\"", async () => {
    const s = await seeded();
    const reply = await update({ blocId: s.blocId, fieldsToUpdate: { field_1: true, field_2: null, field_3: 6.5 }, searchItems: { field_3: 5 } });
    assert.equal(reply.status, 200, reply.text);
    assert.deepEqual(reply.json, { updated_record_ids: [s.id.e] });
    assert.deepEqual((await snapshot(s)).e, { field_1: "true", field_2: "", field_3: "6.5" });
  });

  test("records of other blocs with the same values are left alone", async () => {
    const s = await seeded();
    const other = await seeded();
    const reply = await update({ blocId: s.blocId, fieldsToUpdate: { field_3: "mine" }, searchItems: { field_1: "open" } });
    assert.equal(reply.status, 200, reply.text);
    assert.deepEqual(labelsOf(s, reply.json.updated_record_ids), ["a", "b", "f", "g"]);
    assert.deepEqual(await snapshot(other), SEED);
  });

  test("a bloc ID sent as a number is read as its decimal string", async () => {
    const s = await seeded("9100");
    const reply = await update({ blocId: 9100, fieldsToUpdate: { field_3: "numeric" }, searchItems: { field_1: "closed" } });
    assert.equal(reply.status, 200, reply.text);
    assert.deepEqual(reply.json, { updated_record_ids: [s.id.e] });
  });

  test("get-data reads the updated values", async () => {
    const s = await seeded();
    await update({ blocId: s.blocId, fieldsToUpdate: { field_2: "Zed" }, searchItems: { service_entry_row_id: s.id.g } });
    const read = await server.call("GET", "/api/get-data", { json: { blocId: s.blocId, resultLimit: 1 } });
    assert.equal(read.status, 200, read.text);
    assert.equal(read.json.data["0"].service_entry_row_id, s.id.g);
    assert.equal(read.json.data["0"].field_2, "Zed");
    assert.deepEqual(read.json.data.fieldCounts.field_2, { Ann: 4, ann: 1, Zed: 1 });
  });
});

describe("update-records: access", () => {
  let s: Seeded;
  let updater: Member;
  let noUpdate: Member;
  let stranger: Member;

  before(async () => {
    s = await seeded();
    updater = await addMember(server, { blocId: s.blocId, update: true });
    noUpdate = await addMember(server, { blocId: s.blocId, read: true, add: true });
    stranger = await addMember(server);
  });

  const body = () => ({ blocId: s.blocId, fieldsToUpdate: { field_3: "member" }, searchItems: { field_1: "closed" } });

  test("a member with update permission may update", async () => {
    const reply = await update(body(), updater.token);
    assert.equal(reply.status, 200, reply.text);
    assert.deepEqual(reply.json, { updated_record_ids: [s.id.e] });
    assert.equal((await snapshot(s)).e!.field_3, "member");
  });

  test("a member without update permission → 401 {message} with the spec's text, and nothing changes", async () => {
    const before = await snapshot(s);
    for (const member of [noUpdate, stranger]) {
      const reply = await update({ ...body(), fieldsToUpdate: { field_3: "denied" } }, member.token);
      assert.equal(reply.status, 401, reply.text);
      assert.deepEqual(reply.json, NOT_AUTHORISED);
    }
    assert.deepEqual(await snapshot(s), before);
  });

  test("a bloc that does not exist looks exactly like a forbidden one to a member", async () => {
    const forbidden = await update(body(), noUpdate.token);
    const missing = await update({ ...body(), blocId: "no-such-bloc" }, updater.token);
    assert.equal(missing.status, 401);
    assert.equal(missing.text, forbidden.text);
    assert.deepEqual(missing.json, NOT_AUTHORISED);
  });

  test("no token, an unknown token, an expired token and a revoked token → 401 with a message key", async () => {
    const before = await snapshot(s);
    const tokens: (string | undefined)[] = [
      undefined, "bds_unknown-token-unknown-token-unknown-token",
      await expiredToken(server, updater.id), await revokedToken(server, updater.id),
    ];
    for (const token of tokens) {
      const reply = await server.call("POST", PATH, { json: { ...body(), fieldsToUpdate: { field_3: "anon" } }, token });
      assert.equal(reply.status, 401, `${token}: ${reply.text}`);
      assert.deepEqual(keysOf(reply.json), ["message"]);
      assert.equal(typeof reply.json.message, "string");
    }
    assert.deepEqual(await snapshot(s), before);
  });
});

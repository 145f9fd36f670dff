import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { addMember, addRecord, startServer, type Member, type TestServer } from "./support/server.js";

/*
 * Finding 5: a refusal of a unique value may tell that some record of the bloc holds
 * the value (refusing it tells that anyway), and nothing more: not which record, not
 * whose, not whether the writer can see it. The same words whoever holds the value
 * (docs/security.md).
 */

let server: TestServer;
let blocId: string;
let writer: Member;
let other: Member;

before(async () => {
  server = await startServer();
  const created = await server.call("POST", "/api/admin/blocs", {
    json: { name: "Serials", restriction: "own", fields: [{ name: "Serial", unique: true }, { name: "Note" }] },
  });
  assert.equal(created.status, 201, created.text);
  blocId = created.json.id as string;
  writer = await addMember(server, { blocId, read: true, add: true, update: true });
  other = await addMember(server, { blocId, read: true, add: true });
});

after(async () => {
  await server.close();
});

/** The refusal of "value" for field_1, as the spec's endpoints word it. */
function expected(value: string): string {
  return `field_1 (Serial) breaks rule "unique": "${value}" is not available: no two records of this bloc may hold the same value`;
}

test("a unique value held by a hidden record, a visible one, or another record of the same update: one refusal, naming no record", async () => {
  await addRecord(server, blocId, { field_1: "S-THEIRS", field_2: "theirs" }, other.token);
  const mineId = await addRecord(server, blocId, { field_1: "S-MINE", field_2: "a" }, writer.token);
  await addRecord(server, blocId, { field_1: "S-MINE-2", field_2: "a" }, writer.token);
  const seen = await server.call("GET", "/api/get-data", { token: writer.token, json: { blocId } });
  assert.equal(seen.json.data.count, 2, "the writer sees only their own records");

  const refusals: { what: string; status: number; text: string; value: string }[] = [];
  for (const value of ["S-THEIRS", "S-MINE"]) {
    const reply = await server.call("POST", "/api/add-data", { token: writer.token, json: { scanStationID: blocId, dataToAdd: { field_1: value } } });
    refusals.push({ what: `add ${value}`, status: reply.status, text: reply.json.error, value });
  }
  const toHidden = await server.call("POST", "/api/update-records-by-matching-values", {
    token: writer.token, json: { blocId, fieldsToUpdate: { field_1: "S-THEIRS" }, searchItems: { service_entry_row_id: mineId } },
  });
  refusals.push({ what: "update onto a hidden record's value", status: toHidden.status, text: toHidden.json.message, value: "S-THEIRS" });
  const both = await server.call("POST", "/api/update-records-by-matching-values", {
    token: writer.token, json: { blocId, fieldsToUpdate: { field_1: "S-NEW" }, searchItems: { field_2: "a" } },
  });
  refusals.push({ what: "update giving two records one value", status: both.status, text: both.json.message, value: "S-NEW" });

  for (const refusal of refusals) {
    assert.equal(refusal.status, 400, refusal.what);
    // Exactly these words: no record ID, no owner, no "another record".
    assert.equal(refusal.text, expected(refusal.value), refusal.what);
    assert.doesNotMatch(refusal.text, /another|\buser|\b(?:hidden|visible)\b/i, refusal.what);
  }
  const after = await server.call("GET", "/api/get-data-report", { json: { stationID: blocId, fieldsToReport: { field_1: true } } });
  assert.deepEqual(after.json.data.map((r: { field_1: string }) => r.field_1), ["S-THEIRS", "S-MINE", "S-MINE-2"], "nothing changed");
});

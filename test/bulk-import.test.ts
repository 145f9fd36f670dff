import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { bulkImportRecords } from "../src/domain/bulk-import.js";
import { importRecords } from "../src/domain/record-writes.js";
import type { NewRecord, Row } from "../src/domain/ports/store.js";
import { stamp, storedRecords } from "./support/fixtures.js";
import { allRows, assertCountersEqualRecount } from "./support/recount.js";
import { addMember, startServer, type Member, type TestServer } from "./support/server.js";

/**
 * The bulk path (Store.maintenance.bulkImport, domain/bulk-import.ts) on the engine under test:
 * records land exactly as given, the counters end equal to a recount whether the bloc
 * was empty or not (owner and profile segments included), the indexes find what was
 * loaded, and a load that fails midway leaves nothing behind.
 */

const SITES = ["Dublin", "Cork", "Galway", ""];
/** Values COPY's text format must escape, JSON must escape, and keys too long to be raw index entries. */
const AWKWARD = ["tab\there", "line\nbreak", "cr\rreturn", "back\\slash", "\\N", 'quote"s', "emoji 🎉", "x".repeat(450), "  spaced  ", "é", "\\."];

let server: TestServer;
let blocId: string;
let members: Member[];

before(async () => {
  server = await startServer({ BLOC_FIELD_COUNTS_LIMIT: "0" });
  const reply = await server.call("POST", "/api/admin/blocs", {
    json: {
      name: "Bulk",
      fields: [{ name: "Site", applyProfileFilter: true }, { name: "Serial", indexed: true }, { name: "Note" }, { name: "Shift" }],
    },
  });
  assert.equal(reply.status, 201, reply.text);
  blocId = reply.json.id as string;
  members = [await addMember(server, { blocId, read: true, add: true }), await addMember(server, { blocId, read: true, add: true })];
  // Profile filters govern writes too: members may write every site ("" admits an empty one).
  for (const member of members) await server.call("PUT", `/api/admin/users/${member.id}`, { json: { profile: SITES } });
});

after(async () => { await server.close(); });

function records(from: number, count: number, owners: readonly string[]): NewRecord[] {
  return Array.from({ length: count }, (_, k) => {
    const i = from + k;
    const values: Record<string, string> = {
      field_1: SITES[i % SITES.length]!, field_2: `SN-${i}`, field_3: i % 3 === 0 ? AWKWARD[i % AWKWARD.length]! : `note ${i % 17}`,
    };
    // Some records lack a field, some hold it empty.
    if (i % 5 !== 0) values.field_4 = i % 7 === 0 ? "" : ["day", "night"][i % 2]!;
    return {
      blocId, createdAt: stamp("2026-02-01 00:00:00", i * 517), userId: owners[i % owners.length]!,
      submittedStatus: i % 4 === 0 ? 0 : 1, jobId: i % 6 === 0 ? `job ${i % 4}` : null, values,
    };
  });
}

/** Every row of the tables a load writes, to compare before and after a failed one. */
async function written(): Promise<Record<string, Row[]>> {
  return {
    records: await allRows(server.ctx.store, "records"),
    counter_scopes: await allRows(server.ctx.store, "counter_scopes"),
    value_counts: await allRows(server.ctx.store, "value_counts"),
  };
}

async function* slowly(items: readonly NewRecord[]): AsyncGenerator<NewRecord> {
  for (const item of items) yield item;
}

test("a bulk import into an empty bloc stores every record as given and counters equal a recount", async () => {
  const owners = ["1", ...members.map((m) => m.id)];
  const loaded = records(0, 7_000, owners);
  // Batches of 1,000: the load spans several batches and statements.
  const result = await bulkImportRecords(server.ctx.store, blocId, slowly(loaded), 1_000);
  assert.equal(result.count, 7_000);
  const stored = await storedRecords(server, blocId);
  assert.equal(stored.length, 7_000);
  assert.equal(result.lastId, Math.max(...stored.map((r) => r.id)));
  // Oldest first is the order they were given (times ascend): each as given.
  stored.forEach((record, i) => {
    const given = loaded[i]!;
    assert.deepEqual(
      { createdAt: record.createdAt, userId: record.userId, submittedStatus: record.submittedStatus, jobId: record.jobId, values: record.values },
      { createdAt: given.createdAt, userId: given.userId, submittedStatus: given.submittedStatus, jobId: given.jobId, values: given.values },
      `record ${i}`);
  });
  await assertCountersEqualRecount(server.ctx.store);
});

test("a bulk import into a bloc that holds records merges its counts into the counters", async () => {
  const owners = ["1", ...members.map((m) => m.id)];
  // Records of other paths first: adds over HTTP by members (owner segments) and a plain import.
  for (const [i, member] of members.entries()) {
    const reply = await server.call("POST", "/api/add-data", {
      token: member.token, json: { scanStationID: blocId, dataToAdd: { field_1: SITES[i]!, field_2: `HTTP-${i}`, field_3: "note 1" } },
    });
    assert.equal(reply.status, 200, reply.text);
  }
  await server.ctx.store.transaction((tx) => importRecords(tx, records(7_000, 500, owners)));
  // Values and days shared with what is there (counters merged), and new ones.
  // Several batches: the bloc is recounted once loaded.
  const result = await bulkImportRecords(server.ctx.store, blocId, [...records(0, 3_000, owners), ...records(20_000, 2_000, owners)], 1_500);
  assert.equal(result.count, 5_000);
  await assertCountersEqualRecount(server.ctx.store);
  // One batch: its counter changes are settled as one write's.
  const single = await bulkImportRecords(server.ctx.store, blocId, [...records(1_000, 300, owners), ...records(30_000, 300, owners)]);
  assert.equal(single.count, 600);
  await assertCountersEqualRecount(server.ctx.store);

  // The reads the counters answer agree with the records: a member who sees only Cork.
  await server.call("PUT", `/api/admin/users/${members[0]!.id}`, { json: { profile: ["Cork"] } });
  const reply = await server.call("GET", "/api/get-data", { token: members[0]!.token, json: { blocId, resultLimit: 5 } });
  assert.equal(reply.status, 200, reply.text);
  const cork = (await storedRecords(server, blocId)).filter((r) => r.values.field_1 === "Cork");
  assert.equal(reply.json.data.count, cork.length);
  assert.equal(reply.json.data.fieldCounts.field_1.Cork, cork.length);

  // The indexes find loaded records: a search by an indexed field, and the newest page.
  const found = await server.call("POST", "/api/update-records-by-matching-values", {
    json: { blocId, fieldsToUpdate: { field_3: "found" }, searchItems: { field_2: "SN-20500" } },
  });
  assert.equal(found.status, 200, found.text);
  assert.equal(found.json.updated_record_ids.length, 1);
  const newest = await server.call("GET", "/api/get-data", { json: { blocId, resultLimit: 1, toDate: "2026-06-30" } });
  assert.equal(newest.status, 200, newest.text);
  assert.equal(newest.json.data["0"].field_2, "SN-21999", "the newest record before July (the adds over HTTP are later)");
  await assertCountersEqualRecount(server.ctx.store);
});

test("a bulk import that fails midway leaves no record and no counter of it", async () => {
  const before = await written();
  const owners = ["1"];
  // The source fails after two batches have been written.
  const failing = async function* (): AsyncGenerator<NewRecord> {
    yield* records(30_000, 2_500, owners);
    throw new Error("the source broke");
  };
  await assert.rejects(bulkImportRecords(server.ctx.store, blocId, failing(), 1_000), /the source broke/);
  assert.deepEqual(await written(), before, "nothing of the failed load is kept");

  // A record of another bloc, after two batches: refused, nothing kept.
  const stray = [...records(40_000, 2_100, owners), { ...records(42_100, 1, owners)[0]!, blocId: "no-such-bloc" }];
  await assert.rejects(bulkImportRecords(server.ctx.store, blocId, stray, 1_000), /a record of bloc "no-such-bloc"/);
  assert.deepEqual(await written(), before, "nothing of the refused load is kept");

  // The database refuses a row in the last batch (a status that is no integer).
  const refused = [...records(50_000, 2_100, owners), { ...records(52_100, 1, owners)[0]!, submittedStatus: Number.NaN }];
  await assert.rejects(bulkImportRecords(server.ctx.store, blocId, refused, 1_000));
  assert.deepEqual(await written(), before, "nothing of the load the database refused is kept");

  // The store goes on: the bloc's lock and the connection were released.
  const reply = await server.call("POST", "/api/add-data", { json: { scanStationID: blocId, dataToAdd: { field_1: "Cork" } } });
  assert.equal(reply.status, 200, reply.text);
  await assertCountersEqualRecount(server.ctx.store);
});

test("a bulk import into a bloc that does not exist is refused", async () => {
  await assert.rejects(bulkImportRecords(server.ctx.store, "nowhere", records(0, 3, ["1"])), /does not exist/);
});

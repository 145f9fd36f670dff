import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import type { RecordFilter, StoredRecord } from "../src/domain/model.js";
import { importRecords } from "../src/domain/record-writes.js";
import { countVisibleRecords, countValues } from "../src/domain/record-queries.js";
import { planWindow } from "../src/domain/counting/windows.js";
import { assertCountersEqualRecount } from "./support/recount.js";
import { rankValues } from "./support/ranking.js";
import { Prng } from "./fuzz/prng.js";
import { addBloc, addMember, startServer, type Member, type TestServer } from "./support/server.js";

/**
 * Value counts over date windows come from per-period scopes (year, month, week, day,
 * hour) plus the records of the hours a window cuts through. Whatever the window, reader
 * and limit, they must equal counts and a ranking worked out here from the records.
 */

/** A seeded generator, so that a failure can be replayed. */
function random(seed: number): () => number {
  const prng = new Prng(seed);
  return () => prng.float();
}

const SITES = ["Dublin", "Cork", "Galway", ""];
const SLUGS = ["field_1", "field_2", "field_3"];
const DAY_MS = 86_400_000;

function stamp(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace("T", " ");
}

function ranked(records: readonly StoredRecord[], slug: string, limit: number): [string, number][] {
  return rankValues(records, (r) => r.values[slug] ?? "", limit);
}

let server: TestServer;
let blocId: string;
let members: Member[];
let everything: StoredRecord[];

before(async () => {
  server = await startServer();
  blocId = await addBloc(server, "Windows", ["Site", "Shift", "Note"]);
  await server.call("PATCH", `/api/admin/blocs/${blocId}/fields/field_1`, { json: { applyProfileFilter: true } });
  members = [await addMember(server, { blocId, read: true }), await addMember(server, { blocId, read: true })];
  const next = random(11);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
  // 2,400 records over 2025-11-20 … 2027-01-10 (two year ends, weeks across months and years).
  const start = Date.UTC(2025, 10, 20);
  const span = Date.UTC(2027, 0, 10) - start;
  const owners = ["1", ...members.map((m) => m.id)];
  const records = Array.from({ length: 2400 }, (_, i) => ({
    blocId, createdAt: stamp(start + Math.floor((i + next()) / 2400 * span)), userId: pick(owners), submittedStatus: 1, jobId: null,
    values: {
      field_1: pick(SITES),
      field_2: pick(["day", "night", "swing", "Ωmega", "émile", "😀", "zulu"]),
      // Many distinct notes, a few frequent ones: ties at every count.
      field_3: next() < 0.3 ? pick(["ok", "late", "damp"]) : `n${Math.floor(next() * 700)}`,
    },
  }));
  for (let i = 0; i < records.length; i += 400) {
    await server.ctx.store.transaction((tx) => importRecords(tx, records.slice(i, i + 400)));
  }
  everything = await server.ctx.store.records.listRecords({ blocId }, { order: "newest", limit: 100_000, offset: 0 });
});

after(async () => { await server.close(); });

test("planWindow takes the largest whole periods, never overlapping, and leaves cut hours as edges", async () => {
  const bloc = await addBloc(server, "Plan", ["A"]);
  const days: [string, number][] = [["2026-02-27", 2], ["2026-03-01", 1], ["2026-03-02", 4], ["2026-03-09", 1], ["2026-03-31", 3], ["2026-04-01", 5]];
  const records = days.flatMap(([day, n]) => Array.from({ length: n }, (_, i) => ({
    blocId: bloc, createdAt: `${day} 1${i}:00:00`, userId: "1", submittedStatus: 1, jobId: null, values: { field_1: "x" },
  })));
  await server.ctx.store.transaction((tx) => importRecords(tx, records));
  const plan = (from: string, to: string): Promise<unknown> => planWindow(server.ctx.store, { blocId: bloc, from, to }, [""]);
  // All of March: one month period, though the weeks around it reach into February and April.
  assert.deepEqual(await plan("2026-03-01 00:00:00", "2026-03-31 23:59:59"), { periods: ["m:2026-03"], edges: [] });
  // March 2 to April 1: April (all its records are on April 1), whole weeks, then the days of the week April 1 cuts.
  assert.deepEqual(await plan("2026-03-02 00:00:00", "2026-04-01 23:59:59"), {
    periods: ["m:2026-04", "w:2026-03-02", "w:2026-03-09", "w:2026-03-16", "w:2026-03-23", "d:2026-03-30", "d:2026-03-31"], edges: [],
  });
  // A window cutting through March 2 (at 12:30, within its records' hours) and ending at noon on March 31, after its 3 records.
  // March 2 holds too few records to keep hours: what the window takes of it is counted from its records.
  assert.deepEqual(await plan("2026-03-02 12:30:00", "2026-03-31 12:00:00"), {
    periods: ["w:2026-03-09", "w:2026-03-16", "w:2026-03-23", "d:2026-03-03", "d:2026-03-04", "d:2026-03-05", "d:2026-03-06", "d:2026-03-07",
      "d:2026-03-08", "d:2026-03-30", "d:2026-03-31"],
    edges: [{ from: "2026-03-02 12:30:00", to: "2026-03-02 23:59:59" }],
  });
  // Everything the bloc holds: all time.
  assert.deepEqual(await plan("2026-01-01 00:00:00", "2026-12-31 23:59:59"), { periods: ["a"], edges: [] });
});

test("value counts over any window equal a recount, for every kind of reader and limit", async () => {
  await assertCountersEqualRecount(server.ctx.store);
  const next = random(5);
  const windows: { from?: string; to?: string }[] = [
    { from: "2026-03-05 00:00:00", to: "2026-03-05 23:59:59" },
    { from: "2026-03-02 00:00:00", to: "2026-03-08 23:59:59" },
    { from: "2025-12-29 00:00:00", to: "2026-01-04 23:59:59" },
    { from: "2026-03-01 00:00:00", to: "2026-03-31 23:59:59" },
    { from: "2026-01-01 00:00:00", to: "2026-12-31 23:59:59" },
    { from: "2026-01-01 00:00:00" },
    { to: "2026-02-14 08:30:00" },
    { from: "2025-11-25 13:00:00", to: "2026-11-30 23:59:59" },
  ];
  for (let i = 0; i < 14; i += 1) {
    const a = Date.UTC(2025, 10, 15) + Math.floor(next() * 420) * DAY_MS + (next() < 0.5 ? 0 : Math.floor(next() * DAY_MS));
    const b = a + Math.floor(next() * 120) * DAY_MS + (next() < 0.5 ? DAY_MS - 1000 : Math.floor(next() * DAY_MS));
    windows.push({ from: stamp(a), to: stamp(b) });
  }
  const readers: { visibility?: RecordFilter["visibility"]; keep: (r: StoredRecord) => boolean }[] = [
    { keep: () => true },
    { visibility: { ownerId: members[0]!.id }, keep: (r) => r.userId === members[0]!.id },
    { visibility: { match: [{ key: "field_1", values: ["Cork"] }] }, keep: (r) => r.values.field_1 === "Cork" },
    { visibility: { match: [{ key: "field_1", values: ["Cork", "Galway"] }] }, keep: (r) => ["Cork", "Galway"].includes(r.values.field_1 ?? "") },
  ];
  for (const window of windows) {
    for (const reader of readers) {
      const filter: RecordFilter = { blocId, ...window, ...(reader.visibility ? { visibility: reader.visibility } : {}) };
      const expected = everything.filter((r) => reader.keep(r) && (window.from === undefined || r.createdAt >= window.from)
        && (window.to === undefined || r.createdAt <= window.to));
      for (const limit of [0, 1, 4, 25]) {
        const counted = await countValues(server.ctx.store, filter, SLUGS, limit);
        for (const slug of SLUGS) {
          assert.deepEqual(counted.get(slug), ranked(expected, slug, limit), `${slug}, limit ${limit}, ${JSON.stringify(filter)}`);
        }
      }
    }
  }
});

test("get-data's fieldCounts over a window, for an owner-restricted and a profile-filtered reader, equal a recount", async () => {
  const [own, lead] = members as [Member, Member];
  await server.call("PUT", `/api/admin/blocs/${blocId}/restrictions/${own.id}`, { json: { mode: "own" } });
  // Site is profile-filtered: the owner-restricted member works at every site ("" admits records without one).
  await server.call("PUT", `/api/admin/users/${own.id}`, { json: { profile: SITES } });
  await server.call("PUT", `/api/admin/users/${lead.id}`, { json: { profile: ["Galway"] } });
  const window = { fromDate: "2026-03-01", toDate: "2026-03-31" };
  const inMarch = (r: StoredRecord): boolean => r.createdAt >= "2026-03-01 00:00:00" && r.createdAt <= "2026-03-31 23:59:59";
  for (const [member, keep] of [
    [own, (r: StoredRecord) => r.userId === own.id],
    [lead, (r: StoredRecord) => r.values.field_1 === "Galway"],
  ] as const) {
    const reply = await server.call("GET", "/api/get-data", { token: member.token, json: { blocId, ...window, resultLimit: 5 } });
    assert.equal(reply.status, 200, reply.text);
    const expected = everything.filter((r) => keep(r) && inMarch(r));
    assert.ok(expected.length > 10, "the reader sees records in March");
    assert.equal(reply.json.data.count, expected.length);
    for (const slug of SLUGS) {
      assert.deepEqual(reply.json.data.fieldCounts[slug], Object.fromEntries(ranked(expected, slug, 1000)), `${slug} for ${member.id}`);
    }
  }
});

test("a shift of a busy day is counted from its hours, exactly, for every reader", async () => {
  const bloc = await addBloc(server, "Shifts", ["Site", "Part", "Serial"]);
  await server.call("PATCH", `/api/admin/blocs/${bloc}/fields/field_1`, { json: { applyProfileFilter: true } });
  const next = random(23);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
  const owners = ["1", ...members.map((m) => m.id)];
  // 600 records on one day: a day, and its hours, of many records (BLOC_COUNTED_ABOVE is low in the suite).
  const records = Array.from({ length: 600 }, (_, i) => ({
    blocId: bloc, createdAt: stamp(Date.UTC(2026, 5, 10) + Math.floor((i + next()) / 600 * DAY_MS)), userId: pick(owners),
    submittedStatus: 1, jobId: null,
    values: { field_1: pick(SITES), field_2: pick(["P1", "P2", "P3", "P4"]), field_3: `SN-${i}` },
  }));
  await server.ctx.store.transaction((tx) => importRecords(tx, records));
  await assertCountersEqualRecount(server.ctx.store);
  const plan = await planWindow(server.ctx.store, { blocId: bloc, from: "2026-06-10 06:00:00", to: "2026-06-10 13:59:59" }, [""]);
  assert.deepEqual(plan, { periods: Array.from({ length: 8 }, (_, h) => `h:2026-06-10 ${String(6 + h).padStart(2, "0")}`), edges: [] },
    "an eight-hour shift is eight hour periods");
  const stored = await server.ctx.store.records.listRecords({ blocId: bloc }, { order: "newest", limit: 10_000, offset: 0 });
  const readers: { visibility?: RecordFilter["visibility"]; keep: (r: StoredRecord) => boolean }[] = [
    { keep: () => true },
    { visibility: { ownerId: members[1]!.id }, keep: (r) => r.userId === members[1]!.id },
    { visibility: { match: [{ key: "field_1", values: ["Dublin"] }] }, keep: (r) => r.values.field_1 === "Dublin" },
  ];
  for (const window of [
    { from: "2026-06-10 06:00:00", to: "2026-06-10 13:59:59" },
    { from: "2026-06-10 06:20:00", to: "2026-06-10 14:10:30" },
    { from: "2026-06-10 16:45:00" },
  ]) {
    for (const reader of readers) {
      const filter: RecordFilter = { blocId: bloc, ...window, ...(reader.visibility ? { visibility: reader.visibility } : {}) };
      const expected = stored.filter((r) => reader.keep(r) && r.createdAt >= window.from && (window.to === undefined || r.createdAt <= window.to));
      assert.equal(await countVisibleRecords(server.ctx.store, filter), expected.length, `count ${JSON.stringify(filter)}`);
      for (const limit of [0, 3]) {
        const counted = await countValues(server.ctx.store, filter, ["field_1", "field_2", "field_3"], limit);
        for (const slug of ["field_1", "field_2", "field_3"]) {
          assert.deepEqual(counted.get(slug), ranked(expected, slug, limit), `${slug}, limit ${limit}, ${JSON.stringify(filter)}`);
        }
      }
    }
  }
});

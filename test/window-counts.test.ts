import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import type { RecordFilter, StoredRecord } from "../src/domain/model.js";
import { importRecords } from "../src/domain/record-writes.js";
import { countValues } from "../src/domain/record-queries.js";
import { planPeriods } from "../src/domain/window-counts.js";
import { assertCountersEqualRecount } from "./support/recount.js";
import { Prng } from "./fuzz/prng.js";
import { addBloc, addMember, startServer, type Member, type TestServer } from "./support/server.js";

/**
 * Value counts over date windows come from per-period counters (day, week, month, year)
 * plus the records of the days a window cuts through. Whatever the window, reader and
 * limit, they must equal counts and a ranking worked out here from the records.
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

/** Most frequent first, ties in code-point (UTF-8 byte) order, at most `limit` (all when 0). */
function ranked(records: readonly StoredRecord[], slug: string, limit: number): [string, number][] {
  const counts = new Map<string, number>();
  for (const record of records) {
    const value = record.values[slug] ?? "";
    if (value !== "") counts.set(value, (counts.get(value) ?? 0) + 1);
  }
  const all = [...counts].sort((a, b) => b[1] - a[1] || Buffer.compare(Buffer.from(a[0]), Buffer.from(b[0])));
  return limit > 0 ? all.slice(0, limit) : all;
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
  everything = await server.ctx.store.listRecords({ blocId }, { order: "newest", limit: 100_000, offset: 0 });
});

after(async () => { await server.close(); });

test("planPeriods takes the largest whole periods, never overlapping, and leaves cut days as edges", () => {
  const all = [
    { day: "2026-02-27", n: 2 }, { day: "2026-03-01", n: 1 }, { day: "2026-03-02", n: 4 }, { day: "2026-03-09", n: 1 },
    { day: "2026-03-31", n: 3 }, { day: "2026-04-01", n: 5 },
  ];
  // All of March: one month period, though the weeks around it reach into February and April.
  const march = all.filter((d) => d.day.startsWith("2026-03"));
  assert.deepEqual(planPeriods(all, march, { from: "2026-03-01 00:00:00", to: "2026-03-31 23:59:59" }),
    { periods: ["m:2026-03"], edges: [] });
  // March 2 to April 1: week of March 2 (holding March 2 only), March 9's week, then days.
  const later = all.filter((d) => d.day >= "2026-03-02");
  assert.deepEqual(planPeriods(all, later, { from: "2026-03-02 00:00:00", to: "2026-04-01 23:59:59" }),
    { periods: ["m:2026-04", "w:2026-03-02", "w:2026-03-09", "d:2026-03-31"], edges: [] });
  // A window cutting through March 2 (2 of its 4 records) and ending at noon on March 31, which holds all 3.
  const cut = [{ day: "2026-03-02", n: 2 }, { day: "2026-03-09", n: 1 }, { day: "2026-03-31", n: 3 }];
  assert.deepEqual(planPeriods(all, cut, { from: "2026-03-02 12:00:00", to: "2026-03-31 12:00:00" }),
    { periods: ["w:2026-03-09", "d:2026-03-31"], edges: [{ from: "2026-03-02 12:00:00", to: "2026-03-02 23:59:59" }] });
  // A whole year, whose first week starts in the year before.
  const year = [{ day: "2025-12-29", n: 1 }, { day: "2026-01-02", n: 2 }, { day: "2026-12-31", n: 1 }];
  assert.deepEqual(planPeriods(year, year.slice(1), { from: "2026-01-01 00:00:00", to: "2026-12-31 23:59:59" }),
    { periods: ["y:2026"], edges: [] });
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

import { test } from "node:test";
import assert from "node:assert/strict";
import { CounterDeltas } from "../src/domain/counting/deltas.js";
import { coveringSegments } from "../src/domain/counting/answers.js";
import { periodsBetween, periodsOfHour, segmentsOf, spanOf } from "../src/domain/counting/keys.js";
import { planSeek } from "../src/domain/record-queries.js";

/* The counters' rules, above the engines: checked here without any database. */

const record = { blocId: "b", createdAt: "2026-03-04 10:20:00", userId: "7", values: { site: "Cork", note: "x", empty: "" } };
const layout = { slugs: ["site", "note", "empty"], profileSlugs: ["site"] };
const plain = { slugs: ["site", "note", "empty"], profileSlugs: [] };

const keysOf = (segments: { key: string }[]): string[] => segments.map((s) => s.key);

test("a record is in all records, its owner's, and one segment per non-empty profile value", () => {
  assert.deepEqual(keysOf(segmentsOf(record, layout)), ["", "u:7", "p:site:Cork"]);
  assert.deepEqual(keysOf(segmentsOf(record, { ...layout, profileSlugs: ["empty"] })), ["", "u:7"]);
  assert.deepEqual(keysOf(segmentsOf(record, plain)), ["", "u:7"]);
});

test("an hour is in six periods: all time, its year, month, week from Monday, day and itself", () => {
  assert.deepEqual(periodsOfHour("2026-03-04 10"), ["a", "y:2026", "m:2026-03", "w:2026-03-02", "d:2026-03-04", "h:2026-03-04 10"]);
  // A week that starts in the year before.
  assert.deepEqual(periodsOfHour("2027-01-01 00")[3], "w:2026-12-28");
  assert.deepEqual(spanOf("w:2026-12-28"), { from: "2026-12-28 00:00:00", to: "2027-01-03 23:59:59" });
  assert.deepEqual(spanOf("m:2028-02"), { from: "2028-02-01 00:00:00", to: "2028-02-29 23:59:59" });
  assert.deepEqual(spanOf("h:2026-03-04 10"), { from: "2026-03-04 10:00:00", to: "2026-03-04 10:59:59" });
  assert.deepEqual(periodsBetween("m", "2026-11-20 12:00:00", "2027-02-01 00:00:00"), ["m:2026-11", "m:2026-12", "m:2027-01", "m:2027-02"]);
  assert.deepEqual(periodsBetween("h", "2026-03-04 22:30:00", "2026-03-05 00:10:00"), ["h:2026-03-04 22", "h:2026-03-04 23", "h:2026-03-05 00"]);
});

test("deltas count a record once per scope, and each value of a counted field per segment and hour (\"\": none)", () => {
  const deltas = new CounterDeltas();
  deltas.add(record, layout, 1);
  const scopes = deltas.scopeChanges("b").map((c) => `${c.segment.key}|${c.period}|${c.n}`).sort();
  assert.equal(scopes.length, 15, "three segments, five periods each down to the day");
  assert.ok(scopes.includes("p:site:Cork|d:2026-03-04|1"));
  assert.deepEqual(deltas.scopeChanges("b", "hours").map((c) => `${c.segment.key}|${c.period}|${c.n}`).sort(),
    ["p:site:Cork|h:2026-03-04 10|1", "u:7|h:2026-03-04 10|1", "|h:2026-03-04 10|1"].sort());
  const entries = deltas.valueEntries("b");
  assert.equal(entries.length, 9, "site, note and (as \"\") empty, in three segments");
  assert.ok(entries.every((e) => e.hours.get("2026-03-04 10") === 1));
  assert.ok(entries.filter((e) => e.slug === "empty").every((e) => e.value === ""), "a field left empty counts under \"\"");
});

test("a record that leaves and enters again changes no scope, and zero changes are left out", () => {
  const deltas = new CounterDeltas();
  deltas.add(record, layout, 1);
  deltas.add(record, layout, -1);
  assert.deepEqual(deltas.scopeChanges("b"), []);
  assert.ok(deltas.valueEntries("b").every((e) => CounterDeltas.total(e) === 0));
});

test("a value change moves one count between values in every segment of the record", () => {
  const deltas = new CounterDeltas();
  deltas.addValue(record, plain, "note", "x", -1);
  deltas.addValue(record, plain, "note", "y", 1);
  deltas.addValue(record, plain, "note", "", 1);
  deltas.addValue(record, plain, "unknown", "z", 1);
  const moved = deltas.valueEntries("b").map((e) => `${e.segment.key}|${e.value}|${CounterDeltas.total(e)}`).sort();
  assert.deepEqual(moved, ["u:7|x|-1", "u:7|y|1", "u:7||1", "|x|-1", "|y|1", "||1"].sort(), "a value cleared counts as one more without");
});

test("merged units add up, and pending records are counted from a period's first second", () => {
  const batch = new CounterDeltas();
  for (const createdAt of ["2026-03-01 09:00:00", "2026-03-04 10:00:00", "2026-03-04 11:00:00"]) {
    const unit = new CounterDeltas();
    unit.add({ ...record, createdAt }, plain, 1);
    batch.merge(unit);
  }
  assert.equal(batch.recordsSince("b", null), 3);
  assert.equal(batch.recordsSince("b", "2026-03-02 00:00:00"), 2);
  assert.equal(batch.recordsSince("other", null), 0);
  batch.clear();
  assert.ok(batch.empty);
});

test("the counters cover one segment, or disjoint profile segments, and nothing with value conditions", () => {
  const covering = (...args: Parameters<typeof coveringSegments>): string[] | undefined => {
    const segments = coveringSegments(...args);
    return segments && keysOf(segments);
  };
  assert.deepEqual(covering({ blocId: "b" }, []), [""]);
  assert.deepEqual(covering({ blocId: "b", visibility: { ownerId: "7" } }, []), ["u:7"]);
  assert.deepEqual(covering({ blocId: "b", visibility: { match: [{ key: "site", values: ["Cork", "Cork", "Dublin"] }] } }, ["site"]),
    ["p:site:Cork", "p:site:Dublin"]);
  assert.equal(covering({ blocId: "b", visibility: { match: [{ key: "site", values: ["Cork"] }] } }, []), undefined);
  assert.equal(covering({ blocId: "b", visibility: { match: [{ key: "site", values: [""] }] } }, ["site"]), undefined);
  assert.equal(covering({ blocId: "b", visibility: { ownerId: "7", match: [{ key: "site", values: ["Cork"] }] } }, ["site"]), undefined);
  assert.equal(covering({ blocId: "b", match: [{ key: "note", values: ["x"] }] }, []), undefined);
  assert.deepEqual(covering({ blocId: "b", match: [{ key: "note", values: [] }] }, []), [""]);
  assert.equal(covering({ blocId: "b", visibility: { none: true } }, []), undefined);
});

test("a deep offset is sought to its day from either end, with the offset left within that day", () => {
  const days = [{ day: "2026-01-01", n: 3 }, { day: "2026-01-02", n: 5 }, { day: "2026-01-03", n: 2 }];
  assert.deepEqual(planSeek(days, 0, "oldest"), { day: "2026-01-01", offset: 0 });
  assert.deepEqual(planSeek(days, 3, "oldest"), { day: "2026-01-02", offset: 0 });
  assert.deepEqual(planSeek(days, 9, "oldest"), { day: "2026-01-03", offset: 1 });
  assert.deepEqual(planSeek(days, 2, "newest"), { day: "2026-01-02", offset: 0 });
  assert.deepEqual(planSeek(days, 6, "newest"), { day: "2026-01-02", offset: 4 });
  assert.equal(planSeek(days, 10, "oldest"), undefined);
  assert.equal(planSeek([], 0, "newest"), undefined);
});

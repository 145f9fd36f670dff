import { test } from "node:test";
import assert from "node:assert/strict";
import { CounterDeltas, coveringSegments, segmentsOf } from "../src/domain/counters.js";
import { planSeek } from "../src/domain/record-queries.js";

/* The counters' rules, above the engines: checked here without any database. */

const record = { blocId: "b", createdAt: "2026-03-04 10:00:00", userId: "7", values: { site: "Cork", note: "x", empty: "" } };

test("a record is in all records, its owner's, and one segment per non-empty profile value", () => {
  assert.deepEqual(segmentsOf(record, ["site"]), ["", "u:7", "p:site:Cork"]);
  assert.deepEqual(segmentsOf(record, ["empty"]), ["", "u:7"]);
  assert.deepEqual(segmentsOf(record, []), ["", "u:7"]);
});

test("deltas count a record once per segment and day, and each non-empty value per segment", () => {
  const deltas = new CounterDeltas();
  deltas.add(record, ["site"], 1);
  assert.deepEqual(deltas.days(), [["b", "", "2026-03-04", 1], ["b", "p:site:Cork", "2026-03-04", 1], ["b", "u:7", "2026-03-04", 1]]);
  assert.equal(deltas.values().length, 6, "site and note, in three segments; the empty value is not counted");
  assert.ok(deltas.values().every(([, , slug]) => slug !== "empty"));
});

test("a record that leaves and enters again changes nothing, and zero changes are not written", () => {
  const deltas = new CounterDeltas();
  deltas.add(record, ["site"], 1);
  deltas.add(record, ["site"], -1);
  assert.deepEqual([deltas.days(), deltas.values()], [[], []]);
});

test("a value change moves one count between values in every segment of the record", () => {
  const deltas = new CounterDeltas();
  deltas.addValue(record, [], "note", "x", -1);
  deltas.addValue(record, [], "note", "y", 1);
  deltas.addValue(record, [], "note", "", 1);
  assert.deepEqual(deltas.values(), [
    ["b", "", "note", "x", -1], ["b", "", "note", "y", 1], ["b", "u:7", "note", "x", -1], ["b", "u:7", "note", "y", 1],
  ]);
});

test("merged units add up, and pending records are counted from a period's first day", () => {
  const batch = new CounterDeltas();
  for (const createdAt of ["2026-03-01 09:00:00", "2026-03-04 10:00:00", "2026-03-04 11:00:00"]) {
    const unit = new CounterDeltas();
    unit.add({ ...record, createdAt }, [], 1);
    batch.merge(unit);
  }
  assert.equal(batch.recordsSince("b", null), 3);
  assert.equal(batch.recordsSince("b", "2026-03-02"), 2);
  assert.equal(batch.recordsSince("other", null), 0);
  batch.clear();
  assert.ok(batch.empty);
});

test("changes come out in key order, so that concurrent writers lock counter rows in one order", () => {
  const deltas = new CounterDeltas();
  for (const userId of ["9", "10", "1"]) deltas.add({ ...record, userId }, [], 1);
  const keys = deltas.days().map((d) => JSON.stringify(d.slice(0, 3)));
  assert.deepEqual(keys, [...keys].sort());
});

test("the counters cover one segment, or disjoint profile segments, and nothing with value conditions", () => {
  assert.deepEqual(coveringSegments({ blocId: "b" }, []), [""]);
  assert.deepEqual(coveringSegments({ blocId: "b", visibility: { ownerId: "7" } }, []), ["u:7"]);
  assert.deepEqual(coveringSegments({ blocId: "b", visibility: { match: [{ key: "site", values: ["Cork", "Cork", "Dublin"] }] } }, ["site"]),
    ["p:site:Cork", "p:site:Dublin"]);
  assert.equal(coveringSegments({ blocId: "b", visibility: { match: [{ key: "site", values: ["Cork"] }] } }, []), undefined);
  assert.equal(coveringSegments({ blocId: "b", visibility: { match: [{ key: "site", values: [""] }] } }, ["site"]), undefined);
  assert.equal(coveringSegments({ blocId: "b", visibility: { ownerId: "7", match: [{ key: "site", values: ["Cork"] }] } }, ["site"]), undefined);
  assert.equal(coveringSegments({ blocId: "b", match: [{ key: "note", values: ["x"] }] }, []), undefined);
  assert.deepEqual(coveringSegments({ blocId: "b", match: [{ key: "note", values: [] }] }, []), [""]);
  assert.equal(coveringSegments({ blocId: "b", visibility: { none: true } }, []), undefined);
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

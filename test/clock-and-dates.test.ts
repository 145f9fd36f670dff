import { test } from "node:test";
import assert from "node:assert/strict";
import { makeClock } from "../src/domain/clock.js";
import { parseBound, parseWindow } from "../src/domain/dates.js";
import { InvalidInputError } from "../src/domain/errors.js";

test("the clock writes wall time in the configured zone", () => {
  const instant = new Date("2026-07-01T23:30:05Z");
  assert.equal(makeClock("UTC", () => instant)(), "2026-07-01 23:30:05");
  assert.equal(makeClock("Europe/Dublin", () => instant)(), "2026-07-02 00:30:05");
  assert.equal(makeClock("America/New_York", () => instant)(), "2026-07-01 19:30:05");
  assert.equal(makeClock("UTC", () => new Date("2026-01-01T00:00:00Z"))(), "2026-01-01 00:00:00");
});

test("date-only bounds cover whole days; full ones are kept", () => {
  assert.equal(parseBound("fromDate", "2026-03-01", "start"), "2026-03-01 00:00:00");
  assert.equal(parseBound("toDate", "2026-03-01", "end"), "2026-03-01 23:59:59");
  assert.equal(parseBound("toDate", "2026-03-01 10:11:12", "end"), "2026-03-01 10:11:12");
  assert.equal(parseBound("toDate", "2024-02-29", "end"), "2024-02-29 23:59:59");
});

for (const bad of ["2026-02-29", "2026-13-01", "2026-04-31", "2026-01-01 24:00:00", "2026-01-01 10:60:00", "01/02/2026", "2026-1-1", 20260101]) {
  test(`${JSON.stringify(bad)} is refused naming the parameter`, () => {
    assert.throws(() => parseBound("toDate", bad, "end"), (e: unknown) => e instanceof InvalidInputError && e.message.includes("toDate"));
  });
}

test("a window whose start is after its end is refused; empty bounds impose nothing", () => {
  assert.deepEqual(parseWindow({ from: "f", to: "t" }, "", undefined), {});
  assert.deepEqual(parseWindow({ from: "f", to: "t" }, "2026-01-02", "2026-01-02"),
    { from: "2026-01-02 00:00:00", to: "2026-01-02 23:59:59" });
  assert.throws(() => parseWindow({ from: "f", to: "t" }, "2026-01-03", "2026-01-02"), InvalidInputError);
});

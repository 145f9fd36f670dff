import type { Prng } from "./prng.js";
import type { Draft } from "./request.js";
import type { World } from "./world.js";
import { JsonString, objectOf, RawJson } from "./json-text.js";
import { deepNesting, FORMULA_TEXT, IMPOSSIBLE_DATES, JSON_PATH_TEXT, PROTOTYPE_KEYS, SQL_TEXT, UNICODE_TEXT } from "./nasty.js";
import { unknownId } from "./unknown.js";

/**
 * One way to break a request so that the service must refuse it. `build` makes a
 * request that would be valid but for that one broken rule (noise is added later,
 * away from the keys the rule lives in).
 */
export interface Case {
  readonly name: string;
  readonly weight: number;
  build(rng: Prng, world: World): Draft;
}

/** Values that are not a bloc ID of any kind: the wrong JSON type. */
export function wrongTypeId(rng: Prng): unknown {
  return rng.pick<unknown>([{}, [], true, false, 1.5, -0.5, new RawJson("1e300"), new RawJson("1e400"), ["fuzz_main"],
    objectOf([["id", "fuzz_main"]]), objectOf([["__proto__", "fuzz_main"]]), [[[]]]]);
}

/** A bloc ID that names no bloc. */
export function unknownBlocId(rng: Prng, world: World): string {
  return unknownId(rng, world.existing.blocs, 100_000);
}

/** An ID far beyond any sane length: 100 KB to 900 KB of UTF-8, so that a body holding it stays under 1 MiB. */
export function hugeId(rng: Prng): string {
  const unit = rng.pick(["b", "é", "'", "%", "\u{1F4A9}"]);
  return unit.repeat(Math.floor(rng.pick([100_000, 400_000, 900_000]) / Buffer.byteLength(unit)));
}

/** A key that is no field slug of the main bloc and no system key a body may name. */
export function unknownSlug(rng: Prng, world: World, allowed: readonly string[] = []): string {
  const pool = [
    ...PROTOTYPE_KEYS, ...SQL_TEXT, ...JSON_PATH_TEXT, "created_at", "user_id", "time_stamp", "date_stamp",
    "service_entry_row_id", "submitted_status", "field_99", "FIELD_1", "field_1 ", " field_1", "field-1", "", "count",
    "fieldCounts", "\u0000", "field_1\u0000", "a".repeat(300),
  ];
  for (;;) {
    const slug = rng.pick(pool);
    if (!world.main.allSlugs.includes(slug) && !allowed.includes(slug)) return slug;
  }
}

/** Deep nesting that a parser accepts and a recursive printer cannot print. */
export function deepValue(rng: Prng): RawJson {
  for (;;) {
    const value = deepNesting(rng);
    if (value.text.length > 20_000) return value;
  }
}

/** Values a field of each type refuses; each list holds only non-empty values (empty passes all but `required`). */
export const BAD_NUMBERS = [
  "abc", "1,5", "0x10", "Infinity", "NaN", "1e", "--1", " 1", "1 ", "+1", "1.2.3", "\u0661\u0662", "½", "1_000", "1e+",
  ...FORMULA_TEXT, ...SQL_TEXT,
];

export const BAD_DATES = IMPOSSIBLE_DATES.filter((d) => d.trim() !== "").concat(["2026-01-05 10:00:00"]);
export const BAD_DATETIMES = IMPOSSIBLE_DATES.filter((d) => d.trim() !== "").concat(["2026-01-05"]);

/** Values that are not one of A, B, C. */
export function badOption(rng: Prng, options: readonly string[]): string {
  for (;;) {
    const value = rng.pick(["D", "a", "A ", " A", "AB", "", ...FORMULA_TEXT, ...SQL_TEXT, ...UNICODE_TEXT]);
    if (value !== "" && !options.includes(value)) return value;
  }
}

/** A serial the unique field's pattern ([A-Z0-9-]+) refuses. */
export function badSerialPattern(rng: Prng): string {
  for (;;) {
    const value = rng.pick(["ser-1", "SER 1", "SER_1", "É", "=1+1", ...SQL_TEXT, ...FORMULA_TEXT, ...JSON_PATH_TEXT]);
    if (value !== "" && !/^(?:[A-Z0-9-]+)$/u.test(value) && [...value].length <= 20) return value;
  }
}

/** A value no field type accepts: not a string, number, boolean or null, or a string holding U+0000. */
export function unstorableValue(rng: Prng): unknown {
  return rng.pick<unknown>([{}, [], [1], objectOf([["__proto__", "x"]]), new RawJson("1e400"), new RawJson("-1e400"),
    "a\u0000b", "\u0000", [[["deep"]]], objectOf([["constructor", objectOf([["prototype", {}]])]])]);
}

/** Like unstorableValue, but never an array (a report filter takes an array as its list of values). */
export function unstorableScalar(rng: Prng): unknown {
  return rng.pick<unknown>([{}, objectOf([["__proto__", "x"]]), new RawJson("1e400"), "a\u0000b", "\u0000",
    objectOf([["constructor", objectOf([["prototype", {}]])]])]);
}

/** Sometimes as the object itself, sometimes as a string holding its JSON (both are accepted forms). */
export function jsonParam(rng: Prng, value: Record<string, unknown>): unknown {
  return rng.chance(0.6) ? new JsonString(value) : value;
}

/** Removes a key, or sends it blank or null (all read as absent). */
export function absent(rng: Prng, params: Record<string, unknown>, key: string): void {
  const how = rng.below(4);
  if (how === 0) delete params[key];
  else params[key] = ["", "   ", null][how - 1];
}

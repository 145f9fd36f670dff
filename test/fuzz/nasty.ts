import type { Prng } from "./prng.js";
import { BadUtf8, JsonString, objectOf, RawJson } from "./json-text.js";

/**
 * Pools of hostile values. None of them is a refusal on its own in every place (a
 * formula is a fine value for a text field): the generator decides where each one
 * makes a request certainly invalid, and uses the rest only as noise.
 */

export const SQL_TEXT = [
  "' OR '1'='1", "'; DROP TABLE records; --", "\" OR 1=1 --", "1; SELECT pg_sleep(5)--", "%", "_", "%_%", "\\",
  "' UNION SELECT hash FROM tokens --", "$$; DELETE FROM blocs; $$", "x'||(SELECT name FROM users LIMIT 1)||'",
  "'); ATTACH DATABASE '/tmp/x.db' AS x; --", "COLLATE NOCASE", "\\x27", "?", "$1", ":name", "@p0",
];

export const JSON_PATH_TEXT = [
  "$.field_1", "$..*", "$[0]", "data->>'field_1'", "data #>> '{field_1}'", "field_1.value", "field_1[0]", "@.x",
  "$[?(@.a=='b')]", "{\"$ne\":null}", "{\"$gt\":\"\"}", "->", "#>>", "'$.a'", "json_extract(data,'$')", "*", "..", "a.b.c",
];

export const FORMULA_TEXT = [
  "=cmd|' /C calc'!A0", "=HYPERLINK(\"http://example.invalid\",\"x\")", "+SUM(1,1)", "-2+3+cmd|' /C calc'!A0",
  "@SUM(1+9)*cmd|' /C calc'!A0", "=1+1", "\t=1+2", "\r=1", "DDE(\"cmd\";\"/C calc\";\"!A0\")", "=IMPORTXML(CONCAT(\"x\",A1),\"//a\")",
];

export const UNICODE_TEXT = [
  "\uFFFE", "\uFFFF", "a\uFFFFb", "\uD800", "\uDC00x", "\u202Egnp.exe", "\u200B", "\u0085", "\u2028\u2029", "e\u0301",
  "\u{1F4A9}", "ｆｕｌｌｗｉｄｔｈ", "\u0007\u0008\u001b[31m", "\t\n\r", "null", "undefined", "true", "NaN", "[object Object]",
];

export const PROTOTYPE_KEYS = [
  "__proto__", "constructor", "prototype", "toString", "valueOf", "hasOwnProperty", "__defineGetter__", "isPrototypeOf",
];

/** Dates that look like dates but are not real ones, or are not in the service's forms. */
export const IMPOSSIBLE_DATES = [
  "2026-02-30", "2025-02-29", "2026-13-01", "2026-00-10", "2026-04-31", "0000-00-00", "2026-01-32", "2026-1-5",
  "05/01/2026", "2026/01/05", "2026-01-05T10:00:00Z", "2026-01-05 24:00:00", "2026-01-05 10:60:00", "2026-01-05 10:00:60",
  "2026-01-05 10:00", "2026-01-05 1:00:00", "+2026-01-05", "２０２６-01-05", "2026-01-05\u0000", "yesterday", "now",
  "1e3", "2026-01-05 10:00:00.000", "-0001-01-01",
];

/** JSON number texts: huge, tiny, fractional, beyond doubles (1e400 parses to Infinity). */
export const NUMBER_TEXTS = [
  "1e308", "-1e308", "1e400", "-1e400", "1e-400", "0.5", "1.5", "-0", "-1", "0", "9007199254740993", "1.0000000000000002",
  "123456789012345678901234567890", "2.5e3", "1E2",
];

/** Byte runs that are not UTF-8: lone continuation, overlong, surrogate, truncated, out of range. */
export const BAD_UTF8 = [
  [0x80], [0xff], [0xc0, 0xaf], [0xe0, 0x80, 0xaf], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xc3], [0xe2, 0x82],
  [0xfe, 0xfe, 0xff, 0xff], [0xc3, 0x28], [0xf0, 0x28, 0x8c, 0x28],
].map((bytes) => Buffer.from(bytes));

/** Deep nesting as text: JSON.parse takes it, JSON.stringify of the result overflows the stack. */
export function deepNesting(rng: Prng): RawJson {
  const depth = rng.pick([64, 1000, 10_000, 100_000]);
  const [open, close] = rng.chance(0.5) ? ["[", "]"] : ['{"a":', "}"];
  const inner = rng.pick(["1", "\"x\"", "null", "{}", "[]"]);
  return new RawJson(open.repeat(depth) + inner + close.repeat(depth));
}

/** A long string, up to 600 KB of UTF-8 (under the 1 MiB body limit on its own). */
export function longText(rng: Prng): string {
  const unit = rng.pick(["x", "é", "\u{1F4A9}", "'", "\"", "\\"]);
  return unit.repeat(Math.floor(rng.pick([1024, 10_000, 100_000, 600_000]) / Buffer.byteLength(unit)));
}

/** Any hostile string. */
export function nastyText(rng: Prng): string {
  return rng.pick(rng.pick([SQL_TEXT, JSON_PATH_TEXT, FORMULA_TEXT, UNICODE_TEXT, PROTOTYPE_KEYS, IMPOSSIBLE_DATES]));
}

/** Invalid UTF-8 inside an otherwise ordinary string. */
export function badUtf8(rng: Prng, before = "", after = ""): BadUtf8 {
  return new BadUtf8(before, rng.pick(BAD_UTF8), after);
}

/**
 * Any hostile JSON value, for noise (keys a service ignores) and for places where
 * anything but one type is refused. `depth` bounds nesting of the object forms.
 */
export function nastyValue(rng: Prng, depth = 2): unknown {
  const kind = rng.below(14);
  switch (kind) {
    case 0: return nastyText(rng);
    case 1: return longText(rng);
    case 2: return deepNesting(rng);
    case 3: return new RawJson(rng.pick(NUMBER_TEXTS));
    case 4: return badUtf8(rng, nastyText(rng));
    case 5: return rng.pick([true, false, null, 0, -1, 1.5, [], {}]);
    case 6: return depth <= 0 ? "x" : objectOf([[rng.pick(PROTOTYPE_KEYS), nastyValue(rng, depth - 1)]]);
    case 7: return depth <= 0 ? [] : [nastyValue(rng, depth - 1), nastyValue(rng, depth - 1)];
    case 8: return new JsonString(depth <= 0 ? "x" : nastyValue(rng, depth - 1));
    case 9: return objectOf([["__proto__", objectOf([["isAdmin", true], ["role", "admin"], ["blocId", "fuzz_main"]])]]);
    case 10: return objectOf([["constructor", objectOf([["prototype", objectOf([["polluted", "yes"]])]])]]);
    case 11: return rng.pick(FORMULA_TEXT);
    case 12: return rng.pick(IMPOSSIBLE_DATES);
    default: return rng.pick(UNICODE_TEXT);
  }
}

import type { Prng } from "./prng.js";
import { JSON_PATH_TEXT, PROTOTYPE_KEYS, SQL_TEXT, UNICODE_TEXT } from "./nasty.js";

/**
 * IDs, slugs and references that name nothing. A request naming one of them where
 * something must exist is certainly refused, so each candidate is checked against what
 * does exist: trimmed (the service trims IDs) and, for numbers, by value (SQLite
 * compares "01" equal to 1 in an INTEGER column).
 */
export function isUnknown(candidate: string, existing: ReadonlySet<string>): boolean {
  const trimmed = candidate.trim();
  if (existing.has(candidate) || existing.has(trimmed)) return false;
  if (trimmed !== "" && Number.isFinite(Number(trimmed))) {
    for (const id of existing) if (Number.isFinite(Number(id)) && Number(id) === Number(trimmed)) return false;
  }
  return true;
}

function candidate(rng: Prng, maxLength: number): string {
  switch (rng.below(9)) {
    case 0: return rng.pick(SQL_TEXT);
    case 1: return rng.pick(JSON_PATH_TEXT);
    case 2: return rng.pick(PROTOTYPE_KEYS);
    case 3: return rng.pick(UNICODE_TEXT);
    case 4: return String(rng.between(1_000_000, 2_000_000_000));
    case 5: return rng.pick(["-1", "0", "1.5", "-0", "NaN", "Infinity", "1e999", "00000000-0000-0000-0000-000000000000"]);
    case 6: return "z".repeat(rng.pick([65, 200, Math.min(maxLength, 3000)]));
    case 7: return `fuzz_main${rng.pick(["'", "%", "_x", "\u0000", "/..", "%00", ".", "*"])}`;
    default: return `nope-${rng.uint32().toString(36)}`;
  }
}

/** A string that is not one of `existing`, at most `maxLength` characters (a path has room for about 3,000). */
export function unknownId(rng: Prng, existing: ReadonlySet<string>, maxLength = 3000): string {
  for (;;) {
    const value = candidate(rng, maxLength).slice(0, maxLength);
    if (value.trim() !== "" && isUnknown(value, existing)) return value;
  }
}

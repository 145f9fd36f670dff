import type { ValueCounts } from "./ports/store.js";

/*
 * get-data's `fieldCounts`, bounded whatever the data holds. Counts stay exact; what is
 * bounded is which values are listed: per field the most frequent first, at most the
 * configured number, never a value longer than LISTED_VALUE_MAX characters, and only
 * while the field's and the answer's byte budgets last. A field whose listing leaves
 * any value out is named in `partial`.
 */

/** Values longer than this many characters are never listed (nor read by the engines: they come back as null). */
export const LISTED_VALUE_MAX = 256;
/** Bytes of JSON one field's listing may take. */
export const FIELD_COUNTS_FIELD_BYTES = 64 * 1024;
/** Bytes of JSON all fields' listings may take together; fields are listed in bloc order. */
export const FIELD_COUNTS_BYTES = 1024 * 1024;
/** The least a listed value takes (`"x":1,`): so no field ever needs more values read than this. */
const MIN_ENTRY_BYTES = 6;

export interface FieldCounts {
  /** Field slug → value → records holding it, most frequent first. */
  readonly listed: Record<string, Record<string, number>>;
  /** Slugs of the fields whose listing leaves some value out. */
  readonly partial: readonly string[];
}

/**
 * How many values to ask the engines for per field: one more than can be listed, so
 * that a listing cut short by the count is told from a complete one. `limit` is
 * BLOC_FIELD_COUNTS_LIMIT (0: no count limit, only the byte budget).
 */
export function valuesToRead(limit: number): number {
  const most = Math.floor(FIELD_COUNTS_FIELD_BYTES / MIN_ENTRY_BYTES);
  return (limit > 0 ? Math.min(limit, most) : most) + 1;
}

/** Whether a value is longer than LISTED_VALUE_MAX characters (code points, as SQL's length() counts). */
export function tooLongToList(value: string): boolean {
  if (value.length <= LISTED_VALUE_MAX) return false;
  if (value.length > 2 * LISTED_VALUE_MAX) return true;
  let points = 0;
  for (const _ of value) if (++points > LISTED_VALUE_MAX) return true;
  return false;
}

/** Printable ASCII that JSON writes as it is: most values, whose JSON size is then their length and two quotes. */
const PLAIN = /^[ !#-[\]-~]*$/;

/** Bytes a value takes as a JSON string. */
function jsonBytes(value: string): number {
  return PLAIN.test(value) ? value.length + 2 : Buffer.byteLength(JSON.stringify(value));
}

/**
 * Lists the ranked values of each field (as the engines return them, at most
 * valuesToRead(limit) per field) within the bounds. Objects without a prototype, so
 * that a value or slug such as "__proto__" or "toString" is a key like any other.
 */
export function listFieldCounts(slugs: readonly string[], ranked: ValueCounts, limit: number): FieldCounts {
  const listed: Record<string, Record<string, number>> = Object.create(null) as Record<string, Record<string, number>>;
  const partial: string[] = [];
  const most = valuesToRead(limit) - 1;
  let left = FIELD_COUNTS_BYTES;
  for (const slug of slugs) {
    const values = ranked.get(slug) ?? [];
    const counts = Object.create(null) as Record<string, number>;
    let budget = Math.min(FIELD_COUNTS_FIELD_BYTES, left);
    let complete = values.length <= most;
    for (const [value, n] of values.slice(0, most)) {
      if (value === null) { complete = false; continue; }
      const bytes = jsonBytes(value) + String(n).length + 2;
      if (bytes > budget) { complete = false; break; }
      budget -= bytes;
      left -= bytes;
      counts[value] = n;
    }
    listed[slug] = counts;
    if (!complete) partial.push(slug);
  }
  return { listed, partial };
}

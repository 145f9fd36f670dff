import { InvalidInputError } from "./errors.js";

/**
 * The longest ID (bloc, user, role, token, module, field slug, jobID) a request may name.
 * Generated IDs are UUIDs (36 characters) or decimal numbers; a longer one can name
 * nothing, so it is refused before any lookup and never reaches a cache.
 */
export const MAX_ID_LENGTH = 128;

/** Bounds on what one record write may carry (BLOC_MAX_VALUE_BYTES, BLOC_MAX_FIELDS_PER_RECORD). */
export interface RecordLimits {
  readonly maxValueBytes: number;
  readonly maxFieldsPerRecord: number;
}

/**
 * A client's value as an error message may quote it: short, and never the whole of a
 * large or deeply nested value (stringifying one is both slow and a stack overflow).
 */
export function describeValue(value: unknown): string {
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object" && value !== null) return "an object";
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** Refuses a value longer than the limit, counted in UTF-8 bytes as it is stored. */
export function checkValueSize(where: string, value: string, limits: RecordLimits): void {
  // Every UTF-16 unit is at most 3 UTF-8 bytes, so most values need no counting.
  if (value.length * 3 > limits.maxValueBytes && Buffer.byteLength(value, "utf8") > limits.maxValueBytes) {
    throw new InvalidInputError(`${where} is longer than ${limits.maxValueBytes} bytes`);
  }
}

/** Refuses a write naming more fields than the limit. */
export function checkFieldCount(where: string, values: Readonly<Record<string, unknown>>, limits: RecordLimits): void {
  const count = Object.keys(values).length;
  if (count > limits.maxFieldsPerRecord) {
    throw new InvalidInputError(`${where} names ${count} fields; at most ${limits.maxFieldsPerRecord} are allowed`);
  }
}

/**
 * Values travel and are stored as strings. Numbers and booleans are accepted and
 * kept in their string form; null means "no value" and is stored as "".
 */
export function toStoredValue(where: string, value: unknown): string {
  if (value === null) return "";
  if (typeof value === "string") {
    // PostgreSQL's text and JSON cannot hold it: refused alike on every engine, so that any instance can move to any engine.
    if (value.includes("\u0000")) throw new InvalidInputError(`${where} must not contain the character U+0000`);
    return value;
  }
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  if (typeof value === "boolean") return String(value);
  throw new InvalidInputError(`${where} must be a string, number, boolean or null`);
}

/**
 * The value a record (or any object keyed by slug) holds under `key`, if it holds one
 * itself: `values.toString` of a plain object is Object's method, not a field's value.
 */
export function ownValue(values: Readonly<Record<string, string>>, key: string): string | undefined {
  return Object.hasOwn(values, key) ? values[key] : undefined;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

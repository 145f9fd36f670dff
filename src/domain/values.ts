import { InvalidInputError } from "./errors.js";

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

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

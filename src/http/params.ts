import { InvalidInputError, MissingParameterError } from "../domain/errors.js";
import { describeValue, isPlainObject, MAX_ID_LENGTH } from "../domain/values.js";

/**
 * Readers for the spec's loosely typed parameters. Clients send IDs as strings or
 * numbers, "JSON-encoded strings" as strings or as the objects themselves, and
 * numbers or flags as strings when they come from a query string; all are accepted.
 */
export type Params = Readonly<Record<string, unknown>>;

export function present(value: unknown): boolean {
  return value !== undefined && value !== null && !(typeof value === "string" && value.trim() === "");
}

/** An ID as sent: a string, or a whole number read as its decimal string; never longer than MAX_ID_LENGTH. */
function idOf(name: string, value: unknown): string {
  if (typeof value === "number" && Number.isSafeInteger(value)) return String(value);
  if (typeof value !== "string") throw new InvalidInputError(`${name} must be a string or a whole number`);
  const id = value.trim();
  if (id.length > MAX_ID_LENGTH) throw new InvalidInputError(`${name} is longer than ${MAX_ID_LENGTH} characters`);
  return id;
}

/** A bloc ID: a non-blank string, or a whole number read as its decimal string. */
export function requiredId(params: Params, name: string): string {
  const value = params[name];
  if (!present(value)) throw new MissingParameterError(`${name} is required`);
  return idOf(name, value);
}

/** An ID that may be left out (jobID); null when absent. */
export function optionalId(params: Params, name: string): string | null {
  const value = params[name];
  return present(value) ? idOf(name, value) : null;
}

export function optionalString(params: Params, name: string): string | null {
  const value = params[name];
  if (!present(value)) return null;
  if (typeof value === "string") return value.trim();
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  throw new InvalidInputError(`${name} must be a string`);
}

/** An object sent either as itself or as a string holding its JSON; undefined when absent. */
export function jsonObject(params: Params, name: string): Record<string, unknown> | undefined {
  let value = params[name];
  if (!present(value)) return undefined;
  if (typeof value === "string") {
    try {
      value = JSON.parse(value);
    } catch (error) {
      throw new InvalidInputError(`${name} is not valid JSON: ${(error as Error).message}`);
    }
  }
  if (!isPlainObject(value)) throw new InvalidInputError(`${name} must be a JSON-encoded object`);
  return value;
}

export function integer(params: Params, name: string, range: { min: number; max: number; fallback: number }): number {
  const value = params[name];
  if (!present(value)) return range.fallback;
  const number = typeof value === "string" && /^\s*-?\d+\s*$/.test(value) ? Number(value) : value;
  if (typeof number !== "number" || !Number.isInteger(number) || number < range.min || number > range.max) {
    throw new InvalidInputError(`${name} must be a whole number from ${range.min} to ${range.max}, got ${describeValue(value)}`);
  }
  return number;
}

const TRUE = new Set<unknown>([true, "true", 1, "1"]);
const FALSE = new Set<unknown>([false, "false", 0, "0"]);

export function flag(params: Params, name: string, fallback: boolean): boolean {
  const value = params[name];
  if (!present(value)) return fallback;
  if (TRUE.has(value)) return true;
  if (FALSE.has(value)) return false;
  throw new InvalidInputError(`${name} must be true or false, got ${describeValue(value)}`);
}

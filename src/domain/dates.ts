import { InvalidInputError } from "./errors.js";
import type { Timestamp } from "./clock.js";
import { describeValue } from "./values.js";

const FORM = /^(\d{4})-(\d{2})-(\d{2})(?: (\d{2}):(\d{2}):(\d{2}))?$/;

function daysIn(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/**
 * Reads a date bound. Both forms are accepted everywhere, alone or together: a
 * date-only lower bound starts at 00:00:00 and a date-only upper bound ends at
 * 23:59:59, so `fromDate=toDate=2026-01-05` selects the whole day.
 */
export function parseBound(parameter: string, raw: unknown, edge: "start" | "end"): Timestamp {
  const text = typeof raw === "string" ? raw.trim() : undefined;
  const match = text === undefined ? null : FORM.exec(text);
  if (!match) {
    throw new InvalidInputError(`${parameter} must be a date "YYYY-MM-DD" or "YYYY-MM-DD HH:MM:SS", got ${describeValue(raw)}`);
  }
  const [year, month, day, hour, minute, second] = match.slice(1).map((p) => (p === undefined ? undefined : Number(p)));
  const valid = month! >= 1 && month! <= 12 && day! >= 1 && day! <= daysIn(year!, month!) &&
    (hour === undefined || (hour <= 23 && minute! <= 59 && second! <= 59));
  if (!valid) throw new InvalidInputError(`${parameter} is not a real date: ${describeValue(text)}`);
  if (hour !== undefined) return text!;
  return `${text} ${edge === "start" ? "00:00:00" : "23:59:59"}`;
}

export interface DateWindow {
  readonly from?: Timestamp;
  readonly to?: Timestamp;
}

/** Both bounds, checked against each other; absent or empty ones impose nothing. */
export function parseWindow(
  names: { from: string; to: string }, from: unknown, to: unknown,
): DateWindow {
  const window: { from?: Timestamp; to?: Timestamp } = {};
  if (from !== undefined && from !== null && from !== "") window.from = parseBound(names.from, from, "start");
  if (to !== undefined && to !== null && to !== "") window.to = parseBound(names.to, to, "end");
  if (window.from !== undefined && window.to !== undefined && window.from > window.to) {
    throw new InvalidInputError(`${names.from} (${window.from}) is after ${names.to} (${window.to})`);
  }
  return window;
}

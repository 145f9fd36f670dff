import { InvalidInputError } from "./errors.js";
import type { Timestamp } from "./clock.js";
import { ownValue } from "./values.js";

/**
 * Formats of auto-generated values: literal text, date parts of the record's
 * creation ({YYYY} {YY} {MM} {DD}), and exactly one zero-padded counter, {seq:N},
 * optionally counted separately per value of another field, {seq:N by field_2}.
 * Examples: `INV-{seq:5}` → INV-00042; `{YYYY}{MM}{DD}-{seq:3}` → 20261121-007.
 */
export interface ParsedFormat {
  readonly parts: readonly FormatPart[];
  readonly width: number;
  /** The field whose value keeps a counter of its own, if any. */
  readonly groupBy: string | null;
}

type FormatPart = { readonly text: string } | { readonly date: "YYYY" | "YY" | "MM" | "DD" } | { readonly seq: true };

const TOKEN = /\{([^{}]*)\}/g;
/** Counters stay exact JavaScript integers: at most 15 digits. */
export const MAX_SEQUENCE_DIGITS = 15;
export const MAX_SEQUENCE = 10 ** MAX_SEQUENCE_DIGITS - 1;
const SEQ = /^seq:(\d{1,2})(?: by ([A-Za-z_][A-Za-z0-9_]*))?$/;
const DATE_PARTS = new Set(["YYYY", "YY", "MM", "DD"]);

export function parseFormat(format: string, fieldSlugs: readonly string[]): ParsedFormat {
  const parts: FormatPart[] = [];
  let width = 0;
  let groupBy: string | null = null;
  let seqCount = 0;
  let last = 0;
  for (const match of format.matchAll(TOKEN)) {
    if (match.index > last) parts.push({ text: format.slice(last, match.index) });
    last = match.index + match[0].length;
    const token = match[1]!;
    const seq = SEQ.exec(token);
    if (seq) {
      seqCount += 1;
      width = Number(seq[1]);
      if (width < 1 || width > MAX_SEQUENCE_DIGITS) {
        throw new InvalidInputError(`format: {seq:N} takes a width from 1 to ${MAX_SEQUENCE_DIGITS}, got ${width}`);
      }
      groupBy = seq[2] ?? null;
      if (groupBy !== null && !fieldSlugs.includes(groupBy)) {
        throw new InvalidInputError(`format: {seq:${width} by ${groupBy}} names no field of this bloc`);
      }
      parts.push({ seq: true });
    } else if (DATE_PARTS.has(token)) {
      parts.push({ date: token as "YYYY" | "YY" | "MM" | "DD" });
    } else {
      throw new InvalidInputError(`format: unknown part {${token}}; use {seq:N}, {seq:N by <slug>}, {YYYY}, {YY}, {MM} or {DD}`);
    }
  }
  if (last < format.length) parts.push({ text: format.slice(last) });
  if (/[{}]/.test(parts.map((p) => ("text" in p ? p.text : "")).join(""))) {
    throw new InvalidInputError("format: braces must enclose a part such as {seq:5}");
  }
  if (seqCount !== 1) throw new InvalidInputError("format must hold exactly one {seq:N}");
  return { parts, width, groupBy };
}

/** The format made concrete for one record: everything but the counter. */
export interface SequenceTemplate {
  readonly prefix: string;
  readonly suffix: string;
  readonly width: number;
  /** Counters are kept per (field, group): the group-by field's value, or "". */
  readonly group: string;
  readonly groupBy: string | null;
}

export function template(format: ParsedFormat, createdAt: Timestamp, values: Readonly<Record<string, string>>): SequenceTemplate {
  const date: Record<string, string> = {
    YYYY: createdAt.slice(0, 4), YY: createdAt.slice(2, 4), MM: createdAt.slice(5, 7), DD: createdAt.slice(8, 10),
  };
  let prefix = "";
  let suffix = "";
  let afterSeq = false;
  for (const part of format.parts) {
    if ("seq" in part) { afterSeq = true; continue; }
    const text = "text" in part ? part.text : date[part.date]!;
    if (afterSeq) suffix += text; else prefix += text;
  }
  const group = format.groupBy === null ? "" : ownValue(values, format.groupBy) ?? "";
  return { prefix, suffix, width: format.width, group, groupBy: format.groupBy };
}

export function render(t: SequenceTemplate, seq: number): string {
  return `${t.prefix}${String(seq).padStart(t.width, "0")}${t.suffix}`;
}

/** The counter inside a value built from this template, or null if the value is not one. */
export function sequenceOf(t: SequenceTemplate, value: string): number | null {
  if (!value.startsWith(t.prefix) || !value.endsWith(t.suffix)) return null;
  const digits = value.slice(t.prefix.length, value.length - t.suffix.length);
  // Longer digit runs are not counters this service could continue exactly.
  return digits.length >= 1 && digits.length <= MAX_SEQUENCE_DIGITS && /^\d+$/.test(digits) ? Number(digits) : null;
}

/*
 * Values in their own order, not as text: numbers by size (3, 11, 12, 15, 20, where text
 * order gives 11, 12, 15, 20, 3), dates and times by time, the rest alphabetically with
 * runs of digits read as numbers (P-3 before P-11).
 */

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;
const DAY_MONTH_YEAR = /^(\d{1,2})[/.](\d{1,2})[/.](\d{4})(.*)$/;
const text = new Intl.Collator("en", { numeric: true, sensitivity: "base" });

/** An ISO-ordered form of a date written day first (31/12/2026 → 2026-12-31), else undefined. */
function isoOf(value: string): string | undefined {
  const match = DAY_MONTH_YEAR.exec(value.trim());
  return match ? `${match[3]}-${match[2]!.padStart(2, "0")}-${match[1]!.padStart(2, "0")}${match[4]}` : undefined;
}

export function compareValues(a: string, b: string): number {
  const x = a.trim();
  const y = b.trim();
  if (NUMBER.test(x) && NUMBER.test(y)) return Number(x) - Number(y) || (a < b ? -1 : a > b ? 1 : 0);
  const dx = isoOf(x);
  const dy = isoOf(y);
  if (dx !== undefined && dy !== undefined) return dx < dy ? -1 : dx > dy ? 1 : 0;
  return text.compare(x, y) || (a < b ? -1 : a > b ? 1 : 0);
}

/** Value counts most frequent first, equal counts in the values' own order. */
export function byCount(counts: Readonly<Record<string, number>>): [string, number][] {
  return Object.entries(counts).sort((a, b) => b[1] - a[1] || compareValues(a[0], b[0]));
}

/**
 * Whether a field's values repeat, so that a chart of them says something: some value is
 * held by two records or more. A field of serial numbers (every value once) gets no chart.
 */
export function repeats(counts: Readonly<Record<string, number>>): boolean {
  return Object.values(counts).some((n) => n >= 2);
}

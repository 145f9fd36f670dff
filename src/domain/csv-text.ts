/**
 * Cell text for a CSV report (RFC 4180). A spreadsheet that opens a CSV file has no cell
 * types to tell text from formulas, so text a spreadsheet would run (starting with `=`,
 * `+`, `-`, `@`, tab or carriage return) gets a leading apostrophe, as OWASP advises.
 * Text that already starts with an apostrophe gets one too, so the rule can be undone
 * exactly: a reader that wants the stored value removes one leading `'` from any cell
 * that has one (the client's `unguardCsvCell` does; the README says so).
 */
const FORMULA_START = /^[=+\-@\t\r']/;
const NEEDS_QUOTES = /[",\r\n]/;

/** The guarded, quoted text of one cell. */
export function csvCell(text: string): string {
  const guarded = FORMULA_START.test(text) ? `'${text}` : text;
  return NEEDS_QUOTES.test(guarded) ? `"${guarded.replace(/"/g, '""')}"` : guarded;
}

/** One record: cells joined by commas, ended by CRLF. */
export function csvLine(texts: readonly string[]): string {
  return `${texts.map(csvCell).join(",")}\r\n`;
}

/** Excel reads a CSV file as UTF-8 only when it starts with the byte order mark. */
export const CSV_BOM = "\uFEFF";

/**
 * Cell text for a CSV report (RFC 4180). A spreadsheet that opens a CSV file has no cell
 * types to tell text from formulas, and may split lines on `;` or tab as well as `,` (or
 * break them at a line feed a quote holds): so every piece of a cell, split on `,`, `;`,
 * tab, CR or LF, that starts with `=`, `+`, `-`, `@`, tab or CR gets an apostrophe before
 * it, as OWASP advises. `=1+1` becomes `'=1+1`, and `a;=1+1` becomes `a;'=1+1`: a leading
 * apostrophe alone would leave `=1+1` a cell of its own. A piece that already starts with
 * an apostrophe gets one too, so the rule can be undone exactly: a reader that wants the
 * stored value removes each `'` that starts the cell or follows one of those separators
 * (the client's `unguardCsvCell` does; docs/endpoints.md says so).
 */
const RISKY_PIECE = /(?:^|[,;\t\r\n])[=+\-@\t\r']/;
const RISKY_START = /(?<=^|[,;\t\r\n])(?=[=+\-@\t\r'])/g;
const NEEDS_QUOTES = /[",\r\n]/;

/** The guarded, quoted text of one cell. */
export function csvCell(text: string): string {
  // Most cells hold nothing risky: the test is cheaper than the replacement.
  const guarded = RISKY_PIECE.test(text) ? text.replace(RISKY_START, "'") : text;
  return NEEDS_QUOTES.test(guarded) ? `"${guarded.replace(/"/g, '""')}"` : guarded;
}

/** One record: cells joined by commas, ended by CRLF. */
export function csvLine(texts: readonly string[]): string {
  return `${texts.map(csvCell).join(",")}\r\n`;
}

/** Excel reads a CSV file as UTF-8 only when it starts with the byte order mark. */
export const CSV_BOM = "\uFEFF";

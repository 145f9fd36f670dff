/**
 * Cell text as a workbook carries it, chosen so that openpyxl and LibreOffice (and
 * Excel) read back exactly what the user stored. docs/performance.md ("Reports") lists
 * what was tried with each reader and the few things no encoding can carry.
 */

/**
 * Characters XML 1.0 cannot carry (C0 controls but tab, line feed and carriage return;
 * U+FFFE, U+FFFF; lone surrogates). They are dropped: the `_xHHHH_` escape Excel
 * defines for them is decoded by LibreOffice but read literally by openpyxl, so no
 * encoding gives both readers the original character.
 */
// eslint-disable-next-line no-control-regex -- these control characters are the ones XML cannot carry
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
// eslint-disable-next-line no-control-regex -- the same characters, tested for
const HAS_NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF\uD800-\uDFFF]/;
/** The most characters (UTF-16 code units) an Excel cell holds; Excel repairs, and cuts, longer text. */
export const CELL_MAX = 32_767;

/** Text a workbook can hold: XML-forbidden characters dropped, cut to CELL_MAX without splitting a pair. */
export function cellText(text: string): string {
  let cleaned = HAS_NOT_XML.test(text) ? text.replace(NOT_XML, "") : text;
  if (cleaned.length > CELL_MAX) {
    cleaned = cleaned.slice(0, CELL_MAX);
    if (/[\uD800-\uDBFF]$/.test(cleaned)) cleaned = cleaned.slice(0, -1);
  }
  return cleaned;
}

const XML_SPECIAL = /[&<>"\r]/;
const XML_SPECIALS = /[&<>"\r]/g;
const ENTITY: Readonly<Record<string, string>> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "\r": "&#13;" };

/**
 * Text (already through cellText) escaped for an XML text node or attribute. A carriage
 * return becomes a character reference: written raw, XML parsers turn it into a line feed.
 */
export function xmlEscape(text: string): string {
  return XML_SPECIAL.test(text) ? text.replace(XML_SPECIALS, (c) => ENTITY[c]!) : text;
}

/**
 * Text that looks like Excel's `_xHHHH_` escape. LibreOffice (and Excel) decode it in
 * every string, so it must be written as `_x005F_xHHHH_`; openpyxl undoes that prefix in
 * shared strings only (it reads inline strings literally). Such text therefore goes in
 * the shared-string table, everything else inline.
 */
// A lookahead, so that look-alikes sharing an underscore ("_x005F_x0041_") are each escaped.
const ESCAPE_LIKE = /_(?=x[0-9A-Fa-f]{4}_)/g;
const HAS_ESCAPE_LIKE = /_x[0-9A-Fa-f]{4}_/;

export function needsSharedString(text: string): boolean {
  return HAS_ESCAPE_LIKE.test(text);
}

/** Shared-string text: `_xHHHH_` look-alikes get the `_x005F_` prefix (an escaped "_"), then XML escaping. */
export function sharedStringXml(text: string): string {
  return xmlEscape(text.replace(ESCAPE_LIKE, "_x005F_"));
}

/** Column letters: 0 → A, 25 → Z, 26 → AA. */
export function columnName(index: number): string {
  let name = "";
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) name = String.fromCharCode(65 + ((n - 1) % 26)) + name;
  return name;
}

/** Excel limits sheet names to 31 characters and forbids a few. */
export function sheetName(name: string, part: number): string {
  const suffix = part === 1 ? "" : ` (${part})`;
  let cleaned = cellText(name).replace(/[[\]:*?/\\\t\n\r]/g, " ").trim().replace(/^'+|'+$/g, "");
  if (cleaned === "") cleaned = "Report";
  cleaned = cleaned.slice(0, 31 - suffix.length).replace(/[\uD800-\uDBFF]$/, "");
  return cleaned + suffix;
}

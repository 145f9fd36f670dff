import { Readable } from "node:stream";
import type { Report } from "./report.js";
import { CSV_BOM, csvLine } from "./csv-text.js";
import { cellText } from "./xlsx-text.js";
import { XlsxWorkbook } from "./xlsx-workbook.js";

/** `{"data":[row, …]}`, produced as the rows arrive. */
export function reportJson(report: Report): Readable {
  async function* chunks(): AsyncGenerator<string> {
    let separator = "";
    yield '{"data":[';
    for await (const batch of report.rows) {
      if (batch.length === 0) continue;
      yield separator + batch.join(",");
      separator = ",";
    }
    yield "]}";
  }
  return Readable.from(chunks(), { objectMode: false });
}

/**
 * A CSV file (RFC 4180, UTF-8 with a byte order mark, CRLF line ends; csv-text.ts): the
 * header row the workbook has, then one line per row, a batch at a time. Readable.from
 * waits for the reader, so memory stays flat however many rows the report has.
 */
export function reportCsv(report: Report): Readable {
  const keys = report.columns.map((c) => c.key);
  async function* chunks(): AsyncGenerator<string> {
    yield CSV_BOM + csvLine(report.columns.map((c) => c.header));
    const texts = new Array<string>(keys.length);
    for await (const batch of report.rows) {
      let lines = "";
      for (const json of batch) {
        const row = JSON.parse(json) as Record<string, string | number | null>;
        for (let i = 0; i < keys.length; i += 1) {
          // Own keys only: a column named "toString" must not find Object's.
          const value = Object.hasOwn(row, keys[i]!) ? row[keys[i]!] : "";
          texts[i] = typeof value === "string" ? value : value === null || value === undefined ? "" : String(value);
        }
        lines += csvLine(texts);
      }
      if (lines !== "") yield lines;
    }
  }
  return Readable.from(chunks(), { objectMode: false });
}

/**
 * An .xlsx workbook written row by row (xlsx-workbook.ts; file references become links
 * to their download), waiting for deflate and the reader whenever they fall behind, so
 * memory stays flat however many rows the report has. A reader that leaves stops the
 * writing.
 */
export function reportXlsx(report: Report, fileUrl: (ref: string) => string): Readable {
  const columns = report.columns;
  const keys = columns.map((c) => c.key);
  const workbook = new XlsxWorkbook(report.bloc.name, columns.map((c) => cellText(c.header)),
    (i, text) => (columns[i]!.file ? fileUrl(text) : undefined));
  const write = async (): Promise<void> => {
    const texts = new Array<string>(keys.length);
    for await (const batch of report.rows) {
      for (const json of batch) {
        const row = JSON.parse(json) as Record<string, string>;
        for (let i = 0; i < keys.length; i += 1) {
          // Own keys only: a column named "toString" must not find Object's.
          texts[i] = Object.hasOwn(row, keys[i]!) ? cellText(row[keys[i]!]!) : "";
        }
        // One await per batch; a row only awaits when it starts a new sheet.
        if (!workbook.add(texts) && !(await workbook.row(texts))) return;
      }
      if (!(await workbook.flush())) return;
    }
    await workbook.end();
  };
  write().catch((error: unknown) => workbook.destroy(error instanceof Error ? error : new Error(String(error))));
  return workbook.readable;
}

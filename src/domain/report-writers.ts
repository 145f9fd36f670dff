import { PassThrough, Readable } from "node:stream";
import ExcelJS from "exceljs";
import type { Report } from "./report.js";

/** Writes are gathered into chunks of about this size; one write per row would cost more than the row. */
const CHUNK_CHARS = 64 * 1024;

/** `{"data":[row, …]}`, produced as the rows arrive. */
export function reportJson(report: Report): Readable {
  async function* chunks(): AsyncGenerator<string> {
    let chunk = '{"data":[';
    let first = true;
    for await (const row of report.rows) {
      chunk += (first ? "" : ",") + JSON.stringify(row);
      first = false;
      if (chunk.length >= CHUNK_CHARS) { yield chunk; chunk = ""; }
    }
    yield `${chunk}]}`;
  }
  return Readable.from(chunks(), { objectMode: false });
}

/** Excel limits sheet names to 31 characters and forbids a few. */
function sheetName(name: string): string {
  const cleaned = name.replace(/[[\]:*?/\\]/g, " ").trim().slice(0, 31);
  return cleaned === "" ? "Report" : cleaned;
}

/** Resolves true when `stream` can take more, false when it was closed (the client left). */
function drained(stream: PassThrough): Promise<boolean> {
  return new Promise((resolve) => {
    const onDrain = (): void => { stream.off("close", onClose); resolve(true); };
    const onClose = (): void => { stream.off("drain", onDrain); resolve(false); };
    stream.once("drain", onDrain);
    stream.once("close", onClose);
  });
}

/**
 * An .xlsx workbook written row by row (file references become links to their download) with ExcelJS's streaming writer, waiting for
 * the reader whenever the output buffer is full, so memory stays flat however many
 * rows the report has.
 */
export function reportXlsx(report: Report, fileUrl: (ref: string) => string): Readable {
  const output = new PassThrough();
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: output, useStyles: false, useSharedStrings: false });
  const sheet = workbook.addWorksheet(sheetName(report.bloc.name));
  const write = async (): Promise<void> => {
    sheet.addRow(report.columns.map((c) => c.header)).commit();
    for await (const row of report.rows) {
      sheet.addRow(report.columns.map((c) => {
        const value = row[c.key] ?? "";
        return c.file && value !== "" ? { text: value, hyperlink: fileUrl(value) } : value;
      })).commit();
      if (output.writableNeedDrain && !(await drained(output))) return;
    }
    sheet.commit();
    await workbook.commit();
  };
  write().catch((error: unknown) => output.destroy(error instanceof Error ? error : new Error(String(error))));
  return output;
}

import { PassThrough, Readable } from "node:stream";
import { setImmediate as nextTurn } from "node:timers/promises";
import ExcelJS from "exceljs";
import type { Report } from "./report.js";

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
 * Characters XML 1.0 forbids (C0 controls but tab, line feed and carriage return;
 * U+FFFE, U+FFFF; lone surrogates). One of them in a cell makes the whole workbook
 * unreadable, so each becomes U+FFFD REPLACEMENT CHARACTER.
 */
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
/** The most characters an Excel cell holds; Excel repairs (and cuts) a workbook with longer text. */
export const CELL_MAX = 32_767;

/** Text as a workbook may hold it: XML-forbidden characters replaced, cut to CELL_MAX without splitting a pair. */
export function cellText(text: string): string {
  let cleaned = text.replace(NOT_XML, "\uFFFD");
  if (cleaned.length > CELL_MAX) {
    cleaned = cleaned.slice(0, CELL_MAX);
    if (/[\uD800-\uDBFF]$/.test(cleaned)) cleaned = cleaned.slice(0, -1);
  }
  return cleaned;
}

/** Excel limits sheet names to 31 characters and forbids a few. */
function sheetName(name: string): string {
  const cleaned = cellText(name).replace(/[[\]:*?/\\]/g, " ").trim().slice(0, 31).replace(/[\uD800-\uDBFF]$/, "");
  return cleaned === "" ? "Report" : cleaned;
}

/** Uncompressed sheet data may wait in the zip at most this long before rows stop being added. */
const MAX_PENDING_BYTES = 4 * 1024 * 1024;

interface StreamState { readonly length?: number }
interface PipeInternals { readonly _writableState?: StreamState; readonly _readableState?: StreamState }

/**
 * How much sheet XML waits to be compressed. ExcelJS's streaming writer hands rows to
 * the zip without heeding backpressure, and deflate is slower than row building, so
 * without this look at its pipe the whole sheet would pile up in memory. The pipe is a
 * readable-stream PassThrough (no `writableLength`), hence its internal states.
 */
function pendingInZip(sheet: ExcelJS.Worksheet): number {
  const pipes = (sheet as unknown as { stream?: { pipes?: PipeInternals[] } }).stream?.pipes ?? [];
  return pipes.reduce((sum, pipe) => sum + (pipe._writableState?.length ?? 0) + (pipe._readableState?.length ?? 0), 0);
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
 * An .xlsx workbook written row by row with ExcelJS's streaming writer (file references
 * become links to their download), waiting for the compressor and the reader whenever
 * they fall behind, so memory stays flat however many rows the report has. A reader
 * that leaves stops the writing.
 */
export function reportXlsx(report: Report, fileUrl: (ref: string) => string): Readable {
  const output = new PassThrough();
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: output, useStyles: false, useSharedStrings: false });
  const sheet = workbook.addWorksheet(sheetName(report.bloc.name));
  const write = async (): Promise<void> => {
    sheet.addRow(report.columns.map((c) => cellText(c.header))).commit();
    for await (const batch of report.rows) {
      for (const json of batch) {
        const row = JSON.parse(json) as Record<string, string>;
        sheet.addRow(report.columns.map((c) => {
          // Own keys only: a column named "toString" must not find Object's.
          const value = cellText(Object.hasOwn(row, c.key) ? row[c.key]! : "");
          return c.file && value !== "" ? { text: value, hyperlink: fileUrl(value) } : value;
        })).commit();
      }
      // The store answers without waiting on I/O: these turns let the compressor and the socket run.
      do await nextTurn(); while (pendingInZip(sheet) > MAX_PENDING_BYTES && !output.destroyed);
      if (output.destroyed || (output.writableNeedDrain && !(await drained(output)))) return;
    }
    sheet.commit();
    await workbook.commit();
  };
  write().catch((error: unknown) => output.destroy(error instanceof Error ? error : new Error(String(error))));
  return output;
}

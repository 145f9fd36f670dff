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

/** Excel limits sheet names to 31 characters and forbids a few. */
function sheetName(name: string): string {
  const cleaned = name.replace(/[[\]:*?/\\]/g, " ").trim().slice(0, 31);
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
    sheet.addRow(report.columns.map((c) => c.header)).commit();
    for await (const batch of report.rows) {
      for (const json of batch) {
        const row = JSON.parse(json) as Record<string, string>;
        sheet.addRow(report.columns.map((c) => {
          const value = row[c.key] ?? "";
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

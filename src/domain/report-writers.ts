import { Readable } from "node:stream";
import type { Report } from "./report.js";
import { cellText } from "./xlsx-text.js";
import { XlsxWorkbook, type Cell } from "./xlsx-workbook.js";

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
 * An .xlsx workbook written row by row (xlsx-workbook.ts; file references become links
 * to their download), waiting for deflate and the reader whenever they fall behind, so
 * memory stays flat however many rows the report has. A reader that leaves stops the
 * writing.
 */
export function reportXlsx(report: Report, fileUrl: (ref: string) => string): Readable {
  const workbook = new XlsxWorkbook(report.bloc.name, report.columns.map((c) => cellText(c.header)));
  const columns = report.columns;
  const write = async (): Promise<void> => {
    for await (const batch of report.rows) {
      for (const json of batch) {
        const row = JSON.parse(json) as Record<string, string>;
        const cells: Cell[] = new Array<Cell>(columns.length);
        for (let i = 0; i < columns.length; i += 1) {
          const column = columns[i]!;
          // Own keys only: a column named "toString" must not find Object's.
          const text = cellText(Object.hasOwn(row, column.key) ? row[column.key]! : "");
          cells[i] = column.file && text !== "" ? { text, link: fileUrl(text) } : { text };
        }
        if (!(await workbook.row(cells))) return;
      }
    }
    await workbook.end();
  };
  write().catch((error: unknown) => workbook.destroy(error instanceof Error ? error : new Error(String(error))));
  return workbook.readable;
}

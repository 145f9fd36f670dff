import { createReadStream } from "node:fs";
import path from "node:path";
import { parse } from "csv-parse";
import ExcelJS from "exceljs";
import { UsageError } from "./commands.js";

/** One data row of a table file, with its line (CSV record number, or sheet row) for reports. */
export interface TableRow {
  readonly line: number;
  readonly cells: readonly string[];
}

export interface TableFile {
  readonly header: readonly string[];
  readonly rows: AsyncIterable<TableRow>;
}

/**
 * A CSV (RFC 4180; a UTF-8 byte order mark is dropped) or .xlsx file, read as it
 * streams: its first row is the header, the rest data rows. Cells stay text exactly as
 * written (no trimming, no type guessing).
 */
export async function openTable(file: string): Promise<TableFile> {
  const extension = path.extname(file).toLowerCase();
  const rows = extension === ".xlsx" ? xlsxRows(file) : extension === ".csv" ? csvRows(file) : undefined;
  if (!rows) throw new UsageError(`${file}: import reads .csv or .xlsx files`);
  const iterator = rows[Symbol.asyncIterator]();
  const first = await iterator.next();
  if (first.done) throw new UsageError(`${file} is empty: its first row must name the fields`);
  const header = first.value.cells;
  return {
    header,
    rows: { [Symbol.asyncIterator]: () => iterator },
  };
}

async function* csvRows(file: string): AsyncGenerator<TableRow> {
  const parser = createReadStream(file).pipe(parse({ bom: true, relax_column_count: true, info: true }));
  for await (const record of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
    yield { line: record.info.lines, cells: record.record };
  }
}

/** The text a spreadsheet cell shows, whatever type ExcelJS read it as. */
function cellText(value: ExcelJS.CellValue): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (value instanceof Date) return value.toISOString();
  if ("richText" in value) return value.richText.map((part) => part.text).join("");
  if ("text" in value && typeof value.text === "string") return value.text;
  if ("result" in value && value.result !== undefined) return cellText(value.result);
  return "";
}

/** Every sheet in turn; a later sheet repeating the first one's header (as split reports do) has it skipped. */
async function* xlsxRows(file: string): AsyncGenerator<TableRow> {
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(file, {
    sharedStrings: "cache", hyperlinks: "ignore", styles: "ignore", worksheets: "emit",
  });
  let header: string | undefined;
  for await (const sheet of reader) {
    let first = true;
    for await (const row of sheet as AsyncIterable<ExcelJS.Row>) {
      const values = row.values as ExcelJS.CellValue[];
      const cells = Array.from({ length: Math.max(0, values.length - 1) }, (_, i) => cellText(values[i + 1]));
      const key = JSON.stringify(cells);
      if (first && header !== undefined && key === header) { first = false; continue; }
      first = false;
      header ??= key;
      yield { line: row.number, cells };
    }
  }
}

/** The data rows of a table file (a pass over it, for a progress bar's total). */
export async function countRows(file: string): Promise<number> {
  let count = 0;
  for await (const _row of (await openTable(file)).rows) count += 1;
  return count;
}

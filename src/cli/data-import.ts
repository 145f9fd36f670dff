import { createWriteStream } from "node:fs";
import { stringify } from "csv-stringify";
import { BlocApiError, type BlocClient } from "../client/index.js";
import { unguardCsvCell } from "../client/csv.js";
import { UsageError } from "./commands.js";
import { progressBar, showsProgress } from "./progress.js";
import { countRows, openTable, type TableRow } from "./table-file.js";

export interface ImportOptions {
  readonly blocId: string;
  readonly file: string;
  readonly jobId?: string | undefined;
  /** Requests in flight at once. */
  readonly concurrency: number;
  /** Where rejected rows go; default `<file>.rejected.csv`. */
  readonly rejectsFile?: string | undefined;
  /** Ignore header columns that name no field (instead of refusing the file). */
  readonly skipUnknown: boolean;
  /** Remove the formula guard of a CSV report (client/csv.ts unguardCsvCell) from every cell. */
  readonly unguard: boolean;
}

export interface ImportSummary {
  readonly added: number;
  readonly rejected: number;
  /** Set when rows were rejected: a CSV of them with their line and the service's reason. */
  readonly rejectsFile: string | null;
  readonly columns: Readonly<Record<string, string>>;
}

const RETRIES = 5;

/** Header cell → field slug, by slug first, then by display name (ignoring case and outer spaces). */
function mapColumns(header: readonly string[], fieldNames: Readonly<Record<string, string>>, skipUnknown: boolean): (string | null)[] {
  const byName = new Map(Object.entries(fieldNames).map(([slug, name]) => [name.trim().toLowerCase(), slug]));
  const used = new Set<string>();
  const unknown: string[] = [];
  const mapped = header.map((cell) => {
    const text = cell.trim();
    const slug = Object.hasOwn(fieldNames, text) ? text : byName.get(text.toLowerCase());
    if (slug === undefined) { unknown.push(cell); return null; }
    if (used.has(slug)) throw new UsageError(`columns "${cell}" and another both name field ${slug}`);
    used.add(slug);
    return slug;
  });
  if (unknown.length > 0 && !skipUnknown) {
    throw new UsageError(`no field of the bloc is named ${unknown.map((u) => JSON.stringify(u)).join(", ")} ` +
      `(fields: ${Object.entries(fieldNames).map(([s, n]) => `${s} "${n}"`).join(", ")}); pass --skip-unknown to ignore such columns`);
  }
  if (used.size === 0) throw new UsageError("no column of the header row names a field of the bloc");
  return mapped;
}

function isRetryable(error: unknown): boolean {
  if (error instanceof BlocApiError) return error.status === 429 || error.status === 503;
  const code = (error as { code?: unknown }).code;
  return code === "ECONNRESET" || code === "EPIPE" || code === "ECONNREFUSED";
}

/**
 * `bloc-data import`: every data row of a CSV or .xlsx file becomes one add-data request,
 * `concurrency` at a time, read as the file streams (memory stays flat). A row the service
 * refuses is written, with its line and the reason, to the rejects file; the others stay added.
 */
export async function importTable(client: BlocClient, options: ImportOptions): Promise<ImportSummary> {
  const first = await client.getData({ blocId: options.blocId, resultLimit: 1 });
  const table = await openTable(options.file);
  const slugs = mapColumns(table.header, first.fieldNames, options.skipUnknown);
  const rejectsFile = options.rejectsFile ?? `${options.file}.rejected.csv`;
  let rejects: ReturnType<typeof stringify> | undefined;
  let rejectsDone: Promise<void> | undefined;
  const reject = (row: TableRow, reason: string): void => {
    if (!rejects) {
      rejects = stringify({ bom: true, record_delimiter: "windows" });
      const out = createWriteStream(rejectsFile);
      rejectsDone = new Promise((resolve, fail) => { out.on("finish", resolve); out.on("error", fail); });
      rejects.pipe(out);
      rejects.write(["line", "reason", ...table.header]);
    }
    rejects.write([String(row.line), reason, ...row.cells]);
  };

  // Counting takes a pass over the file: only done when there is a bar to show.
  const progress = progressBar("import", "rows", showsProgress() ? await countRows(options.file) : 0);
  let added = 0;
  let rejected = 0;
  const addRow = async (row: TableRow): Promise<void> => {
    const values: Record<string, string> = {};
    slugs.forEach((slug, i) => {
      if (slug === null) return;
      const cell = row.cells[i] ?? "";
      values[slug] = options.unguard ? unguardCsvCell(cell) : cell;
    });
    for (let attempt = 0; ; attempt += 1) {
      try {
        await client.addData({ scanStationID: options.blocId, dataToAdd: values, ...(options.jobId ? { jobID: options.jobId } : {}) });
        added += 1;
        return;
      } catch (error) {
        if (attempt < RETRIES && isRetryable(error)) {
          await new Promise((resolve) => setTimeout(resolve, 100 * 2 ** attempt));
          continue;
        }
        if (!(error instanceof BlocApiError)) throw error;
        rejected += 1;
        reject(row, `${error.status}: ${error.text}`);
        return;
      }
    }
  };
  const iterator = table.rows[Symbol.asyncIterator]();
  // Workers share one iterator: the file is read no faster than rows are sent.
  const worker = async (): Promise<void> => {
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
      await addRow(next.value);
      progress.increment();
    }
  };
  try {
    await Promise.all(Array.from({ length: options.concurrency }, worker));
  } finally {
    progress.stop();
    rejects?.end();
    await rejectsDone;
  }
  const columns = Object.fromEntries(table.header.flatMap((cell, i) => (slugs[i] ? [[cell, slugs[i]]] : [])));
  return { added, rejected, rejectsFile: rejected > 0 ? rejectsFile : null, columns };
}

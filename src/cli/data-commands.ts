import { createWriteStream } from "node:fs";
import { access, stat } from "node:fs/promises";
import type { Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { stringify } from "csv-stringify";
import { BlocClient, type ReportQuery, type UploadFile } from "../client/index.js";
import { guardCsvCell } from "../client/csv.js";
import { UsageError } from "./commands.js";
import { importTable } from "./data-import.js";
import { progressBar } from "./progress.js";

/** The verbs that talk to a running service over HTTP (through the client), not to the store. */
export const DATA_VERBS = new Set(["get", "report", "add", "import", "update", "delete", "login"]);

export const DATA_USAGE = `
Data commands talk to a running service: --url (or BLOC_URL, default http://localhost:8080)
and --token (or BLOC_TOKEN). Progress bars go to stderr, only when it is a terminal.

  get <blocId> [--csv] [--out FILE] [--from-date D] [--to-date D] [--newest-first] [--page-size N]
                                                   every record, all pages, as JSON (default) or CSV
  report <blocId> [--xlsx|--csv] [--out FILE|DIR] [--fields slug,slug] [--from-date D] [--to-date D]
         [--filter slug=value]...                  a report: JSON (default), .xlsx or CSV
  add <blocId> --data '{"field_1":"x"}' [--job ID] [--file slug=path]...
                                                   add one record (with files: multipart)
  import <blocId> <file.csv|file.xlsx> [--concurrency N] [--rejects FILE] [--skip-unknown] [--unguard] [--job ID]
                                                   add one record per data row; header cells name fields by slug
                                                   or display name; rejected rows go to FILE (default
                                                   <file>.rejected.csv) with their line and reason
  update <blocId> --where slug=value... --set slug=value...
                                                   update every record matching all --where values
  delete <blocId> --where slug=value...            delete every record matching all --where values (the
                                                   slug service_entry_row_id names one record by its ID);
                                                   an admin can restore each (admin API,
                                                   docs/endpoints.md)
  login --email E                                  sign in with a password (BLOC_PASSWORD, else the first line
                                                   of stdin); prints {"token","expiresAt","user"}

Exit codes: 0 done; 1 failed (the service refused, or it could not be reached); 2 usage error;
3 import finished but some rows were rejected (the others were added; see the rejects file).
`;

export interface DataOptions {
  readonly url?: string | undefined;
  readonly token?: string | undefined;
  readonly csv?: boolean | undefined;
  readonly xlsx?: boolean | undefined;
  readonly out?: string | undefined;
  readonly "from-date"?: string | undefined;
  readonly "to-date"?: string | undefined;
  readonly "newest-first"?: boolean | undefined;
  readonly "page-size"?: string | undefined;
  readonly fields?: string | undefined;
  readonly filter?: string[] | undefined;
  readonly data?: string | undefined;
  readonly job?: string | undefined;
  readonly file?: string[] | undefined;
  readonly concurrency?: string | undefined;
  readonly rejects?: string | undefined;
  readonly "skip-unknown"?: boolean | undefined;
  readonly unguard?: boolean | undefined;
  readonly where?: string[] | undefined;
  readonly set?: string[] | undefined;
  readonly email?: string | undefined;
}

function positiveInteger(what: string, value: string | undefined, fallback: number, max: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > max) throw new UsageError(`${what} must be a whole number from 1 to ${max}`);
  return Number(value);
}

/** `slug=value` pairs (the value may hold "=") into an object. */
function pairs(what: string, list: readonly string[] | undefined): Record<string, string> {
  const object: Record<string, string> = {};
  for (const item of list ?? []) {
    const at = item.indexOf("=");
    if (at < 1) throw new UsageError(`${what} takes slug=value, got ${JSON.stringify(item)}`);
    object[item.slice(0, at)] = item.slice(at + 1);
  }
  return object;
}

function clientFor(options: DataOptions): BlocClient {
  const token = options.token ?? process.env.BLOC_TOKEN;
  if (!token) throw new UsageError("a token is needed: --token or BLOC_TOKEN");
  return new BlocClient({ url: options.url ?? process.env.BLOC_URL ?? "http://localhost:8080", token });
}

/** Writes to --out, or stdout; resolves once everything is written. */
async function writeAll(out: string | undefined, produce: (sink: Writable) => Promise<void>): Promise<void> {
  if (out === undefined) { await produce(process.stdout); return; }
  const file = createWriteStream(out);
  const closed = new Promise<void>((resolve, reject) => { file.on("close", resolve); file.on("error", reject); });
  await produce(file);
  file.end();
  await closed;
}

function write(sink: Writable, text: string): Promise<void> {
  return sink.write(text) ? Promise.resolve() : new Promise((resolve) => sink.once("drain", () => resolve()));
}

const SYSTEM = ["service_entry_row_id", "created_at", "user_id", "submitted_status"] as const;

/** `get`: every page of get-data, records streamed out as they come. */
async function getAll(client: BlocClient, blocId: string, options: DataOptions): Promise<void> {
  const query = {
    blocId,
    reverse: !options["newest-first"],
    ...(options["from-date"] === undefined ? {} : { fromDate: options["from-date"] }),
    ...(options["to-date"] === undefined ? {} : { toDate: options["to-date"] }),
  };
  const pageSize = positiveInteger("--page-size", options["page-size"], 500, 100_000);
  const progress = progressBar("get", "records");
  try {
    await writeAll(options.out, async (sink) => {
      let csv: ReturnType<typeof stringify> | undefined;
      let slugs: string[] = [];
      let first = true;
      for await (const page of client.pages(query, pageSize)) {
        if (first) {
          progress.total(page.count);
          slugs = Object.keys(page.fieldNames);
          if (options.csv) {
            csv = stringify({ bom: true, record_delimiter: "windows", cast: { string: guardCsvCell } });
            csv.pipe(sink, { end: false });
            csv.write([...SYSTEM, ...slugs]);
          }
        }
        for (const record of page.records) {
          if (csv) {
            const row = [...SYSTEM, ...slugs].map((key) => String((record as Readonly<Record<string, string | number>>)[key] ?? ""));
            if (!csv.write(row)) await new Promise((resolve) => csv!.once("drain", resolve));
          } else {
            await write(sink, `${first ? "[\n" : ",\n"}${JSON.stringify(record)}`);
          }
          first = false;
        }
        progress.increment(page.records.length);
      }
      if (csv) {
        const ended = new Promise((resolve) => csv.once("end", resolve));
        csv.end();
        await ended;
      } else if (options.csv) {
        // No record: the header alone needs the field names.
        const names = Object.keys((await client.getData({ blocId, resultLimit: 1 })).fieldNames);
        await write(sink, `\uFEFF${[...SYSTEM, ...names].join(",")}\r\n`);
      } else await write(sink, first ? "[]\n" : "\n]\n");
    });
  } finally {
    progress.stop();
  }
}

/** `report`: a JSON report, or an .xlsx / CSV file streamed to --out (a file or a folder; default: this folder). */
async function report(client: BlocClient, blocId: string, options: DataOptions): Promise<unknown> {
  if (options.csv && options.xlsx) throw new UsageError("choose one of --csv and --xlsx");
  const filter = Object.fromEntries(Object.entries(pairs("--filter", options.filter)).map(([slug, value]) => [slug, [value]]));
  const query: ReportQuery = {
    stationID: blocId,
    fieldsToReport: options.fields === undefined ? "all" : options.fields.split(",").map((f) => f.trim()).filter((f) => f !== ""),
    ...(options["from-date"] || options["to-date"] ? {
      requestedReportData: {
        ...(options["from-date"] ? { reportFromDate: options["from-date"] } : {}),
        ...(options["to-date"] ? { reportToDate: options["to-date"] } : {}),
      },
    } : {}),
    ...(Object.keys(filter).length > 0 ? { dataFilteringData: { filterDataToQuery: filter } } : {}),
  };
  if (!options.csv && !options.xlsx) {
    const rows = await client.getDataReport(query);
    await writeAll(options.out, (sink) => write(sink, `${JSON.stringify(rows, null, 2)}\n`));
    return options.out === undefined ? undefined : { path: options.out, rows: rows.length };
  }
  const progress = progressBar("report", "bytes");
  try {
    const download = await client.getDataReportStream(query, options.xlsx ? "xlsx" : "csv");
    const target = options.out ?? ".";
    const isDirectory = await stat(target).then((s) => s.isDirectory(), () => false);
    const file = isDirectory ? `${target.replace(/\/$/, "")}/${download.filename}` : target;
    // Counted inside the pipeline: a "data" listener of its own would start the flow before the file is open.
    await pipeline(download.stream, async function* (chunks: AsyncIterable<Buffer>) {
      for await (const chunk of chunks) {
        progress.increment(chunk.length);
        yield chunk;
      }
    }, createWriteStream(file));
    return { path: file };
  } finally {
    progress.stop();
  }
}

async function add(client: BlocClient, blocId: string, options: DataOptions): Promise<unknown> {
  if (options.data === undefined) throw new UsageError("add needs --data with a JSON object of field slug to value");
  let values: unknown;
  try { values = JSON.parse(options.data); } catch { throw new UsageError("--data is not valid JSON"); }
  if (values === null || typeof values !== "object" || Array.isArray(values)) throw new UsageError("--data must be a JSON object");
  const files: Record<string, UploadFile> = {};
  for (const [slug, file] of Object.entries(pairs("--file", options.file))) {
    await access(file).catch(() => { throw new UsageError(`--file ${slug}: cannot read ${file}`); });
    files[slug] = { content: { path: file } };
  }
  return client.addData({
    scanStationID: blocId, dataToAdd: values as Record<string, string>, ...(options.job ? { jobID: options.job } : {}),
  }, files);
}

/** Runs a data verb; the exit code (see DATA_USAGE). Results go to stdout as JSON. */
/**
 * `login`: the password comes from BLOC_PASSWORD or stdin, never from an argument, which
 * would stay in the shell's history and show in the process list.
 */
async function login(options: DataOptions): Promise<unknown> {
  if (options.email === undefined) throw new UsageError("login needs --email");
  let password = process.env.BLOC_PASSWORD;
  if (password === undefined) {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    password = Buffer.concat(chunks).toString("utf8").split(/\r?\n/)[0] ?? "";
  }
  if (password === "") throw new UsageError("login needs a password: BLOC_PASSWORD, or one line on stdin");
  return BlocClient.authenticate({ url: options.url ?? process.env.BLOC_URL ?? "http://localhost:8080", email: options.email, password });
}

export async function runDataCommand(positionals: readonly string[], options: DataOptions): Promise<number> {
  const [verb, blocId] = positionals;
  if (verb === "login") {
    if (positionals.length > 1) throw new UsageError(`unexpected argument "${positionals[1]}"`);
    process.stdout.write(`${JSON.stringify(await login(options), null, 2)}\n`);
    return 0;
  }
  if (blocId === undefined) throw new UsageError(`${verb} needs a <blocId>`);
  const expected = verb === "import" ? 3 : 2;
  if (positionals.length > expected) throw new UsageError(`unexpected argument "${positionals[expected]}"`);
  const client = clientFor(options);
  const print = (result: unknown): void => { if (result !== undefined) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`); };
  try {
    switch (verb) {
      case "get":
        await getAll(client, blocId, options);
        return 0;
      case "report":
        print(await report(client, blocId, options));
        return 0;
      case "add":
        print(await add(client, blocId, options));
        return 0;
      case "update": {
        const searchItems = pairs("--where", options.where);
        const fieldsToUpdate = pairs("--set", options.set);
        if (Object.keys(searchItems).length === 0 || Object.keys(fieldsToUpdate).length === 0) {
          throw new UsageError("update needs at least one --where slug=value and one --set slug=value");
        }
        print({ updated_record_ids: await client.updateRecordsByMatchingValues({ blocId, searchItems, fieldsToUpdate }) });
        return 0;
      }
      case "delete": {
        const searchItems = pairs("--where", options.where);
        if (Object.keys(searchItems).length === 0) throw new UsageError("delete needs at least one --where slug=value");
        if (options.set !== undefined) throw new UsageError("delete takes no --set");
        print({ deleted_record_ids: await client.deleteRecordsByMatchingValues({ blocId, searchItems }) });
        return 0;
      }
      case "import": {
        const file = positionals[2];
        if (file === undefined) throw new UsageError("import needs a <file.csv|file.xlsx>");
        const summary = await importTable(client, {
          blocId, file, jobId: options.job, rejectsFile: options.rejects,
          concurrency: positiveInteger("--concurrency", options.concurrency, 8, 256),
          skipUnknown: options["skip-unknown"] ?? false, unguard: options.unguard ?? false,
        });
        print(summary);
        return summary.rejected > 0 ? 3 : 0;
      }
      default:
        throw new UsageError(`unknown command "${verb}"`);
    }
  } finally {
    client.close();
  }
}

import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import ExcelJS from "exceljs";
import { stringify } from "csv-stringify/sync";
import { runPython } from "./support/python.js";
import { testEngine } from "./support/database.js";
import { CLI_ENTRY, runToEnd } from "./support/process.js";
import { addBloc, addMember, addRecord, startServer, type TestServer } from "./support/server.js";

/*
 * The data verbs of `bloc-data`, run as a user runs them (the compiled binary, over HTTP
 * to a real server): a large CSV import round-trips through CSV and .xlsx reports, and
 * progress bars show on a terminal only. BLOC_IMPORT_ROWS sets the large import's size:
 * by default 100,000 on SQLite and 20,000 on PostgreSQL. The import's path is the same
 * HTTP client and add-data on both; the full size runs once per CI run, to keep CI short
 * (100,000 rows take about three minutes here).
 */

const ROWS = Number(process.env.BLOC_IMPORT_ROWS ?? (testEngine() === "postgres" ? 20_000 : 100_000));

let server: TestServer;
let dir: string;
before(async () => {
  server = await startServer();
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "bloc-data-cli-"));
});
after(async () => {
  await server.close();
  await fs.rm(dir, { recursive: true, force: true });
});

function cli(args: readonly string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runToEnd(CLI_ENTRY, args, { BLOC_URL: server.url, BLOC_TOKEN: server.adminToken, ...env }, dir);
}

/** Runs the CLI under a pseudo-terminal (util-linux `script`), as a user at a terminal would. */
function onTty(args: readonly string[]): Promise<{ code: number | null; output: string }> {
  const quote = (s: string): string => `'${s.replace(/'/g, "'\\''")}'`;
  const command = [process.execPath, CLI_ENTRY, ...args].map(quote).join(" ");
  const child = spawn("script", ["-qfec", command, "/dev/null"], {
    cwd: dir, env: { ...process.env, BLOC_URL: server.url, BLOC_TOKEN: server.adminToken, TERM: "xterm" }, stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (c: Buffer) => { output += c.toString(); });
  child.stderr.on("data", (c: Buffer) => { output += c.toString(); });
  return new Promise((resolve) => child.once("close", (code) => resolve({ code, output })));
}

const TRICKY: readonly string[] = [
  "plain", "", "comma, inside", "\"quoted\"", "say \"hi\", then \"go\"", "line\nfeed", "crlf\r\npair", "carriage\rreturn",
  "  leading and trailing  ", " ", "\ttab", "=1+1", "+A1", "-2", "@SUM(A1:A2)", "'apostrophe", "=HYPERLINK(\"x\")",
  "unicode é ü ß 中文 Ελληνικά 😀👩‍👩‍👧 🇫🇷", "007", "0.1000", "1e5", "TRUE", "a,b\n\"c\"\r\n,",
];

/** Row i of the big file: a unique key, a tricky value, and a mix of both. */
function rowOf(i: number): [string, string, string] {
  const tricky = TRICKY[i % TRICKY.length]!;
  return [`k${i}`, tricky, `${TRICKY[(i * 7) % TRICKY.length]!}|${i}`];
}

const BAR = /\u2588|\u2591/;

describe("bloc-data import, then report --csv and --xlsx", () => {
  let blocId: string;
  let csvFile: string;

  before(async () => {
    blocId = await addBloc(server, "Imported", ["Key", "Tricky", "Mixed"]);
    csvFile = path.join(dir, "big.csv");
    // Header by display name, by slug, and by name with other case and spaces.
    const lines: string[][] = [["Key", "field_2", " mixed "]];
    for (let i = 0; i < ROWS; i += 1) lines.push(rowOf(i));
    await fs.writeFile(csvFile, stringify(lines, { record_delimiter: "windows" }));
  });

  test(`imports ${ROWS} rows and both reports give every value back`, async () => {
    const started = Date.now();
    const imported = await cli(["import", blocId, csvFile, "--concurrency", "32"]);
    assert.equal(imported.code, 0, imported.stderr);
    assert.equal(imported.stderr, "", "no progress bar when stderr is not a terminal");
    const summary = JSON.parse(imported.stdout);
    assert.deepEqual(summary, { added: ROWS, rejected: 0, rejectsFile: null, columns: { Key: "field_1", field_2: "field_2", " mixed ": "field_3" } });
    const importMs = Date.now() - started;

    const csvOut = path.join(dir, "out.csv");
    const csv = await cli(["report", blocId, "--csv", "--out", csvOut, "--fields", "field_1,field_2,field_3"]);
    assert.equal(csv.code, 0, csv.stderr);
    assert.deepEqual(JSON.parse(csv.stdout), { path: csvOut });
    assert.equal(csv.stderr, "");
    const csvRows = JSON.parse(runPython([
      "import csv, io, json, sys",
      "text = sys.stdin.buffer.read().decode('utf-8-sig')",
      "rows = list(csv.reader(io.StringIO(text, newline=''), strict=True))",
      "unguard = lambda c: c[1:] if c.startswith(\"'\") else c",
      "print(json.dumps([rows[0]] + [[unguard(c) for c in r] for r in rows[1:]]))",
    ].join("\n"), await fs.readFile(csvOut))) as string[][];
    const expected = new Map(Array.from({ length: ROWS }, (_, i) => [`k${i}`, rowOf(i)]));
    /** A report read back: the header, then every imported row once, each value as imported. */
    const assertRoundTrip = (rows: string[][], format: string): void => {
      assert.deepEqual(rows[0], ["Key", "Tricky", "Mixed"]);
      assert.equal(rows.length, ROWS + 1);
      for (const row of rows.slice(1)) assert.deepEqual(row, expected.get(row[0]!), `${format} row ${row[0]}`);
      assert.equal(new Set(rows.slice(1).map((r) => r[0])).size, ROWS);
    };
    assertRoundTrip(csvRows, "CSV");

    const xlsxOut = path.join(dir, "out.xlsx");
    const xlsx = await cli(["report", blocId, "--xlsx", "--out", xlsxOut, "--fields", "field_1,field_2,field_3"]);
    assert.equal(xlsx.code, 0, xlsx.stderr);
    const xlsxRows = JSON.parse(runPython([
      "import openpyxl, io, json, sys",
      "wb = openpyxl.load_workbook(io.BytesIO(sys.stdin.buffer.read()), read_only=True)",
      "rows = []",
      "for ws in wb.worksheets:",
      "    for r in ws.iter_rows(values_only=True):",
      "        rows.append(['' if c is None else str(c) for c in r])",
      "print(json.dumps(rows))",
    ].join("\n"), await fs.readFile(xlsxOut))) as string[][];
    assertRoundTrip(xlsxRows, "xlsx");
    console.log(`# ${ROWS} rows: import ${importMs} ms, whole test ${Date.now() - started} ms`);
  });

  test("on a terminal, import and report show a progress bar on stderr", async () => {
    const small = path.join(dir, "small.csv");
    await fs.writeFile(small, stringify([["Key", "Tricky"], ...Array.from({ length: 300 }, (_, i) => [`t${i}`, "x"])]));
    const imported = await onTty(["import", blocId, small]);
    assert.equal(imported.code, 0, imported.output);
    assert.match(imported.output, /import \|/);
    assert.match(imported.output, BAR);
    assert.match(imported.output, /300\/300 rows/);
    const report = await onTty(["report", blocId, "--csv", "--out", path.join(dir, "tty.csv")]);
    assert.equal(report.code, 0, report.output);
    assert.match(report.output, /report \|/);
    assert.match(report.output, BAR);
    // Not a terminal: the same commands show nothing of a bar.
    const quiet = await cli(["report", blocId, "--xlsx", "--out", path.join(dir, "quiet.xlsx")]);
    assert.equal(quiet.code, 0);
    assert.doesNotMatch(quiet.stderr + quiet.stdout, BAR);
    assert.doesNotMatch(quiet.stderr + quiet.stdout, /report \|/);
  });
});

describe("bloc-data get, add, update, import refusals", () => {
  let blocId: string;
  before(async () => {
    blocId = await addBloc(server, "Small", ["Part", "Count"]);
    await server.call("POST", `/api/admin/blocs/${blocId}/fields`, { json: { name: "Photo", type: "file" } });
    await server.call("PATCH", `/api/admin/blocs/${blocId}/fields/field_2`, { json: { type: "number" } });
    for (let i = 0; i < 25; i += 1) await addRecord(server, blocId, { field_1: i % 5 === 0 ? "=bolt, \"big\"" : `p${i}`, field_2: String(i) });
  });

  test("get writes every page as JSON, or as CSV with the formula guard", async () => {
    const json = await cli(["get", blocId, "--page-size", "7"]);
    assert.equal(json.code, 0, json.stderr);
    const records = JSON.parse(json.stdout) as Record<string, unknown>[];
    assert.equal(records.length, 25);
    assert.deepEqual(records.map((r) => r.field_2), Array.from({ length: 25 }, (_, i) => String(i)), "oldest first");
    const newest = JSON.parse((await cli(["get", blocId, "--newest-first"])).stdout) as Record<string, unknown>[];
    assert.equal(newest[0]!.field_2, "24");
    const out = path.join(dir, "get.csv");
    const csv = await cli(["get", blocId, "--csv", "--out", out, "--page-size", "10"]);
    assert.equal(csv.code, 0, csv.stderr);
    const rows = JSON.parse(runPython("import csv, io, json, sys\nprint(json.dumps(list(csv.reader(io.StringIO(sys.stdin.buffer.read().decode('utf-8-sig'), newline='')))))",
      await fs.readFile(out))) as string[][];
    assert.deepEqual(rows[0], ["service_entry_row_id", "created_at", "user_id", "submitted_status", "field_1", "field_2", "field_3"]);
    assert.equal(rows.length, 26);
    assert.equal(rows[1]![4], "'=bolt, \"big\"");
    const empty = await addBloc(server, "Nothing", ["A"]);
    assert.equal((await cli(["get", empty])).stdout, "[]\n");
    assert.equal((await cli(["get", empty, "--csv"])).stdout, "\uFEFFservice_entry_row_id,created_at,user_id,submitted_status,field_1\r\n");
  });

  test("add (JSON and with a file) and update", async () => {
    const photo = path.join(dir, "photo.png");
    await fs.writeFile(photo, Buffer.from([1, 2, 3, 4]));
    const added = await cli(["add", blocId, "--data", JSON.stringify({ field_1: "cli", field_2: "1" }), "--file", `field_3=${photo}`]);
    assert.equal(added.code, 0, added.stderr);
    const id = JSON.parse(added.stdout).returnedStationID as number;
    const update = await cli(["update", blocId, "--where", "field_1=cli", "--set", "field_2=2", "--set", "field_1=a=b"]);
    assert.equal(update.code, 0, update.stderr);
    assert.deepEqual(JSON.parse(update.stdout), { updated_record_ids: [id] });
    const report = JSON.parse((await cli(["report", blocId, "--filter", "field_1=a=b"])).stdout) as Record<string, string>[];
    assert.equal(report.length, 1);
    assert.equal(report[0]!.field_2, "2");
    const file = await server.call("GET", `/api/files/${encodeURIComponent(report[0]!.field_3!)}`);
    assert.deepEqual([...file.body], [1, 2, 3, 4]);
  });

  test("delete by a field value or by service_entry_row_id; its usage errors and refusals", async () => {
    const first = await addRecord(server, blocId, { field_1: "doomed", field_2: "1" });
    const second = await addRecord(server, blocId, { field_1: "doomed", field_2: "2" });
    const byId = await cli(["delete", blocId, "--where", `service_entry_row_id=${second}`]);
    assert.equal(byId.code, 0, byId.stderr);
    assert.deepEqual(JSON.parse(byId.stdout), { deleted_record_ids: [second] });
    const byValue = await cli(["delete", blocId, "--where", "field_1=doomed"]);
    assert.deepEqual(JSON.parse(byValue.stdout), { deleted_record_ids: [first] });
    assert.deepEqual(JSON.parse((await cli(["delete", blocId, "--where", "field_1=doomed"])).stdout), { deleted_record_ids: [] });
    assert.equal((await cli(["delete", blocId])).code, 2, "delete needs a --where");
    const withSet = await cli(["delete", blocId, "--where", "field_1=x", "--set", "field_2=1"]);
    assert.equal(withSet.code, 2);
    assert.match(withSet.stderr, /delete takes no --set/);
    const stranger = await addMember(server);
    const denied = await cli(["delete", blocId, "--where", "field_1=p1", "--token", stranger.token]);
    assert.equal(denied.code, 1);
    assert.match(denied.stderr, /answered 401: You are not authorized/);
    const help = await cli(["--help"]);
    assert.match(help.stdout + help.stderr, /delete <blocId> --where slug=value\.\.\./);
  });

  test("an .xlsx import with refused rows: the others are added, the rejects file says why, exit 3", async () => {
    const workbook = new ExcelJS.Workbook();
    const sheet = workbook.addWorksheet("Data");
    sheet.addRow(["Part", "Count"]);
    sheet.addRow(["x1", "10"]);
    sheet.addRow(["x2", "not a number"]);
    sheet.addRow(["x3, \"q\"", 12]);
    const file = path.join(dir, "in.xlsx");
    await workbook.xlsx.writeFile(file);
    const run = await cli(["import", blocId, file]);
    assert.equal(run.code, 3, run.stderr);
    const summary = JSON.parse(run.stdout);
    assert.deepEqual([summary.added, summary.rejected, summary.rejectsFile], [2, 1, `${file}.rejected.csv`]);
    const rejects = (await fs.readFile(`${file}.rejected.csv`, "utf8")).replace(/^\uFEFF/, "").split("\r\n");
    assert.equal(rejects[0], "line,reason,Part,Count");
    assert.match(rejects[1]!, /^3,"?400: .*field_2.*,x2,not a number$/);
    const rows = JSON.parse((await cli(["report", blocId, "--fields", "field_1,field_2", "--filter", "field_1=x3, \"q\""])).stdout);
    assert.deepEqual(rows, [{ field_1: "x3, \"q\"", field_2: "12" }]);
  });

  test("usage errors exit 2, refusals and an unreachable service exit 1, with one line saying why", async () => {
    const unknown = path.join(dir, "unknown.csv");
    await fs.writeFile(unknown, "Part,Colour\r\na,b\r\n");
    const refused = await cli(["import", blocId, unknown]);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /no field of the bloc is named "Colour".*--skip-unknown/s);
    const skipped = await cli(["import", blocId, unknown, "--skip-unknown"]);
    assert.equal(skipped.code, 0, skipped.stderr);
    assert.deepEqual(JSON.parse(skipped.stdout).columns, { Part: "field_1" });
    assert.equal((await cli(["get"])).code, 2);
    assert.equal((await cli(["report", blocId, "--csv", "--xlsx"])).code, 2);
    assert.equal((await cli(["get", blocId], { BLOC_TOKEN: "" })).code, 2);
    const stranger = await addMember(server);
    const denied = await cli(["get", blocId, "--token", stranger.token]);
    assert.equal(denied.code, 1);
    assert.equal(denied.stderr, "bloc-data: /api/get-data answered 401: You are not authorized to access this bloc\n");
    const denyUpdate = await cli(["update", blocId, "--where", "field_1=a", "--set", "field_1=b", "--token", stranger.token]);
    assert.equal(denyUpdate.code, 1);
    assert.match(denyUpdate.stderr, /answered 401: You are not authorized/);
    const away = await cli(["get", blocId, "--url", "http://127.0.0.1:9"]);
    assert.equal(away.code, 1);
    assert.match(away.stderr, /^bloc-data: connect ECONNREFUSED 127\.0\.0\.1:9\n$/);
  });
});

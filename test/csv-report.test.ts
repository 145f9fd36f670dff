import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { runPython } from "./support/python.js";
import { addBloc, addRecord, addMember, startServer, type TestServer } from "./support/server.js";
import { csvCell } from "../src/domain/csv-text.js";
import { guardCsvCell, unguardCsvCell } from "../src/client/csv.js";

/*
 * get-data-report with responseType "csv": RFC 4180 read back by Python's csv module,
 * which nobody here wrote; every value must come back as stored once the formula guard
 * (an apostrophe before each risky piece of a cell, src/domain/csv-text.ts) is removed.
 */

let server: TestServer;
before(async () => { server = await startServer(); });
after(async () => { await server.close(); });

const TRICKY: readonly string[] = [
  "plain", "", " ", "  leading and trailing  ", "comma, inside", "\"quoted\"", "say \"hi\", then go",
  "line\nfeed", "carriage\rreturn", "crlf\r\npair", "\r\n", "\n", "\r", "ends with cr\r", "\ttab first",
  "=1+1", "+A1", "-2", "@SUM(A1:A2)", "=HYPERLINK(\"http://example.invalid\",\"x\")", "\t=1+1", "\r=1",
  "'already quoted", "''two", "'=x", "mid = sign", "007", "0.1000", "unicode é ü ß 中文 😀👩‍👩‍👧 🇫🇷",
  "\u2028separator\u2029", "\u0001 control", "\uFEFFbom inside", "x".repeat(40_000),
  // Formulas a spreadsheet splitting on ; or tab (or breaking lines inside quotes) would find.
  "a;=1+1", "a\t=1+1", "x,@SUM(A1:A2)", "a;+1", "a; -1", "a;\t=1", "a\t\t=1", "a;'b", "a,'=b", "1-2", "a;b\tc",
  "line\n=1+1", "\r\n-1", "=1;=2;'3",
];

/** Parses CSV bytes with Python's csv module (BOM removed by utf-8-sig, newline="" keeps CR and LF as stored). */
function pythonRows(bytes: Buffer): string[][] {
  const script = [
    "import csv, io, json, sys",
    "text = sys.stdin.buffer.read().decode('utf-8-sig')",
    "print(json.dumps(list(csv.reader(io.StringIO(text, newline=''), strict=True))))",
  ].join("\n");
  return JSON.parse(runPython(script, bytes)) as string[][];
}

/** The pieces a spreadsheet may make of CSV text, splitting on any separator it might guess, quotes or not. */
function pieces(text: string): string[] {
  return text.split(/[,;\t\r\n]/);
}

const FORMULA = /^[=+\-@]/;

test("a CSV report round-trips every tricky value through Python's csv module", async () => {
  const blocId = await addBloc(server, "Parts, \"main\" / 2026", ["Value", "Name, with comma", "=Formula header"]);
  for (const [i, value] of TRICKY.entries()) await addRecord(server, blocId, { field_1: value, field_2: String(i) });
  const reply = await server.call("GET", "/api/get-data-report", {
    json: { stationID: blocId, fieldsToReport: "all", responseType: "csv" },
  });
  assert.equal(reply.status, 200, reply.text.slice(0, 300));
  assert.equal(reply.headers["content-type"], "text/csv; charset=utf-8");
  // Streamed: no length announced up front.
  assert.equal(reply.headers["content-length"], undefined);
  assert.equal(reply.headers["transfer-encoding"], "chunked");
  const disposition = String(reply.headers["content-disposition"]);
  assert.match(disposition, /^attachment; filename="Parts_ _main_ _ 2026-\d{8}-\d{6}\.csv"; filename\*=UTF-8''Parts%2C%20_main_%20_%202026-\d{8}-\d{6}\.csv$/);
  assert.deepEqual([...reply.body.subarray(0, 3)], [0xef, 0xbb, 0xbf], "UTF-8 byte order mark");
  // Every record ends with CRLF; outside quotes no bare LF or CR.
  assert.ok(reply.text.endsWith("\r\n"));
  const outsideQuotes = reply.text.replace(/"(?:[^"]|"")*"/g, "");
  assert.equal(outsideQuotes.replace(/\r\n/g, "").search(/[\r\n]/), -1);

  const rows = pythonRows(reply.body);
  assert.deepEqual(rows[0], ["Created At", "User ID", "Value", "Name, with comma", "'=Formula header", "Time", "Date"]);
  assert.equal(rows.length, TRICKY.length + 1);
  for (const [i, value] of TRICKY.entries()) {
    const row = rows[i + 1]!;
    assert.equal(row.length, 7);
    assert.equal(unguardCsvCell(row[2]!), value, `value ${i}: ${JSON.stringify(value).slice(0, 80)}`);
    assert.equal(row[3], String(i));
    assert.equal(row[4], "");
    assert.match(row[0]!, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    assert.equal(row[6], row[0]!.slice(0, 10));
  }
  // The guard: a spreadsheet sees text, never a formula, whatever separator it splits on.
  const guarded = rows.slice(1).map((r) => r[2]!);
  for (const cell of guarded) assert.doesNotMatch(cell, /^[=+\-@\t\r]/);
  const formulas = pieces(reply.text.slice(1)).filter((piece) => FORMULA.test(piece));
  assert.deepEqual(formulas, [], "pieces of the file a spreadsheet splitting on , ; tab or a line break would run");
});

test("a CSV report with chosen fields, a filter and newest first holds what the JSON report holds", async () => {
  const blocId = await addBloc(server, "Chosen", ["A", "B"]);
  for (let i = 0; i < 30; i += 1) await addRecord(server, blocId, { field_1: i % 2 === 0 ? "even" : "odd", field_2: `n${i}` });
  const body = {
    stationID: blocId, fieldsToReport: JSON.stringify({ field_2: true, field_1: true }),
    dataFilteringData: JSON.stringify({ filterDataToQuery: { field_1: ["odd"] }, reverse: true }),
  };
  const json = await server.call("GET", "/api/get-data-report", { json: body });
  const csv = await server.call("POST", "/api/get-data-report", { json: { ...body, responseType: "csv" } });
  assert.equal(csv.status, 200);
  const rows = pythonRows(csv.body);
  assert.deepEqual(rows[0], ["A", "B"]);
  assert.deepEqual(rows.slice(1), (json.json.data as Record<string, string>[]).map((r) => [r.field_1, r.field_2]));
  assert.equal(rows.length, 16);
});

test("an empty CSV report is the header alone; refusals keep the endpoint's JSON shape", async () => {
  const blocId = await addBloc(server, "Empty", ["A"]);
  const empty = await server.call("GET", "/api/get-data-report", { json: { stationID: blocId, fieldsToReport: "all", responseType: "csv" } });
  assert.equal(empty.status, 200);
  assert.equal(empty.text, "\uFEFFCreated At,User ID,A,Time,Date\r\n");
  const stranger = await addMember(server);
  const denied = await server.call("GET", "/api/get-data-report", {
    json: { stationID: blocId, fieldsToReport: "all", responseType: "csv" }, token: stranger.token,
  });
  assert.equal(denied.status, 401);
  assert.deepEqual(denied.json, { error: "You are not authorized to access this bloc" });
  const wrong = await server.call("GET", "/api/get-data-report", { json: { stationID: blocId, fieldsToReport: "all", responseType: "tsv" } });
  assert.equal(wrong.status, 400);
  assert.match(wrong.json.error, /responseType must be "blob" \(for \.xlsx\), "csv" or "json"/);
});

test("every piece of a cell that could start a formula is guarded, by the service and the client alike, and the guard comes off exactly", () => {
  assert.equal(csvCell("a;=1+1"), "a;'=1+1");
  assert.equal(csvCell("a\t=1+1"), "a\t'=1+1");
  assert.equal(csvCell("x,@SUM(A1)"), "\"x,'@SUM(A1)\"");
  assert.equal(csvCell("=1;=2;'3"), "'=1;'=2;''3");
  assert.equal(csvCell("1-2"), "1-2");
  assert.equal(csvCell("a; -1"), "a; -1");
  for (const value of TRICKY) {
    const guarded = guardCsvCell(value);
    assert.equal(csvCell(value).replace(/^"|"$/g, "").replace(/""/g, "\""), guarded, `service and client guard ${JSON.stringify(value)} alike`);
    assert.equal(unguardCsvCell(guarded), value, `${JSON.stringify(value)} comes back`);
    for (const piece of pieces(guarded)) assert.doesNotMatch(piece, FORMULA, `${JSON.stringify(value)} guarded as ${JSON.stringify(guarded)}`);
  }
});

test("csvCell quotes only what needs quotes and guards formula starts", () => {
  assert.equal(csvCell("a"), "a");
  assert.equal(csvCell("a,b"), "\"a,b\"");
  assert.equal(csvCell("a\"b"), "\"a\"\"b\"");
  assert.equal(csvCell("=1"), "'=1");
  assert.equal(csvCell("-1,5"), "\"'-1,5\"");
  assert.equal(csvCell("'x"), "''x");
  assert.equal(csvCell("\rx"), "\"'\rx\"");
});

test("a CSV report of 5,000 rows streams in batches and reads back whole", async () => {
  const blocId = await addBloc(server, "Many", ["A"]);
  await Promise.all(Array.from({ length: 50 }, async (_, w) => {
    for (let i = w; i < 5000; i += 50) await addRecord(server, blocId, { field_1: `v${i},"${i}"` });
  }));
  const reply = await server.call("GET", "/api/get-data-report", {
    json: { stationID: blocId, fieldsToReport: JSON.stringify({ field_1: true }), responseType: "csv" },
  });
  const rows = pythonRows(reply.body);
  assert.equal(rows.length, 5001);
  assert.deepEqual(new Set(rows.slice(1).map((r) => r[0])), new Set(Array.from({ length: 5000 }, (_, i) => `v${i},"${i}"`)));
});

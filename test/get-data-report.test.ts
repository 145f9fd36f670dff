import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import ExcelJS from "exceljs";
import { addBloc, addMember, startServer, type Member, type TestServer } from "./support/server.js";
import type { Reply } from "./support/http.js";
import { insertAt, keysOf, shuffled, stamp } from "./support/fixtures.js";

const XLSX_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";
const NOT_AUTHORISED = { error: "You are not authorized to access this bloc" };

let server: TestServer;

before(async () => {
  server = await startServer();
});

after(async () => {
  await server.close();
});

function report(body: unknown, token?: string): Promise<Reply> {
  return server.call("GET", "/api/get-data-report", { json: body, ...(token === undefined ? {} : { token }) });
}

type Row = Record<string, string>;

/** The rows of a JSON report, after checking the answer's outer shape. */
async function reportRows(body: Record<string, unknown>, token?: string): Promise<Row[]> {
  const reply = await report(body, token);
  assert.equal(reply.status, 200, `${JSON.stringify(body)}: ${reply.text.slice(0, 500)}`);
  assert.match(String(reply.headers["content-type"]), /^application\/json/);
  assert.deepEqual(keysOf(reply.json), ["data"]);
  assert.ok(Array.isArray(reply.json.data));
  return reply.json.data as Row[];
}

function cellText(value: ExcelJS.CellValue): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (typeof value === "object" && "richText" in value) return value.richText.map((part) => part.text).join("");
  return JSON.stringify(value);
}

/** The workbook of an .xlsx answer, read back with ExcelJS, as a sheet name and its rows of text. */
async function readWorkbook(reply: Reply, width: number): Promise<{ sheets: string[]; rows: string[][] }> {
  const workbook = new ExcelJS.Workbook();
  // ExcelJS declares its own Buffer type; the Node Buffer is what it reads at run time.
  await workbook.xlsx.load(reply.body as unknown as Parameters<typeof workbook.xlsx.load>[0]);
  const sheets = workbook.worksheets.map((sheet) => sheet.name);
  const sheet = workbook.worksheets[0];
  assert.ok(sheet, "the workbook has a sheet");
  const rows: string[][] = [];
  for (let r = 1; r <= sheet.rowCount; r += 1) {
    const row = sheet.getRow(r);
    const cells: string[] = [];
    for (let c = 1; c <= width; c += 1) cells.push(cellText(row.getCell(c).value));
    rows.push(cells);
  }
  return { sheets, rows };
}

const ALL_KEYS = ["created_at", "user_id", "field_1", "field_2", "field_3", "time_stamp", "date_stamp"];

describe("get-data-report: a small bloc", () => {
  let blocId: string;
  const id: Record<string, number> = {};
  /** The expected "all" rows, oldest first. */
  const rowsAll: Record<string, Row> = {
    r1: { created_at: "2026-04-01 08:00:00", user_id: "u-1", field_1: "bolt", field_2: "5", field_3: "North",
      time_stamp: "08:00:00", date_stamp: "2026-04-01" },
    r2: { created_at: "2026-04-01 09:15:30", user_id: "u-2", field_1: "nut", field_2: "7", field_3: "South",
      time_stamp: "09:15:30", date_stamp: "2026-04-01" },
    r3: { created_at: "2026-04-02 10:00:00", user_id: "u-1", field_1: "bolt", field_2: "9", field_3: "South",
      time_stamp: "10:00:00", date_stamp: "2026-04-02" },
    r4: { created_at: "2026-04-03 23:59:59", user_id: "u-3", field_1: "Bolt", field_2: "1", field_3: "",
      time_stamp: "23:59:59", date_stamp: "2026-04-03" },
    r5: { created_at: "2026-04-04 00:00:00", user_id: "u-2", field_1: "washer ", field_2: "", field_3: "North",
      time_stamp: "00:00:00", date_stamp: "2026-04-04" },
  };
  const labels = Object.keys(rowsAll);
  const expect = (...names: string[]): Row[] => names.map((n) => rowsAll[n]!);

  before(async () => {
    blocId = await addBloc(server, "Stock Take", ["Item", "Qty", "Site"]);
    // Inserted out of time order: the report must order by created_at, not by ID.
    for (const label of ["r3", "r1", "r5", "r2", "r4"]) {
      const row = rowsAll[label]!;
      const values: Record<string, string> = {};
      for (const slug of ["field_1", "field_2", "field_3"]) if (row[slug] !== "") values[slug] = row[slug]!;
      id[label] = await insertAt(server, blocId, row.created_at!, values, row.user_id);
    }
  });

  describe("required parameters", () => {
    for (const [name, body] of [
      ["stationID", () => ({ fieldsToReport: "all" })],
      ["stationID", () => ({ stationID: " ", fieldsToReport: "all" })],
      ["fieldsToReport", () => ({ stationID: blocId })],
      ["fieldsToReport", () => ({ stationID: blocId, fieldsToReport: "" })],
    ] as const) {
      test(`without ${name} (${JSON.stringify(body())}) → 400 {error} naming it`, async () => {
        const reply = await report(body());
        assert.equal(reply.status, 400, reply.text);
        assert.deepEqual(keysOf(reply.json), ["error"]);
        assert.ok(reply.json.error.includes(name), `"${reply.json.error}" should name ${name}`);
      });
    }

    test("a malformed JSON body → 400 {error}", async () => {
      const reply = await server.call("GET", "/api/get-data-report", {
        body: "{\"stationID\": ", headers: { "content-type": "application/json" },
      });
      assert.equal(reply.status, 400, reply.text);
      assert.deepEqual(keysOf(reply.json), ["error"]);
      assert.match(reply.json.error, /JSON/);
    });
  });

  describe("fields", () => {
    test("\"all\" gives created_at, user_id, every field, time_stamp and date_stamp, oldest first", async () => {
      const rows = await reportRows({ stationID: blocId, fieldsToReport: "all" });
      assert.deepEqual(rows, expect(...labels));
      for (const row of rows) assert.deepEqual(keysOf(row), [...ALL_KEYS].sort());
    });

    test("a selection as a JSON-encoded string gives exactly the selected keys", async () => {
      const rows = await reportRows({
        stationID: blocId, fieldsToReport: JSON.stringify({ field_1: true, time_stamp: true }),
      });
      assert.deepEqual(rows, labels.map((l) => ({ field_1: rowsAll[l]!.field_1, time_stamp: rowsAll[l]!.time_stamp })));
      for (const row of rows) assert.deepEqual(keysOf(row), ["field_1", "time_stamp"]);
    });

    test("a selection as an object, with system columns, gives exactly the selected keys", async () => {
      const rows = await reportRows({
        stationID: blocId, fieldsToReport: { user_id: true, field_3: true, date_stamp: true, created_at: true },
      });
      for (const row of rows) assert.deepEqual(keysOf(row), ["created_at", "date_stamp", "field_3", "user_id"]);
      assert.deepEqual(rows, labels.map((l) => {
        const r = rowsAll[l]!;
        return { created_at: r.created_at, user_id: r.user_id, field_3: r.field_3, date_stamp: r.date_stamp };
      }));
    });

    test("a field set to false is left out", async () => {
      const rows = await reportRows({ stationID: blocId, fieldsToReport: { field_1: true, field_2: false } });
      assert.deepEqual(rows, labels.map((l) => ({ field_1: rowsAll[l]!.field_1 })));
    });

    for (const fields of [{ no_such_field: true }, JSON.stringify({ field_1: true, field_99: true })]) {
      test(`an unknown slug in ${JSON.stringify(fields)} → 400 {error} naming it`, async () => {
        const reply = await report({ stationID: blocId, fieldsToReport: fields });
        assert.equal(reply.status, 400, reply.text);
        assert.deepEqual(keysOf(reply.json), ["error"]);
        assert.match(reply.json.error, /no_such_field|field_99/);
      });
    }

    test("a fieldsToReport that is neither \"all\" nor a JSON object → 400 {error}", async () => {
      for (const fieldsToReport of ["everything", "[\"field_1\"]"]) {
        const reply = await report({ stationID: blocId, fieldsToReport });
        assert.equal(reply.status, 400, `${fieldsToReport}: ${reply.text}`);
        assert.deepEqual(keysOf(reply.json), ["error"]);
      }
    });
  });

  describe("requestedReportData date bounds", () => {
    const cases: { name: string; dates: Record<string, string>; expected: string[] }[] = [
      { name: "datetime from and date-only to, both inclusive",
        dates: { reportFromDate: "2026-04-01 09:15:30", reportToDate: "2026-04-03" }, expected: ["r2", "r3", "r4"] },
      { name: "date-only from alone starts at 00:00:00",
        dates: { reportFromDate: "2026-04-02" }, expected: ["r3", "r4", "r5"] },
      { name: "date-only to alone ends at 23:59:59",
        dates: { reportToDate: "2026-04-03" }, expected: ["r1", "r2", "r3", "r4"] },
      { name: "datetime to alone is inclusive",
        dates: { reportToDate: "2026-04-01 09:15:30" }, expected: ["r1", "r2"] },
      { name: "date-only from and to on one day select the whole day",
        dates: { reportFromDate: "2026-04-01", reportToDate: "2026-04-01" }, expected: ["r1", "r2"] },
      { name: "datetime from and datetime to",
        dates: { reportFromDate: "2026-04-01 08:00:01", reportToDate: "2026-04-04 00:00:00" },
        expected: ["r2", "r3", "r4", "r5"] },
    ];
    for (const c of cases) {
      test(`${c.name} (JSON-encoded string)`, async () => {
        const rows = await reportRows({ stationID: blocId, fieldsToReport: "all", requestedReportData: JSON.stringify(c.dates) });
        assert.deepEqual(rows, expect(...c.expected));
      });
    }

    test("requestedReportData as an object works too", async () => {
      const rows = await reportRows({
        stationID: blocId, fieldsToReport: "all", requestedReportData: { reportFromDate: "2026-04-03", reportToDate: "2026-04-04" },
      });
      assert.deepEqual(rows, expect("r4", "r5"));
    });

    for (const [key, value] of [
      ["reportFromDate", "2026-04-31"], ["reportToDate", "2026-13-01"], ["reportFromDate", "2026-04-01 24:00:00"],
      ["reportToDate", "April 1st"],
    ] as const) {
      test(`an impossible ${key} "${value}" → 400 {error} naming it`, async () => {
        const reply = await report({ stationID: blocId, fieldsToReport: "all", requestedReportData: JSON.stringify({ [key]: value }) });
        assert.equal(reply.status, 400, reply.text);
        assert.deepEqual(keysOf(reply.json), ["error"]);
        assert.ok(reply.json.error.includes(key), `"${reply.json.error}" should name ${key}`);
      });
    }
  });

  describe("dataFilteringData", () => {
    const filterCases: { name: string; filter: Record<string, unknown>; expected: string[] }[] = [
      { name: "one value is matched exactly (case counts)", filter: { field_1: ["bolt"] }, expected: ["r1", "r3"] },
      { name: "a row may match any of the values", filter: { field_1: ["bolt", "nut"] }, expected: ["r1", "r2", "r3"] },
      { name: "several fields are ANDed", filter: { field_1: ["bolt", "Bolt"], field_3: ["South"] }, expected: ["r3"] },
      { name: "an empty list puts no constraint", filter: { field_1: [] }, expected: ["r1", "r2", "r3", "r4", "r5"] },
      { name: "an empty list beside a real one", filter: { field_1: [], field_3: ["North"] }, expected: ["r1", "r5"] },
      { name: "spaces count", filter: { field_1: ["washer"] }, expected: [] },
      { name: "trailing space matched exactly", filter: { field_1: ["washer "] }, expected: ["r5"] },
    ];
    for (const c of filterCases) {
      test(`filterDataToQuery: ${c.name}`, async () => {
        const rows = await reportRows({
          stationID: blocId, fieldsToReport: "all", dataFilteringData: JSON.stringify({ stationID: blocId, filterDataToQuery: c.filter }),
        });
        assert.deepEqual(rows, expect(...c.expected));
      });
    }

    test("dataFilteringData as an object works too", async () => {
      const rows = await reportRows({
        stationID: blocId, fieldsToReport: "all", dataFilteringData: { filterDataToQuery: { field_3: ["North"] } },
      });
      assert.deepEqual(rows, expect("r1", "r5"));
    });

    test("an unknown slug in filterDataToQuery → 400 {error} naming it", async () => {
      const reply = await report({
        stationID: blocId, fieldsToReport: "all", dataFilteringData: JSON.stringify({ filterDataToQuery: { colour: ["red"] } }),
      });
      assert.equal(reply.status, 400, reply.text);
      assert.deepEqual(keysOf(reply.json), ["error"]);
      assert.match(reply.json.error, /colour/);
    });

    test("reverse gives newest first, as a boolean or \"true\"", async () => {
      for (const reverse of [true, "true"]) {
        const rows = await reportRows({ stationID: blocId, fieldsToReport: "all", dataFilteringData: JSON.stringify({ reverse }) });
        assert.deepEqual(rows, expect("r5", "r4", "r3", "r2", "r1"));
      }
      const explicitFalse = await reportRows({ stationID: blocId, fieldsToReport: "all", dataFilteringData: { reverse: false } });
      assert.deepEqual(explicitFalse, expect(...labels));
    });

    test("currentPage with resultLimit gives that page", async () => {
      const page = (currentPage: number, reverse = false) => reportRows({
        stationID: blocId, fieldsToReport: { field_1: true, created_at: true },
        dataFilteringData: JSON.stringify({ currentPage, resultLimit: 2, reverse }),
      });
      const only = (names: string[]) => names.map((n) => ({ created_at: rowsAll[n]!.created_at, field_1: rowsAll[n]!.field_1 }));
      assert.deepEqual(await page(1), only(["r1", "r2"]));
      assert.deepEqual(await page(2), only(["r3", "r4"]));
      assert.deepEqual(await page(3), only(["r5"]));
      assert.deepEqual(await page(4), []);
      assert.deepEqual(await page(1, true), only(["r5", "r4"]));
    });

    test("resultLimit without currentPage is ignored: the whole result comes back", async () => {
      const rows = await reportRows({ stationID: blocId, fieldsToReport: "all", dataFilteringData: { resultLimit: 2 } });
      assert.deepEqual(rows, expect(...labels));
    });

    for (const paging of [{ currentPage: 0 }, { currentPage: "x" }, { currentPage: 1, resultLimit: 0 }, { currentPage: 1, resultLimit: 10001 }]) {
      test(`paging ${JSON.stringify(paging)} → 400 {error}`, async () => {
        const reply = await report({ stationID: blocId, fieldsToReport: "all", dataFilteringData: JSON.stringify(paging) });
        assert.equal(reply.status, 400, reply.text);
        assert.deepEqual(keysOf(reply.json), ["error"]);
        assert.match(reply.json.error, /currentPage|resultLimit/);
      });
    }

    test("filters, bounds, order and paging combine", async () => {
      const rows = await reportRows({
        stationID: blocId, fieldsToReport: "all",
        requestedReportData: JSON.stringify({ reportFromDate: "2026-04-01 08:00:01" }),
        dataFilteringData: JSON.stringify({ filterDataToQuery: { field_3: ["South", "North"] }, reverse: true, currentPage: 1, resultLimit: 2 }),
      });
      assert.deepEqual(rows, expect("r5", "r3"));
    });
  });

  describe("transport", () => {
    test("the parameters work from a query string", async () => {
      const reply = await server.call("GET", `/api/get-data-report?stationID=${blocId}&fieldsToReport=all`);
      assert.equal(reply.status, 200, reply.text);
      assert.deepEqual(reply.json.data, expect(...labels));
    });

    test("the body wins over the query string", async () => {
      const reply = await server.call("GET", "/api/get-data-report?stationID=nope&fieldsToReport=nothing", {
        json: { stationID: blocId, fieldsToReport: JSON.stringify({ field_2: true }) },
      });
      assert.equal(reply.status, 200, reply.text);
      assert.deepEqual(reply.json.data, labels.map((l) => ({ field_2: rowsAll[l]!.field_2 })));
    });

    test("POST behaves like GET", async () => {
      const body = {
        stationID: blocId, fieldsToReport: "all",
        requestedReportData: JSON.stringify({ reportFromDate: "2026-04-01 09:00:00", reportToDate: "2026-04-01" }),
      };
      const viaPost = await server.call("POST", "/api/get-data-report", { json: body });
      assert.equal(viaPost.status, 200, viaPost.text);
      assert.deepEqual(viaPost.json, (await report(body)).json);
      assert.deepEqual(viaPost.json.data, expect("r2"));
    });
  });

  describe("xlsx", () => {
    test("responseType blob answers a real .xlsx: spec content type, attachment named <bloc>-<YYYYMMDD-HHMMSS>.xlsx", async () => {
      const before = Date.now();
      const reply = await report({ stationID: blocId, fieldsToReport: "all", responseType: "blob" });
      assert.equal(reply.status, 200, reply.text.slice(0, 300));
      assert.equal(String(reply.headers["content-type"]).split(";")[0], XLSX_TYPE);
      const disposition = String(reply.headers["content-disposition"]);
      const match = /^attachment;\s*filename="Stock Take-(\d{8})-(\d{6})\.xlsx"/.exec(disposition);
      assert.ok(match, `Content-Disposition: ${disposition}`);
      const [, day, time] = match;
      const named = Date.parse(`${day!.slice(0, 4)}-${day!.slice(4, 6)}-${day!.slice(6)}T${time!.slice(0, 2)}:${time!.slice(2, 4)}:${time!.slice(4)}Z`);
      assert.ok(Math.abs(named - before) < 60_000, `the file name's time ${day}-${time} is about now (UTC)`);
      assert.equal(reply.body.subarray(0, 2).toString("latin1"), "PK", "an .xlsx is a zip file");
    });

    test("the workbook has one sheet named after the bloc, a header of display names and every row in JSON order", async () => {
      const reply = await report({ stationID: blocId, fieldsToReport: "all", responseType: "blob" });
      assert.equal(reply.status, 200);
      const { sheets, rows } = await readWorkbook(reply, ALL_KEYS.length);
      assert.deepEqual(sheets, ["Stock Take"]);
      assert.deepEqual(rows[0], ["Created At", "User ID", "Item", "Qty", "Site", "Time", "Date"]);
      const json = await reportRows({ stationID: blocId, fieldsToReport: "all" });
      assert.deepEqual(rows.slice(1), json.map((row) => ALL_KEYS.map((key) => row[key]!)));
      assert.equal(rows.length, 1 + labels.length);
    });

    test("a selection, date bounds and reverse shape the workbook like the JSON", async () => {
      const body = {
        stationID: blocId, fieldsToReport: JSON.stringify({ field_2: true, field_1: true, date_stamp: true }),
        requestedReportData: JSON.stringify({ reportFromDate: "2026-04-01 08:00:01", reportToDate: "2026-04-03" }),
        dataFilteringData: JSON.stringify({ reverse: "true" }),
      };
      const reply = await report({ ...body, responseType: "blob" });
      assert.equal(reply.status, 200, reply.text.slice(0, 300));
      const { rows } = await readWorkbook(reply, 4);
      assert.deepEqual(rows[0], ["Item", "Qty", "Date", ""]);
      const json = await reportRows(body);
      assert.deepEqual(json, ["r4", "r3", "r2"].map((n) => ({
        field_1: rowsAll[n]!.field_1, field_2: rowsAll[n]!.field_2, date_stamp: rowsAll[n]!.date_stamp,
      })));
      assert.deepEqual(rows.slice(1), json.map((row) => [row.field_1!, row.field_2!, row.date_stamp!, ""]));
    });

    test("a value filter shapes the workbook like the JSON", async () => {
      const body = {
        stationID: blocId, fieldsToReport: { field_1: true },
        dataFilteringData: JSON.stringify({ filterDataToQuery: { field_1: ["bolt", "Bolt"] } }),
      };
      const reply = await report({ ...body, responseType: "blob" });
      assert.equal(reply.status, 200, reply.text.slice(0, 300));
      const { rows } = await readWorkbook(reply, 1);
      assert.deepEqual(rows, [["Item"], ["bolt"], ["bolt"], ["Bolt"]]);
    });

    test("an empty result still gives a workbook with the header row", async () => {
      const reply = await report({
        stationID: blocId, fieldsToReport: "all", responseType: "blob",
        requestedReportData: { reportFromDate: "2030-01-01" },
      });
      assert.equal(reply.status, 200, reply.text.slice(0, 300));
      const { rows } = await readWorkbook(reply, ALL_KEYS.length);
      assert.deepEqual(rows, [["Created At", "User ID", "Item", "Qty", "Site", "Time", "Date"]]);
    });
  });

  describe("access", () => {
    let reader: Member;
    let noRead: Member;

    before(async () => {
      reader = await addMember(server, { blocId, read: true });
      noRead = await addMember(server, { blocId, add: true, update: true });
    });

    test("a member with read permission gets the report", async () => {
      const rows = await reportRows({ stationID: blocId, fieldsToReport: "all" }, reader.token);
      assert.equal(rows.length, labels.length);
    });

    test("a member without read → 401 with the spec's text, for JSON and for blob", async () => {
      for (const responseType of [undefined, "blob"]) {
        const reply = await report({ stationID: blocId, fieldsToReport: "all", responseType }, noRead.token);
        assert.equal(reply.status, 401, reply.text);
        assert.match(String(reply.headers["content-type"]), /^application\/json/);
        assert.deepEqual(reply.json, NOT_AUTHORISED);
      }
    });

    test("a bloc that does not exist looks exactly like a forbidden one to a member", async () => {
      const forbidden = await report({ stationID: blocId, fieldsToReport: "all" }, noRead.token);
      const missing = await report({ stationID: "no-such-bloc", fieldsToReport: "all" }, reader.token);
      assert.equal(missing.status, 401);
      assert.equal(missing.text, forbidden.text);
    });

    test("no token or an unknown token → 401 {error}", async () => {
      for (const token of [undefined, "bds_not-a-real-token-not-a-real-token-xx"]) {
        const reply = await server.call("GET", "/api/get-data-report", { json: { stationID: blocId, fieldsToReport: "all" }, token });
        assert.equal(reply.status, 401, reply.text);
        assert.deepEqual(keysOf(reply.json), ["error"]);
        assert.equal(typeof reply.json.error, "string");
      }
    });
  });
});

describe("get-data-report: a bloc larger than one batch", () => {
  const TOTAL = 2500;
  let blocId: string;
  /** field_1 values in oldest-first order (created_at, then ID). */
  let oldestFirst: string[];

  before(async () => {
    blocId = await addBloc(server, "Big Count", ["Seq", "Parity"]);
    // Three records per second, so ties straddle the batch boundaries at 1000 and 2000;
    // inserted shuffled so that ID order differs from time order.
    const planned = Array.from({ length: TOTAL }, (_, i) => ({
      seq: String(i), createdAt: stamp("2026-06-01 00:00:00", Math.floor(i / 3)), parity: i % 2 === 0 ? "even" : "odd",
    }));
    const inserted: { id: number; createdAt: string; seq: string }[] = [];
    for (const p of shuffled(planned, 777)) {
      const id = await insertAt(server, blocId, p.createdAt, { field_1: p.seq, field_2: p.parity });
      inserted.push({ id, createdAt: p.createdAt, seq: p.seq });
    }
    inserted.sort((a, b) => (a.createdAt === b.createdAt ? a.id - b.id : a.createdAt < b.createdAt ? -1 : 1));
    oldestFirst = inserted.map((r) => r.seq);
  });

  test("JSON \"all\" holds every record once, oldest first across batches", async () => {
    const rows = await reportRows({ stationID: blocId, fieldsToReport: "all" });
    assert.equal(rows.length, TOTAL);
    assert.deepEqual(rows.map((r) => r.field_1), oldestFirst);
    assert.equal(new Set(rows.map((r) => r.field_1)).size, TOTAL);
  });

  test("JSON with reverse holds every record once, newest first across batches", async () => {
    const rows = await reportRows({ stationID: blocId, fieldsToReport: { field_1: true }, dataFilteringData: { reverse: true } });
    assert.deepEqual(rows.map((r) => r.field_1), [...oldestFirst].reverse());
  });

  test("a filter over more than one batch keeps order and count", async () => {
    const rows = await reportRows({
      stationID: blocId, fieldsToReport: { field_1: true },
      dataFilteringData: JSON.stringify({ filterDataToQuery: { field_2: ["even"] } }),
    });
    assert.deepEqual(rows.map((r) => r.field_1), oldestFirst.filter((seq) => Number(seq) % 2 === 0));
  });

  test("currentPage without resultLimit pages by 1000", async () => {
    const page = async (currentPage: number) => (await reportRows({
      stationID: blocId, fieldsToReport: { field_1: true }, dataFilteringData: { currentPage },
    })).map((r) => r.field_1);
    assert.deepEqual(await page(1), oldestFirst.slice(0, 1000));
    assert.deepEqual(await page(3), oldestFirst.slice(2000));
  });

  test("the .xlsx holds the header and every record in the JSON order", async () => {
    const json = await reportRows({ stationID: blocId, fieldsToReport: "all" });
    const reply = await report({ stationID: blocId, fieldsToReport: "all", responseType: "blob" });
    assert.equal(reply.status, 200, reply.text.slice(0, 300));
    assert.equal(String(reply.headers["content-type"]).split(";")[0], XLSX_TYPE);
    const keys = ["created_at", "user_id", "field_1", "field_2", "time_stamp", "date_stamp"];
    const { sheets, rows } = await readWorkbook(reply, keys.length + 1);
    assert.deepEqual(sheets, ["Big Count"]);
    assert.deepEqual(rows[0], ["Created At", "User ID", "Seq", "Parity", "Time", "Date", ""]);
    assert.equal(rows.length, TOTAL + 1);
    assert.deepEqual(rows.slice(1), json.map((row) => [...keys.map((k) => row[k]!), ""]));
  });
});

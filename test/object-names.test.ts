import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { runPython } from "./support/python.js";
import { addBloc, startServer, type TestServer } from "./support/server.js";
import { storedRecords } from "./support/fixtures.js";
import type { Reply } from "./support/http.js";
import type { Bloc, Field } from "../src/domain/model.js";
import { CELL_MAX, cellText } from "../src/domain/xlsx-text.js";

/*
 * Finding 6 (store and domain part): slugs that every JavaScript object already answers
 * to are refused at field creation, and blocs that hold such slugs from before still
 * work; a value holding characters XML 1.0 forbids no longer breaks the .xlsx export.
 */

const OBJECT_NAMES = ["toString", "constructor", "__proto__", "hasOwnProperty", "valueOf", "isPrototypeOf",
  "propertyIsEnumerable", "toLocaleString", "__defineGetter__", "__lookupSetter__"];

let server: TestServer;

before(async () => {
  server = await startServer();
});

after(async () => {
  await server.close();
});

describe("slugs named like Object.prototype's properties", () => {
  for (const slug of OBJECT_NAMES) {
    test(`"${slug}" is refused with 400 {error} at bloc creation and when adding a field`, async () => {
      const created = await server.call("POST", "/api/admin/blocs", { json: { name: "X", fields: [{ name: "A", slug }] } });
      assert.equal(created.status, 400, created.text);
      assert.deepEqual(Object.keys(created.json), ["error"]);
      assert.ok(created.json.error.includes(`"${slug}"`), created.json.error);
      const blocId = await addBloc(server, `Target ${slug}`, ["A"]);
      const added = await server.call("POST", `/api/admin/blocs/${blocId}/fields`, { json: { name: "B", slug } });
      assert.equal(added.status, 400, added.text);
      assert.deepEqual(Object.keys(added.json), ["error"]);
      const bloc = await server.call("GET", `/api/admin/blocs/${blocId}`);
      assert.deepEqual(bloc.json.fields.map((f: Field) => f.slug), ["field_1"], "no field was added");
    });
  }

  describe("a bloc that holds such slugs from before the rule", () => {
    const blocId = "old-object-names";
    const text: Omit<Field, "slug" | "name"> = {
      applyProfileFilter: false, type: "text", options: null, required: false, unique: false, maxLength: null, pattern: null,
      format: null, indexed: false,
    };

    before(async () => {
      const bloc: Bloc = {
        id: blocId, name: "Old", openToAllUsers: false, acceptingData: true, restriction: "none", moduleId: null,
        requireJob: false, scanLimit: null, scanLimitPeriod: null,
        fields: [
          { ...text, slug: "toString", name: "Required one", required: true },
          { ...text, slug: "constructor", name: "Plain" },
          { ...text, slug: "valueOf", name: "Unique one", unique: true },
          { ...text, slug: "hasOwnProperty", name: "Counter", type: "autogenerate", format: "N-{seq:3 by toString}" },
        ],
      };
      // Straight through the store, as a bloc made before such slugs were refused.
      await server.ctx.store.blocs.createBloc(bloc, "2026-01-01 00:00:00");
    });

    function add(values: Record<string, string>): Promise<Reply> {
      return server.call("POST", "/api/add-data", { json: { scanStationID: blocId, dataToAdd: values } });
    }

    test("the required rule holds: a record without it is refused with 400 {error}, nothing stored", async () => {
      const reply = await add({ constructor: "c" });
      assert.equal(reply.status, 400, reply.text);
      assert.match(reply.json.error, /^toString \(Required one\) breaks rule "required"/);
      assert.equal((await storedRecords(server, blocId)).length, 0);
    });

    test("adds, reads, counts, unique values, counters per group and updates work by those slugs", async () => {
      const first = await add({ toString: "A", valueOf: "u-1" });
      assert.equal(first.status, 200, first.text);
      const second = await add({ toString: "A", constructor: "c-2", valueOf: "u-2" });
      assert.equal(second.status, 200, second.text);
      const dupe = await add({ toString: "B", valueOf: "u-1" });
      assert.equal(dupe.status, 400, dupe.text);
      assert.match(dupe.json.error, /^valueOf \(Unique one\) breaks rule "unique"/);

      const read = await server.call("GET", "/api/get-data", { json: { blocId, reverse: true } });
      assert.equal(read.status, 200, read.text);
      const rows = [read.json.data["0"], read.json.data["1"]];
      assert.deepEqual(rows.map((r) => [r.toString, r.constructor, r.valueOf, r.hasOwnProperty]),
        [["A", "", "u-1", "N-001"], ["A", "c-2", "u-2", "N-002"]]);
      assert.deepEqual(read.json.data.fieldCounts.constructor, { "c-2": 1 });
      assert.deepEqual(read.json.data.fieldNames.toString, "Required one");

      const updated = await server.call("POST", "/api/update-records-by-matching-values", {
        json: { blocId, fieldsToUpdate: { constructor: "set" }, searchItems: { valueOf: "u-1" } },
      });
      assert.equal(updated.status, 200, updated.text);
      assert.deepEqual(updated.json.updated_record_ids, [first.json.returnedStationID]);
      const taken = await server.call("POST", "/api/update-records-by-matching-values", {
        json: { blocId, fieldsToUpdate: { valueOf: "u-2" }, searchItems: { valueOf: "u-1" } },
      });
      assert.equal(taken.status, 400, taken.text);

      const report = await server.call("GET", "/api/get-data-report", { json: { stationID: blocId, fieldsToReport: "all" } });
      assert.equal(report.status, 200, report.text);
      assert.deepEqual(report.json.data.map((r: Record<string, string>) => r.constructor), ["set", "c-2"]);
    });
  });
});

/**
 * Every XML part of an .xlsx parsed by Python's standard XML parser (expat, strict XML
 * 1.0, which openpyxl also reads with), then the first sheet's cells as text, which
 * must equal what openpyxl reads.
 */
const READ_XLSX = String.raw`
import io, json, sys, zipfile
import xml.etree.ElementTree as ET
data = sys.stdin.buffer.read()
ns = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
with zipfile.ZipFile(io.BytesIO(data)) as z:
    for name in z.namelist():
        if name.endswith(".xml") or name.endswith(".rels"):
            ET.fromstring(z.read(name))
    sheet = ET.fromstring(z.read("xl/worksheets/sheet1.xml"))
def column(ref):
    n = 0
    for ch in ref:
        if ch.isalpha():
            n = n * 26 + ord(ch.upper()) - 64
    return n - 1
def text(cell):
    value = cell.find(ns + "v")
    if value is not None:
        return value.text or ""
    return "".join(t.text or "" for t in cell.iter(ns + "t"))
rows = []
width = 0
for row in sheet.iter(ns + "row"):
    cells = {column(c.get("r")): text(c) for c in row.iter(ns + "c")}
    width = max([width] + [k + 1 for k in cells])
    rows.append(cells)
rows = [[r.get(i, "") for i in range(width)] for r in rows]
import openpyxl
book = openpyxl.load_workbook(io.BytesIO(data))
cells = [["" if v is None else str(v) for v in r][:width] for r in book.worksheets[0].iter_rows(values_only=True)]
cells = [r + [""] * (width - len(r)) for r in cells]
assert cells == rows, (cells, rows)
readers = ["expat", "openpyxl"]
print(json.dumps({"rows": rows, "readers": readers}))
`;

function readXlsx(body: Buffer): { rows: string[][]; readers: string[] } {
  return JSON.parse(runPython(READ_XLSX, body)) as { rows: string[][]; readers: string[] };
}

describe(".xlsx with characters XML 1.0 forbids", () => {
  test("the workbook stays valid: forbidden characters are dropped, text past Excel's cell limit is cut", async () => {
    const blocId = await addBloc(server, "Odd \uFFFE name", ["Part\uFFFF", "Note"]);
    const values = [
      { field_1: "a\uFFFEb", field_2: "\uFFFF" },
      { field_1: "c\u0001d\u001Fe", field_2: "tab\there\nline" },
      { field_1: "pair \uD83D\uDE00 kept", field_2: "x" },
      { field_1: "y".repeat(CELL_MAX + 10), field_2: "" },
    ];
    for (const dataToAdd of values) {
      const reply = await server.call("POST", "/api/add-data", { json: { scanStationID: blocId, dataToAdd } });
      assert.equal(reply.status, 200, reply.text);
    }
    const reply = await server.call("GET", "/api/get-data-report", {
      json: { stationID: blocId, fieldsToReport: { field_1: true, field_2: true }, responseType: "blob" },
    });
    assert.equal(reply.status, 200);
    const { rows } = readXlsx(reply.body);
    assert.deepEqual(rows, [
      ["Part", "Note"],
      ["ab", ""],
      ["cde", "tab\there\nline"],
      ["pair \uD83D\uDE00 kept", "x"],
      ["y".repeat(CELL_MAX), ""],
    ]);
    // The JSON report keeps the values as stored.
    const json = await server.call("GET", "/api/get-data-report", { json: { stationID: blocId, fieldsToReport: "all" } });
    assert.equal(json.json.data[0].field_1, "a\uFFFEb");
    assert.equal(json.json.data[3].field_1.length, CELL_MAX + 10);
  });

  test("cell text: lone surrogates are dropped, and a cut never splits a pair", () => {
    assert.equal(cellText("a\uD800b\uDC00c"), "abc");
    assert.equal(cellText(`${"z".repeat(CELL_MAX - 1)}\uD83D\uDE00`), "z".repeat(CELL_MAX - 1));
    assert.equal(cellText("plain\ttext"), "plain\ttext");
  });
});

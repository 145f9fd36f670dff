import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buffer } from "node:stream/consumers";
import { randomBytes } from "node:crypto";
import { setTimeout as delay } from "node:timers/promises";
import { runPython } from "./support/python.js";
import { addBloc, startServer, type TestServer } from "./support/server.js";
import { CELL_MAX, cellText } from "../src/domain/xlsx-text.js";
import { XlsxWorkbook } from "../src/domain/xlsx-workbook.js";

/*
 * An .xlsx report read back by two readers nobody here wrote, openpyxl and LibreOffice:
 * every value must come back as the user stored it (docs/reports.md
 * lists the characters no spreadsheet can carry, and what LibreOffice does to CR LF).
 */

let server: TestServer;
before(async () => { server = await startServer(); });
after(async () => { await server.close(); });

const LONG = "é".repeat(16_000) + " ".repeat(8_000) + "z".repeat(8_000);
/** Each entry a value stored in field_1, with what the spreadsheet must hold when it differs. */
const VALUES: readonly { readonly stored: string; readonly cell?: string; readonly openpyxl?: string }[] = [
  { stored: "  leading and trailing  " },
  { stored: " " },
  { stored: "\ttab\tinside\t" },
  { stored: "line\nfeed" },
  { stored: "carriage\rreturn" },
  { stored: "lf then cr\n\r" },
  { stored: "cr at end\r" },
  { stored: "\rcr at start" },
  { stored: "a\n\rb" },
  { stored: "crlf\r\npair" },
  { stored: "\r\n" },
  { stored: "line\u2028separator\u2029paragraph" },
  { stored: "_x0041_" },
  { stored: "_x000d_ and _X0041_ and _x00e9_ and _x0041__x0042_" },
  // openpyxl removes every "x005F_" from shared strings (not only the escape's): text that itself holds it reads back shortened there.
  { stored: "_x005F_x0041_", openpyxl: "_x0041_" },
  { stored: "x_x0041_y_x0001_" },
  { stored: "controls \u0001\u0008\u000B\u000C\u001F\uFFFE\uFFFF end", cell: "controls  end" },
  { stored: "=1+1" },
  { stored: "\t=1+1" },
  { stored: "+A1" },
  { stored: "-2" },
  { stored: "@SUM(A1:A2)" },
  { stored: "=HYPERLINK(\"http://example.invalid\",\"x\")" },
  { stored: "007" },
  { stored: "1e5" },
  { stored: "0.1000" },
  { stored: "TRUE" },
  { stored: "2026-04-01" },
  { stored: "<b>&amp;</b> \"quoted\" 'single' ]]>" },
  { stored: LONG },
  { stored: "q".repeat(40_000), cell: "q".repeat(CELL_MAX) },
  { stored: "emoji 😀👩‍👩‍👧 🇫🇷 end" },
  { stored: "עברית ومعها العربية mixed" },
  { stored: "\u202Eoverride\u202C" },
];

/** What LibreOffice reads: its cells keep line breaks as paragraphs, so CR LF (and LF CR) comes back as LF. */
function inLibreOffice(cell: string): string {
  return cell.replace(/\r\n|\n\r/g, "\n");
}

/** openpyxl's values of every sheet, as text (an empty cell is ""). */
const OPENPYXL = String.raw`
import io, json, sys, openpyxl
book = openpyxl.load_workbook(io.BytesIO(sys.stdin.buffer.read()))
print(json.dumps({s.title: [["" if v is None else v for v in r] for r in s.iter_rows(values_only=True)] for s in book.worksheets}))
`;

/** The CSV files LibreOffice exported (every text cell quoted, UTF-8), as rows of text. */
const READ_CSV = String.raw`
import csv, io, json, sys
csv.field_size_limit(1 << 24)
print(json.dumps([row for row in csv.reader(io.StringIO(sys.stdin.buffer.read().decode("utf-8"), newline=""))]))
`;

function findSoffice(): string | undefined {
  for (const candidate of ["/usr/bin/soffice", "soffice"]) {
    if (spawnSync(candidate, ["--version"], { stdio: "ignore", timeout: 60_000 }).status === 0) return candidate;
  }
  return undefined;
}
const soffice = findSoffice();
const noSoffice = soffice ? false : "LibreOffice (soffice) is not installed: apt-get install libreoffice-calc-nogui (.ci/run does)";
if (noSoffice) process.stdout.write(`[xlsx-fidelity] the LibreOffice reading is skipped: ${noSoffice}\n`);

/** LibreOffice's reading: the workbook converted headless to CSV, one file per sheet. */
async function readWithLibreOffice(xlsx: Buffer): Promise<string[][]> {
  const dir = await mkdtemp(join(tmpdir(), "bloc-lo-"));
  try {
    await writeFile(join(dir, "report.xlsx"), xlsx);
    // Field separator, quote, UTF-8 (76), first line, -, -, quote all text cells, …, -1: every sheet.
    const filter = 'csv:Text - txt - csv (StarCalc):44,34,76,1,,0,true,true,false,false,false,-1';
    const run = spawnSync(soffice!, [`-env:UserInstallation=file://${join(dir, "profile")}`, "--headless", "--convert-to", filter,
      "--outdir", join(dir, "out"), join(dir, "report.xlsx")], { timeout: 240_000 });
    const made = await readdir(join(dir, "out")).catch(() => []);
    assert.equal(made.length, 1, `soffice made ${made.join(", ")}: ${run.stderr?.toString()}`);
    return JSON.parse(runPython(READ_CSV, await readFile(join(dir, "out", made[0]!)))) as string[][];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe(".xlsx report fidelity (openpyxl and LibreOffice)", () => {
  let xlsx: Buffer;
  const header = ["Created At", "Value", "_x0042_ field"];

  before(async () => {
    const blocId = await addBloc(server, "Fidelity", ["Value", "_x0042_ field"]);
    for (const [i, { stored }] of VALUES.entries()) {
      const reply = await server.call("POST", "/api/add-data", { json: { scanStationID: blocId, dataToAdd: { field_1: stored, field_2: String(i) } } });
      assert.equal(reply.status, 200, reply.text);
    }
    const reply = await server.call("GET", "/api/get-data-report", {
      json: { stationID: blocId, fieldsToReport: { created_at: true, field_1: true, field_2: true }, responseType: "blob" },
    });
    assert.equal(reply.status, 200, reply.text.slice(0, 300));
    xlsx = reply.body;
    // The JSON report keeps every value as stored: the cell is what differs, and only where documented.
    const json = await server.call("GET", "/api/get-data-report", { json: { stationID: blocId, fieldsToReport: "all" } });
    assert.deepEqual(json.json.data.map((r: Record<string, string>) => r.field_1), VALUES.map((v) => v.stored));
  });

  test("the expectations follow the writer's documented rule", () => {
    for (const { stored, cell } of VALUES) assert.equal(cellText(stored), cell ?? stored);
  });

  test("openpyxl reads every value back exactly (but text holding x005F_ among look-alikes)", () => {
    const sheets = JSON.parse(runPython(OPENPYXL, xlsx)) as Record<string, string[][]>;
    assert.deepEqual(Object.keys(sheets), ["Fidelity"]);
    const rows = sheets.Fidelity!;
    assert.deepEqual(rows[0], header);
    assert.equal(rows.length, VALUES.length + 1);
    const wrong = VALUES.flatMap(({ stored, cell, openpyxl }, i) => {
      const got = rows[i + 1]!.slice(1);
      assert.match(rows[i + 1]![0]!, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
      return JSON.stringify(got) === JSON.stringify([openpyxl ?? cell ?? stored, String(i)]) ? [] : [{ i, stored: stored.slice(0, 60), got: got[0]!.slice(0, 60) }];
    });
    assert.deepEqual(wrong, []);
  });

  test("LibreOffice reads every value back exactly (CR LF and LF CR as LF)", { skip: noSoffice, timeout: 300_000 }, async () => {
    const rows = await readWithLibreOffice(xlsx);
    assert.deepEqual(rows[0], header);
    assert.equal(rows.length, VALUES.length + 1);
    const wrong = VALUES.flatMap(({ stored, cell }, i) => {
      const got = rows[i + 1]!.slice(1);
      return JSON.stringify(got) === JSON.stringify([inLibreOffice(cell ?? stored), String(i)]) ? [] : [{ i, stored: stored.slice(0, 60), got: got[0]!.slice(0, 60) }];
    });
    assert.deepEqual(wrong, []);
  });
});

describe(".xlsx beyond a sheet's row limit", () => {
  test("rows continue on a new sheet that repeats the header", async () => {
    const workbook = new XlsxWorkbook("Many", ["A", "B"], undefined, 3);
    const body = buffer(workbook.readable);
    for (let i = 1; i <= 5; i += 1) assert.ok(await workbook.row([`a${i}`, `_x0041_${i}`]));
    await workbook.end();
    const sheets = JSON.parse(runPython(OPENPYXL, await body)) as Record<string, string[][]>;
    assert.deepEqual(sheets, {
      "Many": [["A", "B"], ["a1", "_x0041_1"], ["a2", "_x0041_2"]],
      "Many (2)": [["A", "B"], ["a3", "_x0041_3"], ["a4", "_x0041_4"]],
      "Many (3)": [["A", "B"], ["a5", "_x0041_5"]],
    });
  });
});

describe(".xlsx writer: memory and a reader that leaves", () => {
  /** A batch of 1,000 rows of 1,000 random characters: about 1 MB that deflate cannot shrink much. */
  const batch = (): string[][] => Array.from({ length: 1000 }, () => [randomBytes(750).toString("base64"), "_x0041_"]);
  /** The report writer's way: add without awaiting, `row` when a sheet must be opened first. */
  const put = async (workbook: XlsxWorkbook, rows: string[][]): Promise<void> => {
    for (const row of rows) if (!workbook.add(row)) assert.ok(await workbook.row(row));
  };
  const stalls = async (flushed: Promise<boolean>): Promise<boolean> =>
    (await Promise.race([flushed.then(() => "flushed"), delay(1000).then(() => "stalled")])) === "stalled";

  test("a reader that does not read stops the writer within a few megabytes; reading on completes the workbook", async () => {
    const workbook = new XlsxWorkbook("Slow", ["A", "B"]);
    let written = 0;
    let pending: Promise<boolean> | undefined;
    while (written < 64) {
      await put(workbook, batch());
      written += 1;
      const flushed = workbook.flush();
      if (await stalls(flushed)) { pending = flushed; break; }
      assert.equal(await flushed, true);
    }
    assert.ok(pending, "64 MB were taken by a reader that reads nothing");
    assert.ok(written <= 8, `${written} MB were taken before the writer waited`);
    assert.ok(workbook.readable.readableLength <= 1024 * 1024, `${workbook.readable.readableLength} bytes wait in the answer`);
    const body = buffer(workbook.readable);
    assert.equal(await pending, true);
    await workbook.end();
    const sheets = JSON.parse(runPython(OPENPYXL, await body)) as Record<string, string[][]>;
    assert.equal(sheets.Slow!.length, written * 1000 + 1);
  });

  test("a reader that leaves ends the writing and removes the temporary shared strings", async () => {
    const before = (await readdir(tmpdir())).filter((n) => n.startsWith("bloc-xlsx-"));
    const workbook = new XlsxWorkbook("Gone", ["A", "B"]);
    await put(workbook, batch().slice(0, 10));
    assert.equal(await workbook.flush(), true, "ten rows fit in the buffers");
    await put(workbook, batch());
    const flushed = workbook.flush();
    assert.ok(await stalls(flushed), "the writer waits for a reader that reads nothing");
    workbook.readable.destroy();
    assert.equal(await flushed, false, "the waiting writer learns that the reader left");
    await delay(200);
    const after = (await readdir(tmpdir())).filter((n) => n.startsWith("bloc-xlsx-"));
    assert.deepEqual(after.filter((n) => !before.includes(n)), []);
  });
});

describe("Content-Disposition of an .xlsx report", () => {
  /** The two names of the header: the quoted ASCII fallback and the decoded RFC 5987 one. */
  function names(disposition: string): { ascii: string; exact: string } {
    const match = /^attachment; filename="([^"]*)"; filename\*=UTF-8''([A-Za-z0-9!#$&+.^_`|~%-]*)$/.exec(disposition);
    assert.ok(match, disposition);
    return { ascii: match[1]!, exact: decodeURIComponent(match[2]!) };
  }

  test("filename* is cleaned the same way as filename: no path, control or direction characters", async () => {
    const blocId = await addBloc(server, "../ré:port/\\a*b?\"c<d>|e\u0001\u007F\u0085\u202Efdp.exe (x)'", ["A"]);
    const reply = await server.call("GET", "/api/get-data-report", { json: { stationID: blocId, fieldsToReport: "all", responseType: "blob" } });
    assert.equal(reply.status, 200, reply.text.slice(0, 300));
    const { ascii, exact } = names(String(reply.headers["content-disposition"]));
    const stamp = /-\d{8}-\d{6}\.xlsx$/.exec(exact)?.[0];
    assert.ok(stamp, exact);
    assert.equal(exact, `.._ré_port__a_b__c_d__e____fdp.exe (x)'${stamp}`);
    assert.equal(ascii, `.._r__port__a_b__c_d__e____fdp.exe _x__${stamp}`);
    // The same cleaning: the fallback is the exact name with every non-ASCII character (and the few ASCII ones quoted strings avoid) as "_".
    assert.equal(ascii, exact.replace(/[^A-Za-z0-9 ._-]/g, "_"));
  });

  test("a plain name is the same in both forms", async () => {
    const blocId = await addBloc(server, "Stock Take 2", ["A"]);
    const reply = await server.call("GET", "/api/get-data-report", { json: { stationID: blocId, fieldsToReport: "all", responseType: "blob" } });
    const { ascii, exact } = names(String(reply.headers["content-disposition"]));
    assert.equal(ascii, exact);
    assert.match(exact, /^Stock Take 2-\d{8}-\d{6}\.xlsx$/);
  });
});

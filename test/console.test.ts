import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs/promises";
import type { Browser, Page, Request } from "playwright-core";
import { BlocClient } from "bloc-data-service/client";
import { insertAt, stamp } from "./support/fixtures.js";
import { runPython } from "./support/python.js";
import { startServer, type TestServer } from "./support/server.js";
import { browserMissing, eventually, explained, launchBrowser, screenshot, seriousViolations, texts } from "./support/browser.js";
import { Receiver, signedWith } from "./support/receiver.js";

/*
 * The web console end to end, in Debian's Chromium against the real server: sign in,
 * page through a bloc, read it at 1024×768 (rows above the fold, creators by name, the
 * time chart, value charts only for repeating fields), keep a view through a reload and a
 * shared link, filter by clicking a chart bar, download an .xlsx, add a record
 * (a validation error, then a valid one), update by matching values after its preview,
 * and as admin create a bloc, a user, a token, a grant and a webhook; a revoked token signs
 * its page out with a message. Each main screen is checked
 * with axe-core (no serious or critical violation) and saved to docs/screenshots/.
 *
 * The tests run in order on one page, each starting where the one before left it. The
 * bloc is seeded through the store with fixed times, so that its pages, counts and
 * screenshots are the same on every run.
 */

if (browserMissing) console.log(`# console test skipped: ${browserMissing}`);
const skip = browserMissing;

let server: TestServer;
let admin: BlocClient;
let browser: Browser;
let page: Page;
const api: { method: string; path: string; body: Record<string, unknown> }[] = [];

// 45 records an hour apart from 2026-03-02 08:00: Part cycles through 5 values, Line through 3, Shift through
// five numbers whose text order differs from their order; Quantity is never the same twice. The admin creates
// the even ones, Olive Byrne the odd ones.
const SEEDED = 45;
const FIRST = "2026-03-02 08:00:00";
const SHIFTS = ["20", "3", "15", "11", "12"];
const seed = (i: number) => ({ field_1: `P-${100 + (i % 5)}`, field_2: `Line ${1 + (i % 3)}`, field_3: String(i + 1), field_4: SHIFTS[i % 5]! });
let olive = "";

before(async () => {
  if (skip) return;
  server = await startServer();
  admin = new BlocClient({ url: server.url, token: server.adminToken });
  await admin.admin.createBloc({
    id: "scans", name: "Scans",
    fields: [{ name: "Part" }, { name: "Line", type: "select", options: ["Line 1", "Line 2", "Line 3"] }, { name: "Quantity", type: "number", required: true },
      { name: "Shift", type: "number" }],
  });
  olive = (await admin.admin.createUser("Olive Byrne", "member")).id;
  for (let i = 0; i < SEEDED; i += 1) await insertAt(server, "scans", stamp(FIRST, i * 3600), seed(i), i % 2 === 0 ? "1" : olive);
  await admin.admin.createBloc({ id: "deliveries", name: "Deliveries", fields: [{ name: "Docket" }, { name: "Photo", type: "file" }] });
  await admin.addData({ scanStationID: "deliveries", dataToAdd: { field_1: "DKT-1" } },
    { field_2: { content: Buffer.from("not really a JPEG\n"), filename: "photo 1.jpg", contentType: "image/jpeg" } });

  browser = await launchBrowser();
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, acceptDownloads: true });
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.url });
  page = await context.newPage();
  // Every API call the page makes, to show what the console loads (and that the token stays in a header).
  page.on("request", (request: Request) => {
    const url = new URL(request.url());
    if (!url.pathname.startsWith("/api/")) return;
    let body: Record<string, unknown> = {};
    try { body = request.postDataJSON() as Record<string, unknown> ?? {}; } catch { /* multipart or none */ }
    api.push({ method: request.method(), path: url.pathname + url.search, body });
  });
});

after(async () => {
  if (skip) return;
  await browser?.close();
  admin.close();
  await server.close();
});

async function accessible(name: string): Promise<void> {
  assert.deepEqual(await seriousViolations(page), [], `${name}: no serious or critical accessibility violation`);
}

/** The total line, once the view has loaded what was asked last (aria-busy is cleared then). */
const total = () => page.locator(".data-view[aria-busy=false] #view-total");
const column = (n: number) => texts(page.locator(`table.records tbody tr td:nth-child(${n})`));

test("sign-in: a wrong token is refused; by keyboard, the admin's token signs in and stays in sessionStorage only", { skip, timeout: 60_000 }, async () => {
  const response = await page.goto(`${server.url}/console/`);
  assert.equal(response?.status(), 200);
  await page.getByRole("heading", { name: "Sign in to the Bloc Data console" }).waitFor();
  await accessible("sign-in");
  await screenshot(page, "sign-in");

  // People sign in with a password; a machine's token is the other way offered.
  await page.getByRole("button", { name: "Sign in with a token" }).click();
  await page.getByLabel("Token").fill("bds_not-a-token");
  await page.getByRole("button", { name: "Sign in" }).click();
  await eventually(async () => assert.match(await page.getByRole("alert").textContent() ?? "", /Not signed in: .*\(401\)/));

  // The heading has the focus: Tab reaches the token field, Enter submits.
  await page.getByLabel("Token").fill("");
  await page.locator("h1").focus();
  await page.keyboard.press("Tab");
  assert.equal(await page.evaluate(() => (document.activeElement as HTMLInputElement).type), "password");
  assert.notEqual(await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle), "none", "the focus is visible");
  await page.keyboard.type(server.adminToken);
  await page.keyboard.press("Enter");
  await page.getByRole("heading", { name: "Your blocs" }).waitFor();

  assert.equal(await page.evaluate(() => sessionStorage.getItem("bloc-console-token")), server.adminToken);
  assert.equal(await page.evaluate(() => localStorage.length), 0);
  assert.deepEqual(await page.context().cookies(), []);
  assert.ok(!page.url().includes(server.adminToken));
  assert.ok(api.length > 0 && api.every((call) => !call.path.includes(server.adminToken)), "the token is never in a URL");
});

test("data view: the total, a bar chart per field, paging that loads one page at a time, order and dates", { skip, timeout: 60_000 }, async () => {
  await page.getByRole("link", { name: "Scans" }).first().click();
  await eventually(async () => assert.equal(await total().textContent(), "45 records"));
  assert.equal(await page.locator("table.records caption").textContent(), "Records 1–10 of 45, newest first");
  assert.equal((await column(1))[0], stamp(FIRST, 44 * 3600));
  assert.deepEqual(await texts(page.getByRole("list", { name: "Values of Line" }).getByRole("button")),
    ["Line 1 15 records", "Line 2 15 records", "Line 3 15 records"]);
  assert.deepEqual(await texts(page.getByRole("list", { name: "Values of Part" }).getByRole("button")),
    ["P-100 9 records", "P-101 9 records", "P-102 9 records", "P-103 9 records", "P-104 9 records"]);
  await accessible("data view");
  await screenshot(page, "data-view");

  api.length = 0;
  const caption = page.locator(".data-view[aria-busy=false] table.records caption");
  await page.getByRole("button", { name: "Next page" }).click();
  await eventually(async () => assert.equal(await caption.textContent(), "Records 11–20 of 45, newest first"));
  await page.getByRole("button", { name: "Next page" }).click();
  await eventually(async () => assert.equal(await caption.textContent(), "Records 21–30 of 45, newest first"));
  assert.equal((await column(1))[0], stamp(FIRST, 24 * 3600));
  assert.match(await page.locator(".pager").textContent() ?? "", /Page 3 of 5/);
  // Each page is one get-data call for that page alone (counts included): no other record is read.
  assert.deepEqual(api.map((c) => `${c.method} ${c.path} ${String(c.body.resultLimit)} ${String(c.body.currentPage)}`),
    ["POST /api/get-data 10 2", "POST /api/get-data 10 3"]);

  await page.getByLabel("Go to page").fill("5");
  await page.getByRole("button", { name: "Go", exact: true }).click();
  await eventually(async () => assert.equal(await page.locator("table.records caption").textContent(), "Records 41–45 of 45, newest first"));
  assert.equal(await page.getByRole("button", { name: "Next page" }).isDisabled(), true);

  await page.getByLabel("Order").selectOption("oldest");
  await eventually(async () => assert.equal(await page.locator("table.records caption").textContent(), "Records 1–10 of 45, oldest first"));
  assert.equal((await column(1))[0], FIRST);
  await page.getByLabel("Order").selectOption("newest");

  // 2026-03-03 holds the records of hours 16 to 39 after the first: 24 of them.
  await page.getByLabel("From date").fill("2026-03-03");
  await page.getByLabel("To date").fill("2026-03-03");
  await eventually(async () => assert.equal(await total().textContent(), "24 records in the date range"));
  assert.equal((await column(1))[0], stamp(FIRST, 39 * 3600));
  await page.getByRole("button", { name: "Clear dates" }).click();
  await eventually(async () => assert.equal(await total().textContent(), "45 records"));
});

/** The time chart's bars: when each starts and how many records it counts. */
const timeBars = () => page.locator(".timeline svg rect.time-bar").evaluateAll((bars) =>
  bars.map((bar) => [bar.getAttribute("data-start") ?? "", Number(bar.getAttribute("data-count"))] as const));

test("data view at 1024×768: 8 rows and more above the fold, creators by name, value charts only for repeating fields, numbers in their order", { skip, timeout: 60_000 }, async () => {
  await page.setViewportSize({ width: 1024, height: 768 });
  // A fresh page, to see every request the view makes as it opens.
  api.length = 0;
  await page.reload();
  await eventually(async () => assert.equal(await total().textContent(), "45 records"));
  const fold = await page.locator("table.records tbody tr").evaluateAll((rows) =>
    rows.filter((row) => { const box = row.getBoundingClientRect(); return box.top >= 0 && box.bottom <= window.innerHeight; }).length);
  assert.ok(fold >= 8, `${fold} whole rows above the fold at 1024×768`);

  // Names, not IDs: the newest record (i = 44) is the admin's, the one before Olive's; one request names the page's creators.
  await eventually(async () => assert.deepEqual((await column(2)).slice(0, 3), ["admin", "Olive Byrne", "admin"]));
  const asked = api.filter((call) => call.path.includes("/user-names"));
  assert.equal(asked.length, 1);
  assert.deepEqual(new URLSearchParams(asked[0]!.path.split("?")[1]).get("ids")!.split(",").sort(), ["1", olive].sort());
  // Each row's time is a link to its record's page.
  const first = page.locator("table.records tbody tr").first().getByRole("link");
  assert.match(await first.getAttribute("href") ?? "", /^#\/blocs\/scans\/records\/\d+$/);

  // Quantity (every value once) gets no chart; Shift's equal bars read 3, 11, 12, 15, 20, not as text.
  assert.deepEqual(await texts(page.locator(".charts h3")), ["Part", "Line", "Shift"]);
  assert.match(await page.locator("#not-charted").textContent() ?? "", /Quantity/);
  assert.deepEqual(await texts(page.getByRole("list", { name: "Values of Shift" }).getByRole("button")),
    ["3 9 records", "11 9 records", "12 9 records", "15 9 records", "20 9 records"]);

  // The whole span, per day: 16 records on March 2 (08:00–23:00), 24 on the 3rd, 5 on the 4th.
  assert.equal(await page.locator("#timeline-heading").textContent(), "Records per day, Mar 2 to Mar 4");
  assert.deepEqual(await timeBars(), [["2026-03-02 00:00:00", 16], ["2026-03-03 00:00:00", 24], ["2026-03-04 00:00:00", 5]]);
  await accessible("data view at 1024×768");
  await screenshot(page, "data-view-1024x768");
  await page.setViewportSize({ width: 1366, height: 768 });
  await accessible("data view at 1366×768");
  await screenshot(page, "data-view-1366x768");
});

test("the time chart per hour for one day honours the filters; counts equal the records", { skip, timeout: 60_000 }, async () => {
  await page.getByLabel("From date").fill("2026-03-03");
  await page.getByLabel("To date").fill("2026-03-03");
  await eventually(async () => assert.equal(await total().textContent(), "24 records in the date range"));
  assert.equal(await page.locator("#timeline-heading").textContent(), "Records per hour, Mar 3");
  const hours = await timeBars();
  assert.deepEqual(hours.map(([start]) => start.slice(11, 13)), Array.from({ length: 24 }, (_, h) => String(h).padStart(2, "0")));
  assert.ok(hours.every(([start]) => start.startsWith("2026-03-03 ")));
  // One record an hour, all day (hours 16 to 39 after the first).
  assert.deepEqual(hours.map(([, n]) => n), Array.from({ length: 24 }, () => 1));

  // Line 2 holds every third record from i = 16: hours 0, 3, … 21 of the day.
  await page.getByRole("list", { name: "Values of Line" }).getByRole("button", { name: /^Line 2 / }).click();
  await eventually(async () => assert.equal(await total().textContent(), "8 records match the filters in the date range"));
  await eventually(async () => assert.deepEqual((await timeBars()).filter(([, n]) => n > 0).map(([start, n]) => [start.slice(11, 13), n]),
    [0, 3, 6, 9, 12, 15, 18, 21].map((h) => [String(h).padStart(2, "0"), 1])));
  // Two fields' filters are counted from one streamed report. Line 2 and Shift 3: i ≡ 1 (mod 15), i = 16 and 31.
  await page.getByRole("list", { name: "Values of Shift" }).getByRole("button", { name: /^3 / }).click();
  await eventually(async () => assert.equal(await total().textContent(), "2 records match the filters in the date range"));
  await eventually(async () => assert.deepEqual((await timeBars()).filter(([, n]) => n > 0).map(([start, n]) => [start.slice(11, 13), n]),
    [["00", 1], ["15", 1]]));
  await page.getByRole("button", { name: "Remove the filter Shift is “3”" }).click();
  await eventually(async () => assert.equal(await total().textContent(), "8 records match the filters in the date range"));
});

test("the window, filters and page are in the URL: a reload and a shared link open the same view", { skip, timeout: 60_000 }, async () => {
  await page.getByRole("button", { name: "Clear dates" }).click();
  await eventually(async () => assert.equal(await total().textContent(), "15 records match the filters"));
  await page.getByRole("button", { name: "Next page" }).click();
  const caption = page.locator(".data-view[aria-busy=false] table.records caption");
  await eventually(async () => assert.equal(await caption.textContent(), "Records 11–15 of 15, newest first"));
  const link = page.url();
  const hash = new URL(link).hash;
  assert.equal(new URLSearchParams(hash.slice(hash.indexOf("?") + 1)).get("f.field_2"), "Line 2");
  assert.equal(new URLSearchParams(hash.slice(hash.indexOf("?") + 1)).get("page"), "2");

  await page.reload();
  await eventually(async () => assert.equal(await caption.textContent(), "Records 11–15 of 15, newest first"));
  assert.deepEqual(await texts(page.getByRole("list", { name: "Filters in force" }).locator(".chip span")), ["Line is “Line 2”"]);
  assert.deepEqual(new Set(await column(4)), new Set(["Line 2"]));

  // A colleague opens the link in a browser of their own, signed in with their own token.
  const colleague = await browser.newContext({ viewport: { width: 1024, height: 768 } });
  try {
    const token = (await admin.admin.createToken("1", { name: "colleague" })).token;
    await colleague.addInitScript((t) => { sessionStorage.setItem("bloc-console-token", t); }, token);
    const other = await colleague.newPage();
    await other.goto(link);
    await eventually(async () => assert.equal(await other.locator(".data-view[aria-busy=false] table.records caption").textContent(),
      "Records 11–15 of 15, newest first"));
    assert.equal(await other.locator("#view-total").textContent(), "15 records match the filters");
  } finally {
    await colleague.close();
  }
  // Back to the plain view for the tests that follow: the bloc's link carries no query.
  await page.getByRole("navigation", { name: "Blocs" }).getByRole("link", { name: "Scans" }).click();
  await eventually(async () => assert.equal(await total().textContent(), "45 records"));
  assert.equal(new URL(page.url()).hash, "#/bloc/scans");
  await page.setViewportSize({ width: 1280, height: 800 });
});

test("clicking a chart bar filters by its value; a second field's bar narrows further", { skip, timeout: 60_000 }, async () => {
  const line2 = page.getByRole("list", { name: "Values of Line" }).getByRole("button", { name: "Line 2 15 records" });
  await line2.click();
  await eventually(async () => assert.equal(await total().textContent(), "15 records match the filters"));
  assert.equal(await line2.getAttribute("aria-pressed"), "true");
  assert.deepEqual(await texts(page.getByRole("list", { name: "Filters in force" }).locator(".chip span")), ["Line is “Line 2”"]);
  assert.deepEqual(new Set(await column(4)), new Set(["Line 2"]));
  assert.equal((await column(4)).length, 10);

  // By keyboard: focus a bar and press Space. Line 2 and P-101 together: the hours i ≡ 1 (mod 15).
  await page.getByRole("list", { name: "Values of Part" }).getByRole("button", { name: "P-101 9 records" }).focus();
  await page.keyboard.press("Space");
  await eventually(async () => assert.equal(await total().textContent(), "3 records match the filters"));
  assert.deepEqual(await column(1), [31, 16, 1].map((i) => stamp(FIRST, i * 3600)));
  // The total of two fields' filters was counted from a report: turning the order (or the page) reads one page, no count again.
  api.length = 0;
  await page.getByLabel("Order").selectOption("oldest");
  await eventually(async () => assert.deepEqual(await column(1), [1, 16, 31].map((i) => stamp(FIRST, i * 3600))));
  assert.equal(await total().textContent(), "3 records match the filters");
  assert.deepEqual(api.map((c) => `${c.method} ${c.path} ${String(c.body.fieldsToReport)}`), ["POST /api/get-data-report all"]);
  await page.getByLabel("Order").selectOption("newest");
  await eventually(async () => assert.deepEqual(await column(1), [31, 16, 1].map((i) => stamp(FIRST, i * 3600))));
  await page.getByRole("button", { name: "Remove the filter Part is “P-101”" }).click();
  await eventually(async () => assert.equal(await total().textContent(), "15 records match the filters"));
});

test("download: the filtered view as .xlsx (every page of it), read back with openpyxl", { skip, timeout: 60_000 }, async () => {
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Download .xlsx" }).click()]);
  assert.match(download.suggestedFilename(), /^Scans-\d{8}-\d{6}\.xlsx$/);
  const bytes = await fs.readFile((await download.path()));
  const script = "import openpyxl, io, json, sys\nwb = openpyxl.load_workbook(io.BytesIO(sys.stdin.buffer.read()))\n" +
    "print(json.dumps([[c if c is not None else '' for c in r] for r in wb.worksheets[0].iter_rows(values_only=True)]))";
  const rows = JSON.parse(runPython(script, bytes)) as string[][];
  assert.deepEqual(rows[0]!.slice(0, 5), ["Created At", "User ID", "Part", "Line", "Quantity"]);
  assert.equal(rows.length, 16, "the header and the 15 records of Line 2, not only the page shown");
  assert.ok(rows.slice(1).every((row) => row[3] === "Line 2"));
  assert.equal(rows[1]![0], stamp(FIRST, 43 * 3600), "newest first, as the view");
  await eventually(async () => assert.match(await page.locator(".exports [role=status]").textContent() ?? "", /^Downloaded Scans-/));
  await page.getByRole("button", { name: "Clear all filters" }).click();
  await eventually(async () => assert.equal(await total().textContent(), "45 records"));
});

test("a file reference is a download link that fetches the file with the token", { skip, timeout: 60_000 }, async () => {
  await page.getByRole("navigation", { name: "Blocs" }).getByRole("link", { name: "Deliveries" }).click();
  await eventually(async () => assert.equal(await total().textContent(), "1 record"));
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: /^Download file/ }).click()]);
  assert.equal(download.suggestedFilename(), "photo 1.jpg");
  assert.equal(await fs.readFile((await download.path()), "utf8"), "not really a JPEG\n");
});

test("add a record: the service's validation message beside its field, then a valid record", { skip, timeout: 60_000 }, async () => {
  await page.getByRole("navigation", { name: "Blocs" }).getByRole("link", { name: "Scans" }).click();
  await page.getByRole("link", { name: "Add a record" }).click();
  await page.getByRole("heading", { name: "Add a record to Scans" }).waitFor();
  await page.getByLabel("Part").fill("P-500");
  await page.getByLabel("Line").selectOption("Line 3");
  await page.getByLabel("Quantity (required)").fill("many");
  await page.getByRole("button", { name: "Add record" }).click();
  const quantity = page.getByLabel("Quantity (required)");
  await eventually(async () => assert.equal(await quantity.getAttribute("aria-invalid"), "true"));
  const message = await page.locator(`#${await quantity.getAttribute("aria-describedby").then((ids) => ids!.split(" ").pop())}`).textContent();
  assert.match(message ?? "", /^field_3 \(Quantity\) breaks rule "number": "many" is not a number$/);
  await eventually(async () => assert.equal(await page.evaluate(() => (document.activeElement as HTMLInputElement).name), "field_3", "the invalid field has the focus"));
  assert.match(await page.getByRole("alert").textContent() ?? "", /The record was not added/);
  await accessible("add-record form with an error");
  await screenshot(page, "add-record-error");

  await quantity.fill("12");
  await page.getByRole("button", { name: "Add record" }).click();
  await eventually(async () => assert.match(await page.locator("p.status").textContent() ?? "", /^Record \d+ added\.$/));
  const added = await admin.getDataReport({ stationID: "scans", fieldsToReport: ["field_1", "field_2", "field_3"], dataFilteringData: { filterDataToQuery: { field_1: ["P-500"] } } });
  assert.deepEqual(added, [{ field_1: "P-500", field_2: "Line 3", field_3: "12" }]);
  assert.equal(await page.getByLabel("Part").inputValue(), "", "the form is emptied for the next record");
});

test("update by matching values: the preview counts the matches, and only confirming changes them", { skip, timeout: 60_000 }, async () => {
  await page.getByRole("link", { name: "Update by matching values" }).click();
  const search = page.getByRole("group", { name: "Records whose values equal all of these" });
  const set = page.getByRole("group", { name: "Get these new values" });
  await search.getByLabel("Field").selectOption({ label: "Part" });
  await search.getByLabel("equals").fill("P-103");
  await set.getByLabel("Field").selectOption({ label: "Quantity" });
  await set.getByLabel("becomes").fill("0");
  await page.getByRole("button", { name: "Preview the update" }).click();
  await eventually(async () => assert.equal(await page.locator("#preview-count").textContent(), "9 records match and will be updated: Quantity becomes “0”."));
  assert.equal(await page.locator(".preview table tbody tr").count(), 5);
  assert.deepEqual((await admin.getData({ blocId: "scans" })).fieldCounts.field_3?.["0"], undefined, "nothing changed yet");
  await accessible("update preview");
  await screenshot(page, "update-preview");

  await page.getByRole("button", { name: "Update 9 records" }).click();
  await eventually(async () => assert.match(await page.locator("#update-outcome").textContent() ?? "", /^Updated 9 records \(IDs [\d, ]+\)\.$/));
  assert.equal((await admin.getData({ blocId: "scans" })).fieldCounts.field_3?.["0"], 9);

  // Two conditions: counted from the report rather than from one field's counts.
  await search.getByRole("button", { name: "Add a condition" }).click();
  await search.getByLabel("Field 2").selectOption({ label: "Line" });
  await search.getByLabel("equals").nth(1).fill("Line 2");
  await page.getByRole("button", { name: "Preview the update" }).click();
  await eventually(async () => assert.match(await page.locator("#preview-count").textContent() ?? "", /^3 records match/));
  await page.getByRole("button", { name: "Cancel" }).click();
});

test("admin: create a bloc with fields", { skip, timeout: 60_000 }, async () => {
  await page.getByRole("navigation", { name: "Administration" }).getByRole("link", { name: "Blocs and fields" }).click();
  await page.getByRole("heading", { name: "Create a bloc" }).waitFor();
  await page.getByLabel("Bloc name").fill("Inspections");
  await page.getByLabel("Bloc ID (optional)").fill("inspections");
  await page.getByLabel("Field 1 name").fill("Inspector");
  await page.getByRole("button", { name: "Add another field" }).click();
  await page.getByLabel("Field 2 name").fill("Result");
  await page.getByLabel("Field 2 type").selectOption("select");
  await page.getByLabel("Field 2 choices").fill("pass, fail");
  await page.getByLabel("Field 2 required").check();
  await page.getByRole("button", { name: "Create bloc" }).click();
  await eventually(async () => assert.equal(await page.getByRole("status").filter({ hasText: "created" }).first().textContent(), "Bloc Inspections created (ID inspections)."));
  const bloc = await admin.admin.getBloc("inspections");
  assert.deepEqual(bloc.fields.map((f) => [f.name, f.type, f.options, f.required]), [["Inspector", "text", null, false], ["Result", "select", ["pass", "fail"], true]]);
  await eventually(async () => assert.ok((await texts(page.getByRole("region", { name: "Blocs table" }).locator("tbody td:first-child"))).includes("Inspections")));
  await accessible("admin blocs");
  await screenshot(page, "admin-blocs");
});

let annToken = "";

test("admin: create a user and a token, its secret shown once with a copy button; revoke another", { skip, timeout: 60_000 }, async () => {
  await page.getByRole("link", { name: "Users and tokens" }).click();
  await page.getByLabel("User name").fill("Ann");
  await page.getByRole("button", { name: "Create user" }).click();
  await explained(page, () => page.getByRole("status").getByRole("link", { name: "Ann" }).click());
  await page.getByRole("heading", { name: "User Ann" }).waitFor();

  await page.getByLabel("Token name").fill("tablet");
  await page.getByRole("button", { name: "Issue token" }).click();
  const secret = page.getByRole("textbox", { name: /New token — shown this once/ });
  await secret.waitFor();
  annToken = await secret.inputValue();
  assert.match(annToken, /^bds_/);
  await page.getByRole("button", { name: "Copy token" }).click();
  await eventually(async () => assert.equal(await page.evaluate(() => navigator.clipboard.readText()), annToken));
  assert.deepEqual(await texts(page.getByRole("region", { name: "Tokens table" }).locator("tbody td:first-child")), ["tablet"]);
  await accessible("user and tokens");
  await screenshot(page, "user-tokens", [page.locator(".secret-value"), page.locator(".volatile"), page.locator(".token-id")]);
  // Saving the profile reads the user again, with the page kept: the secret not yet put away stays.
  await page.getByLabel("Profile values, one per line").fill("Dublin\nCork");
  await page.getByRole("button", { name: "Save profile" }).click();
  await eventually(async () => assert.equal(await page.getByRole("status").filter({ hasText: "Profile saved" }).textContent(), "Profile saved: Dublin, Cork."));
  assert.equal(await page.locator(".secret-value").inputValue(), annToken);
  await page.getByRole("button", { name: "I have copied it" }).click();
  assert.equal(await page.locator(".secret-value").count(), 0);
  assert.equal(await page.evaluate((token) => document.body.innerHTML.includes(token), annToken), false, "the secret is gone from the page");

  await page.getByLabel("Token name").fill("spare");
  // A double click issues one token: the second click comes while the first is on its way.
  await page.getByRole("button", { name: "Issue token" }).dblclick();
  await page.getByRole("button", { name: "I have copied it" }).click();
  await page.getByRole("button", { name: "Revoke the token spare" }).click();
  await page.getByRole("button", { name: "Confirm: revoke spare" }).click();
  await eventually(async () => assert.equal(await page.getByRole("status").filter({ hasText: "revoked" }).textContent(), "Token spare revoked."));
  const users = await admin.admin.listUsers();
  const tokens = await admin.admin.listTokens(users.find((u) => u.name === "Ann")!.id);
  // Tokens issued within one second are listed in ID order, which is random: compare by name.
  assert.deepEqual(tokens.map((t) => [t.name, t.revokedAt === null]).sort(), [["spare", false], ["tablet", true]]);
});

test("admin: grant a member access to a bloc; the grant is what their token may now do", { skip, timeout: 60_000 }, async () => {
  await page.getByRole("link", { name: "Access" }).click();
  const grant = page.getByRole("region", { name: "Grant access to a bloc" });
  await grant.getByLabel("Bloc").selectOption({ label: "Inspections" });
  const annId = (await admin.admin.listUsers()).find((u) => u.name === "Ann")!.id;
  await grant.getByLabel("Member").selectOption(annId);
  await grant.getByLabel("add", { exact: true }).check();
  await grant.getByRole("button", { name: "Save grant" }).click();
  await eventually(async () => assert.match((await texts(page.getByRole("log").locator("li"))).join("|"), /^Ann \(ID \d+\) on Inspections: read, add\.$/));
  const ann = new BlocClient({ url: server.url, token: annToken });
  try {
    const me = await ann.getData({ blocId: "inspections" });
    assert.equal(me.count, 0);
    await ann.addData({ scanStationID: "inspections", dataToAdd: { field_1: "Ann", field_2: "pass" } });
    await assert.rejects(ann.updateRecordsByMatchingValues({ blocId: "inspections", searchItems: { field_1: "Ann" }, fieldsToUpdate: { field_2: "fail" } }), /401/);
  } finally {
    ann.close();
  }
  await accessible("access");
  await screenshot(page, "access");
});

test("a tablet-sized screen (768×1024): the data view fits the width and stays accessible", { skip, timeout: 60_000 }, async () => {
  await page.setViewportSize({ width: 768, height: 1024 });
  await page.getByRole("navigation", { name: "Blocs" }).getByRole("link", { name: "Scans" }).click();
  await eventually(async () => assert.equal(await total().textContent(), "46 records"));
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), "no sideways scrolling of the page");
  await accessible("data view on a tablet");
});

test("admin: a webhook made in the console gets an add signed with the secret shown once; a delivery can be resent", { skip, timeout: 60_000 }, async () => {
  const receiver = await Receiver.start();
  try {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.getByRole("navigation", { name: "Administration" }).getByRole("link", { name: "Webhooks" }).click();
    await page.getByRole("heading", { name: "Create a webhook" }).waitFor();
    await page.getByLabel("URL", { exact: true }).fill(receiver.url);
    await page.getByRole("group", { name: "Events" }).getByLabel("record.updated").check();
    await page.getByRole("group", { name: /^Only these blocs/ }).getByLabel("Scans").check();
    await page.getByRole("button", { name: "Create webhook" }).click();
    const shown = page.getByRole("textbox", { name: /^Signing secret of the webhook to .* shown this once$/ });
    await shown.waitFor();
    const secret = await shown.inputValue();
    assert.ok(secret.length >= 32, "a generated secret");
    const [hook, ...others] = await admin.admin.listWebhooks();
    assert.deepEqual(others, []);
    assert.deepEqual([hook!.url, hook!.blocs, [...hook!.events].sort()], [receiver.url, ["scans"], ["record.added", "record.updated"]]);
    await page.getByRole("button", { name: "I have copied it" }).click();
    assert.equal(await page.evaluate((s) => document.body.innerHTML.includes(s), secret), false, "the secret is gone from the page");

    await admin.addData({ scanStationID: "scans", dataToAdd: { field_1: "P-999", field_2: "Line 1", field_3: "1" } });
    await receiver.until(() => receiver.acknowledged.length === 1, "the add delivered");
    const sent = receiver.acknowledged[0]!;
    assert.deepEqual([sent.body.type, sent.body.blocId], ["record.added", "scans"]);
    assert.ok(signedWith(secret, sent), "signed with the secret the console showed");
    // The receiver answers before the attempt is written down: wait for its row, then open the list.
    await eventually(async () => assert.equal((await admin.admin.webhookDeliveries(hook!.id)).length, 1));

    await page.getByRole("button", { name: `Deliveries of the webhook to ${receiver.url}` }).click();
    const outcomes = () => texts(page.getByRole("region", { name: "Deliveries table" }).locator("tbody td:nth-child(5)"));
    await eventually(async () => assert.deepEqual(await outcomes(), ["delivered"]));
    await page.getByRole("button", { name: /^Resend delivery \d+$/ }).click();
    await eventually(async () => assert.equal(await page.getByRole("status").filter({ hasText: "Resent" }).textContent(), "Resent: resent (200)."));
    assert.deepEqual(receiver.acknowledged.map((r) => r.body.id), [sent.body.id, sent.body.id], "the same event again, for the receiver to deduplicate");
    await eventually(async () => assert.deepEqual((await outcomes()).sort(), ["delivered", "resent"]));
    await accessible("webhooks");
    // The receiver's port and the times differ between runs, and so would the columns' widths: the same words each run.
    await page.evaluate(() => document.querySelectorAll(".volatile").forEach((cell) => { cell.textContent = "varies"; }));
    await screenshot(page, "webhooks", [page.locator(".volatile")]);

    await page.reload();
    await page.getByRole("button", { name: `Delete the webhook to ${receiver.url}` }).click();
    await page.getByRole("button", { name: "Confirm: delete" }).click();
    await eventually(async () => assert.equal(await page.getByRole("status").filter({ hasText: "deleted" }).textContent(), `Webhook to ${receiver.url} deleted.`));
    assert.deepEqual(await admin.admin.listWebhooks(), []);
    await page.getByText("No webhook yet.").waitFor();
  } finally {
    await receiver.close();
  }
});

test("admin: create a role, refused when its name is taken", { skip, timeout: 60_000 }, async () => {
  await page.getByRole("navigation", { name: "Administration" }).getByRole("link", { name: "Roles" }).click();
  await page.getByRole("heading", { name: "Create a role" }).waitFor();
  for (const attempt of ["first", "again"]) {
    await page.getByLabel("Role name").fill("Line leads");
    await page.getByRole("button", { name: "Create role" }).click();
    if (attempt === "first") {
      await eventually(async () => assert.match(await page.getByRole("status").filter({ hasText: "created" }).textContent() ?? "", /^Role Line leads created \(ID \d+\)\.$/));
      assert.equal(await page.getByLabel("Role name").inputValue(), "", "emptied once accepted");
    }
  }
  await eventually(async () => assert.match(await page.getByRole("alert").textContent() ?? "", /Line leads/));
  assert.equal(await page.getByLabel("Role name").inputValue(), "Line leads", "kept when refused");
  assert.deepEqual((await admin.admin.listRoles()).map((r) => r.name), ["Line leads"]);
  await eventually(async () => assert.deepEqual(await texts(page.locator("table tbody td:first-child")), ["Line leads"]));
});

test("a member sees only their own records' creator; once their token is revoked, the next call signs them out with a message", { skip, timeout: 60_000 }, async () => {
  await admin.admin.setAccess("scans", olive, { read: true });
  await admin.admin.setRestriction("scans", olive, "own");
  const issued = await admin.admin.createToken(olive, { name: "tablet" });
  const context = await browser.newContext({ viewport: { width: 1024, height: 768 } });
  try {
    await context.addInitScript((t) => { if (!sessionStorage.getItem("signed-in-once")) { sessionStorage.setItem("signed-in-once", "1"); sessionStorage.setItem("bloc-console-token", t); } }, issued.token);
    const tablet = await context.newPage();
    await tablet.goto(`${server.url}/console/#/bloc/scans`);
    // Olive made the 22 odd records and sees only those: every creator shown is her.
    await eventually(async () => assert.equal(await tablet.locator(".data-view[aria-busy=false] #view-total").textContent(), "22 records"));
    await eventually(async () => assert.deepEqual(new Set(await texts(tablet.locator("table.records tbody td:nth-child(2)"))), new Set(["Olive Byrne"])));

    await admin.admin.revokeToken(issued.id);
    await tablet.getByRole("button", { name: "Next page" }).click();
    await tablet.getByText("Your session ended — sign in again.").waitFor();
    assert.equal(await tablet.locator("table.records").count(), 0, "no data left on screen");
    assert.equal(await tablet.evaluate(() => sessionStorage.getItem("bloc-console-token")), null);
    assert.deepEqual(await seriousViolations(tablet), [], "the signed-out page: no serious or critical accessibility violation");
  } finally {
    await context.close();
  }
});

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import type { Browser } from "playwright-core";
import { BlocClient } from "bloc-data-service/client";
import { insertAt, stamp } from "./support/fixtures.js";
import { startServer, type TestServer } from "./support/server.js";
import { browserMissing, launchBrowser, screenshot, seriousViolations } from "./support/browser.js";

/*
 * Every page of the console, as an admin and as a member, at the two screen sizes the shop
 * floor uses (1024×768 tablets, 1366×768 laptops): each renders its heading, holds no
 * serious or critical axe-core violation, and is saved to docs/screenshots/page-*.png.
 * The other console tests drive what each page does; this one makes sure none is left
 * unchecked, the home page and the users list included.
 */

if (browserMissing) console.log(`# console pages test skipped: ${browserMissing}`);
const skip = browserMissing;

let server: TestServer;
let browser: Browser;
let memberToken = "";
let userId = "";
let recordId = 0;

const SIZES = [{ width: 1024, height: 768 }, { width: 1366, height: 768 }] as const;

before(async () => {
  if (skip) return;
  server = await startServer();
  const admin = new BlocClient({ url: server.url, token: server.adminToken });
  await admin.admin.createBloc({
    id: "parts", name: "Parts",
    fields: [{ name: "Part", required: true }, { name: "Line", type: "select", options: ["Line 1", "Line 2"] }, { name: "Made on", type: "date" }],
  });
  const member = await admin.admin.createUser("Mira Kelly", "member");
  userId = member.id;
  await admin.admin.setAccess("parts", member.id, { read: true, add: true, update: true, delete: true });
  memberToken = (await admin.admin.createToken(member.id, { name: "console" })).token;
  for (let i = 0; i < 12; i += 1) {
    await insertAt(server, "parts", stamp("2026-04-01 06:00:00", i * 1800), { field_1: `P-${100 + (i % 4)}`, field_2: `Line ${1 + (i % 2)}` },
      i % 2 === 0 ? "1" : member.id);
  }
  recordId = (await admin.getData({ blocId: "parts", resultLimit: 1 })).records[0]!.service_entry_row_id;
  admin.close();
  browser = await launchBrowser();
});

after(async () => {
  if (skip) return;
  await browser?.close();
  await server.close();
});

/** Each page: its address, the heading it must show, and who looks at it. */
const pages = (): { name: string; hash: string; heading: RegExp; as: "admin" | "member" }[] => [
  { name: "home", hash: "#/", heading: /Your blocs/, as: "member" },
  { name: "records", hash: "#/bloc/parts", heading: /^Parts$/, as: "member" },
  { name: "add", hash: "#/bloc/parts/add", heading: /Add a record to Parts/, as: "member" },
  { name: "update", hash: "#/bloc/parts/update", heading: /Update/, as: "member" },
  { name: "record", hash: `#/blocs/parts/records/${recordId}`, heading: new RegExp(`Record ${recordId} of Parts`), as: "admin" },
  { name: "admin-blocs", hash: "#/admin/blocs", heading: /Blocs/, as: "admin" },
  { name: "admin-bloc", hash: "#/admin/blocs/parts", heading: /Parts/, as: "admin" },
  { name: "admin-users", hash: "#/admin/users", heading: /Users/, as: "admin" },
  { name: "admin-user", hash: `#/admin/users/${userId}`, heading: /Mira Kelly/, as: "admin" },
  { name: "admin-roles", hash: "#/admin/roles", heading: /Roles/, as: "admin" },
  { name: "admin-access", hash: "#/admin/access", heading: /Access/, as: "admin" },
  { name: "admin-webhooks", hash: "#/admin/webhooks", heading: /Webhooks/, as: "admin" },
];

for (const size of SIZES) {
  test(`every page at ${size.width}×${size.height}: its heading, no serious axe violation, a screenshot`, { skip, timeout: 120_000 }, async () => {
    const problems: string[] = [];
    for (const target of pages()) {
      const context = await browser.newContext({ viewport: size });
      const token = target.as === "admin" ? server.adminToken : memberToken;
      await context.addInitScript((t) => { sessionStorage.setItem("bloc-console-token", t); }, token);
      const page = await context.newPage();
      try {
        await page.goto(`${server.url}/console/${target.hash}`);
        await page.getByRole("heading", { name: target.heading }).first().waitFor({ timeout: 10_000 });
        // Every part of the page has loaded (the data view keeps a live stream open, so the network never idles).
        await page.waitForFunction(() => document.querySelector(".loading") === null, undefined, { timeout: 10_000 });
        const found = await seriousViolations(page);
        if (found.length > 0) problems.push(`${target.name}: ${found.join("; ")}`);
        const wide = await page.evaluate(() => document.documentElement.scrollWidth);
        if (wide > size.width) problems.push(`${target.name}: ${wide} pixels wide, wider than the screen`);
        await screenshot(page, `page-${target.name}-${size.width}`, [page.locator(".volatile"), page.locator(".history-when")]);
      } catch (error) {
        problems.push(`${target.name}: ${(error as Error).message.split("\n")[0]}`);
        await page.screenshot({ path: `/tmp/console-page-${target.name}-${size.width}.png` }).catch(() => {});
      } finally {
        await context.close();
      }
    }
    assert.deepEqual(problems, []);
  });
}

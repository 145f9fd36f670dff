import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import fsp from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { chromium, type BrowserContext } from "playwright-core";
import { startServer, type TestServer } from "./support/server.js";
import { call } from "./support/http.js";
import { DOCS_CSP } from "../src/http/docs.js";

/**
 * The interactive reference at /docs renders in a real browser (Debian's chromium,
 * driven by playwright-core; .ci/run installs it) from the service alone: it lists the
 * four spec endpoints, and the page asks nothing of any other host (it works offline).
 */

const CHROMIUM = "/usr/bin/chromium";
const ARGS = [
  "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync",
];
const missing = fs.existsSync(CHROMIUM) ? false : `${CHROMIUM} is not installed (apt-get install chromium; .ci/run does)`;
if (missing) console.log(`# docs-page test skipped: ${missing}`);

let server: TestServer;
let profile: string;
let context: BrowserContext;

before(async () => {
  server = await startServer();
  if (missing) return;
  profile = await fsp.mkdtemp(path.join(os.tmpdir(), "bloc-chromium-"));
  // A fresh profile (user-data-dir) each run: nothing cached from an earlier one.
  context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, args: ARGS, headless: true });
});

after(async () => {
  await server?.close();
  if (missing) return;
  await context?.close();
  await fsp.rm(profile, { recursive: true, force: true });
});

test("/docs, its document and its files are sent with the page headers the console has: CSP, nosniff, no framing", async () => {
  for (const where of ["/docs", "/docs/", "/docs/json", "/docs/static/swagger-ui-bundle.js", "/docs/static/index.css"]) {
    const reply = await call(server.url, "GET", where);
    assert.ok(reply.status === 200 || reply.status === 302, `${where}: ${reply.status}`);
    assert.equal(reply.headers["content-security-policy"], DOCS_CSP, where);
    assert.equal(reply.headers["x-content-type-options"], "nosniff", where);
    assert.equal(reply.headers["x-frame-options"], "DENY", where);
    assert.equal(reply.headers["referrer-policy"], "no-referrer", where);
  }
  assert.match(DOCS_CSP, /default-src 'none'/);
  assert.match(DOCS_CSP, /script-src 'self'(;|$)/);
  assert.match(DOCS_CSP, /frame-ancestors 'none'/);
});

test("/docs lists the four spec endpoints, and the page requests nothing but the service", { skip: missing, timeout: 60_000 }, async (t) => {
  const page = await context.newPage();
  const service = new URL(server.url);
  const elsewhere: string[] = [];
  const failed: string[] = [];
  // Every request that is not to the service is recorded and refused.
  await page.route("**/*", async (route) => {
    const url = new URL(route.request().url());
    if (url.protocol === "data:" || url.host === service.host) { await route.continue(); return; }
    elsewhere.push(url.href);
    await route.abort();
  });
  page.on("requestfailed", (request) => { if (!request.url().startsWith("data:")) failed.push(`${request.url()} ${request.failure()?.errorText ?? ""}`); });

  // Whatever the page's policy refuses is noted: the page must work within it.
  await page.addInitScript(() => {
    const seen: string[] = [];
    (globalThis as unknown as { cspViolations: string[] }).cspViolations = seen;
    document.addEventListener("securitypolicyviolation", (e) => seen.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  const response = await page.goto(`${server.url}/docs`, { waitUntil: "load" });
  assert.equal(response?.status(), 200);
  assert.equal(response?.headers()["content-security-policy"], DOCS_CSP);
  // Swagger UI renders one .opblock per operation once it has read /docs/json.
  await page.waitForSelector(".opblock .opblock-summary-path", { timeout: 30_000 });
  const operations = await page.$$eval(".opblock", (blocks) => blocks.map((block) => {
    const method = block.querySelector(".opblock-summary-method")?.textContent?.trim() ?? "";
    const where = block.querySelector(".opblock-summary-path")?.getAttribute("data-path") ??
      block.querySelector(".opblock-summary-path")?.textContent?.trim() ?? "";
    return `${method} ${where.replace(/\u200b/g, "")}`;
  }));
  t.diagnostic(`operations on /docs: ${operations.length}`);
  for (const expected of [
    "POST /api/add-data", "GET /api/get-data", "GET /api/get-data-report", "POST /api/update-records-by-matching-values",
  ]) {
    assert.ok(operations.includes(expected), `${expected} is listed on /docs (listed: ${operations.join(", ")})`);
  }
  assert.deepEqual(await page.evaluate(() => (globalThis as unknown as { cspViolations: string[] }).cspViolations), [],
    "what the page's content security policy refused");
  assert.deepEqual(elsewhere, [], "the page asked hosts other than the service");
  assert.deepEqual(failed, [], "every request of the page succeeded");
  await page.close();
});

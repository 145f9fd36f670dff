import assert from "node:assert/strict";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type Browser, type Locator, type Page } from "playwright-core";
import { testEngine } from "./database.js";

/**
 * Debian's Chromium, driven by playwright-core (which downloads no browser of its own):
 * .ci/run installs it; without it the browser tests skip and say why.
 */
export const CHROMIUM = "/usr/bin/chromium";
const ARGS = [
  "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
  "--disable-sync", "--no-first-run",
];

/** false, or why the browser tests cannot run here. */
export const browserMissing: string | false = fs.existsSync(CHROMIUM) ? false : `${CHROMIUM} is not installed (apt-get install chromium; .ci/run does)`;

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true });
}

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const AXE = fs.readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/**
 * The accessibility violations axe-core finds on the page with impact "serious" or
 * "critical", one line each. axe is evaluated through the DevTools protocol rather than
 * added as a <script> tag: the console's Content-Security-Policy refuses inline scripts,
 * page.addScriptTag's included, which is the policy working.
 */
export async function seriousViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(AXE);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (context: Document) => Promise<{ violations: { id: string; impact?: string | null; help: string; nodes: { target: unknown[] }[] }[] }> } }).axe;
    const result = await axe.run(document);
    return result.violations.map((v) => ({ id: v.id, impact: v.impact ?? "", help: v.help, targets: v.nodes.map((n) => n.target.join(" ")) }));
  });
  return violations.filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.targets.slice(0, 5).join(", ")})`);
}

/**
 * A PNG of the page for docs/console.md, under docs/screenshots/ with a fixed name. Written on
 * the SQLite run only (the PostgreSQL run takes it too, and checks it, into memory), so
 * that one run per CI rewrites the committed files, with the same bytes when nothing
 * changed. Parts that differ between runs (times, token IDs, a secret) are masked.
 */
export async function screenshot(page: Page, name: string, mask: Locator[] = []): Promise<void> {
  // Masks of a full-page shot land where their elements are in the viewport: shoot from the top.
  await page.evaluate(() => window.scrollTo(0, 0));
  const png = await page.screenshot({ fullPage: true, animations: "disabled", caret: "hide", mask, maskColor: "#9aa3ad" });
  assert.ok(png.length > 5_000 && png.subarray(1, 4).toString() === "PNG", `${name}: a PNG`);
  if (testEngine() !== "sqlite") return;
  const dir = path.join(root, "docs", "screenshots");
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, `${name}.png`), png);
}

/**
 * Runs one step on a page; if it fails, the error also says what the page showed then (its
 * address, alerts, status messages and the values of its inputs), which a time-out waiting
 * for an element does not: a step that failed once in CI under load left nothing else to go on.
 */
export async function explained<T>(page: Page, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    const shown = await page.evaluate(() => {
      const textsOf = (selector: string): string[] => [...document.querySelectorAll(selector)].map((e) => (e.textContent ?? "").trim());
      return {
        url: location.href, alerts: textsOf("[role=alert]"), statuses: textsOf("[role=status]"),
        inputs: [...document.querySelectorAll("input")].map((i) => `${(i.labels?.[0]?.textContent ?? i.name).trim()}=${i.type === "password" ? "(hidden)" : i.value}`),
      };
    }).catch((reason: unknown) => `(could not be read: ${String(reason)})`);
    throw new Error(`${error instanceof Error ? error.message : String(error)}\nThe page then: ${JSON.stringify(shown)}`, { cause: error });
  }
}

/** Retries `check` until it stops throwing, or throws its last failure after `ms`. */
export async function eventually<T>(check: () => Promise<T>, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

/** The trimmed text of each element a locator finds. */
export async function texts(locator: Locator): Promise<string[]> {
  return (await locator.allTextContents()).map((t) => t.replace(/\s+/g, " ").trim());
}

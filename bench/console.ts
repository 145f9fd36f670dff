import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Page, Request } from "playwright-core";
import { readConfig } from "../src/config.js";
import { openContext } from "../src/open-context.js";
import { createUser } from "../src/domain/users.js";
import { browserMissing, launchBrowser } from "../test/support/browser.js";
import { startProcess } from "../test/support/process.js";
import { createBenchDatabase } from "./postgres.js";
import { Seeder, createBenchBloc, describeSeed } from "./seed.js";
import { median } from "./events.js";

/*
 * The web console on a large bloc: `node dist/bench/console.js [--records 1000000]
 * [--store postgres] [--rounds 5]`. Seeds one bloc (bulk import), starts the server, and in
 * Debian's Chromium times what a user waits for: the data view's first screen (page, total
 * and charts), the next page, and a click on a chart bar (a value filter). Beside each, the
 * API calls that screen made, replayed alone from Node: the console only loads a page and
 * the counts, so its time should be those calls' plus drawing, whatever the bloc's size.
 */

const option = (name: string): string | undefined => {
  const at = process.argv.indexOf(name);
  return at === -1 ? undefined : process.argv[at + 1];
};
const RECORDS = Number(option("--records") ?? "1000000");
const STORE = option("--store") ?? "sqlite";
const ROUNDS = Number(option("--rounds") ?? "5");
const say = (line: string): void => { process.stderr.write(`${line}\n`); };

interface Call { readonly method: string; readonly path: string; readonly body: string | null }

/** How long a screen took in the browser, and the calls it made. */
interface Screen { readonly ms: number; readonly calls: Call[] }

async function timed(page: Page, calls: Call[], act: () => Promise<void>, done: () => Promise<void>): Promise<Screen> {
  calls.length = 0;
  const started = performance.now();
  await act();
  await done();
  return { ms: performance.now() - started, calls: [...calls] };
}

/** The same calls, sent one after another from Node (the console sends a filtered screen's two at once). */
async function replay(base: string, token: string, calls: readonly Call[]): Promise<number> {
  const started = performance.now();
  await Promise.all(calls.map(async (call) => {
    const response = await fetch(`${base}${call.path}`, {
      method: call.method, headers: { authorization: `Bearer ${token}`, ...(call.body ? { "content-type": "application/json" } : {}) },
      ...(call.body ? { body: call.body } : {}),
    });
    await response.arrayBuffer();
    if (!response.ok) throw new Error(`${call.method} ${call.path} answered ${response.status}`);
  }));
  return performance.now() - started;
}

async function main(): Promise<void> {
  if (browserMissing) throw new Error(browserMissing);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bloc-console-bench-"));
  const pg = STORE === "postgres" ? await createBenchDatabase() : undefined;
  const databaseUrl = pg ? pg.url : `sqlite:${path.join(dir, "bloc.db")}`;
  const admin = `bench-admin-${Date.now()}-0123456789`;
  const env = { DATABASE_URL: databaseUrl, BLOC_FILES_DIR: path.join(dir, "files"), BLOC_ADMIN_TOKEN: admin, BLOC_LOG_LEVEL: "warn" };
  try {
    const ctx = await openContext(readConfig(env));
    const users: string[] = [];
    for (let i = 0; i < 20; i += 1) users.push((await createUser(ctx, `operator ${i + 1}`)).id);
    const blocId = await createBenchBloc(ctx, "Large");
    say(`seeding ${RECORDS.toLocaleString("en")} records (${STORE})…`);
    say(`  ${describeSeed(await new Seeder(ctx, users).seed(blocId, RECORDS, "bulk"))}`);
    await ctx.store.close();

    const server = await startProcess(env, dir);
    const browser = await launchBrowser();
    try {
      const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
      const calls: Call[] = [];
      page.on("request", (request: Request) => {
        const url = new URL(request.url());
        if (url.pathname.startsWith("/api/") && url.pathname !== "/api/me") calls.push({ method: request.method(), path: url.pathname + url.search, body: request.postData() });
      });
      await page.goto(`${server.url}/console/`);
      await page.getByLabel("Token").fill(admin);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.getByRole("heading", { name: "Your blocs" }).waitFor();

      const view = page.locator(".data-view[aria-busy=false]");
      const screens: Record<"first" | "next" | "bar", Screen[]> = { first: [], next: [], bar: [] };
      const direct: Record<"first" | "next" | "bar", number[]> = { first: [], next: [], bar: [] };
      for (let round = 0; round < ROUNDS; round += 1) {
        await page.goto(`${server.url}/console/`);
        await page.getByRole("heading", { name: "Your blocs" }).waitFor();
        const first = await timed(page, calls, () => page.getByRole("navigation", { name: "Blocs" }).getByRole("link", { name: "Large" }).click(),
          () => view.locator("#view-total").filter({ hasText: `${RECORDS.toLocaleString("en")} records` }).waitFor());
        await page.getByRole("list", { name: "Values of Site" }).waitFor();
        const next = await timed(page, calls, () => page.getByRole("button", { name: "Next page" }).click(),
          () => view.locator("table.records caption").filter({ hasText: /^Records 11–20 / }).waitFor());
        const bar = await timed(page, calls, () => page.getByRole("list", { name: "Values of Site" }).getByRole("button").first().click(),
          () => view.locator("#view-total").filter({ hasText: "match the filters" }).waitFor());
        for (const [name, screen] of [["first", first], ["next", next], ["bar", bar]] as const) {
          screens[name].push(screen);
          direct[name].push(await replay(server.url, admin, screen.calls));
        }
        say(`round ${round + 1}: first screen ${first.ms.toFixed(0)} ms, next page ${next.ms.toFixed(0)} ms, bar ${bar.ms.toFixed(0)} ms`);
      }
      const describe = (calls: readonly Call[]): string => calls.map((c) => `${c.method} ${c.path}`).join(" + ");
      console.log(`console on a ${RECORDS.toLocaleString("en")}-record bloc (${STORE}), medians of ${ROUNDS} rounds:`);
      for (const name of ["first", "next", "bar"] as const) {
        const browserMs = median(screens[name].map((s) => s.ms));
        const alone = median(direct[name]);
        console.log(`  ${name.padEnd(5)} ${browserMs.toFixed(0).padStart(6)} ms in Chromium; its calls alone ${alone.toFixed(0).padStart(6)} ms ` +
          `(ratio ${(browserMs / alone).toFixed(2)}); calls: ${describe(screens[name][0]!.calls)}`);
      }
    } finally {
      await browser.close();
      await server.stop();
    }
  } finally {
    await pg?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import Fastify from "fastify";
import { CONSOLE_CSP, CONSOLE_ROOT, installConsole } from "../src/http/console.js";
import { call } from "./support/http.js";
import { startServer, type TestServer } from "./support/server.js";

/*
 * /console as the server sends it (no browser): the built page and its assets under a
 * strict Content-Security-Policy, hashed assets cached for good and the page never, no
 * inline script for the policy to refuse, nothing of it in the OpenAPI document, and a
 * checkout whose console was never built saying so instead of a bare 404.
 */

let server: TestServer;
before(async () => { server = await startServer(); });
after(async () => { await server.close(); });

/** A request without a token: the console's files are public, like /docs. */
const get = (url: string) => call(server.url, "GET", url);

test("/console redirects to /console/, which serves the page under the console's CSP", async () => {
  const bare = await get("/console");
  assert.equal(bare.status, 301);
  assert.equal(bare.headers.location, "/console/");
  const page = await get("/console/");
  assert.equal(page.status, 200);
  assert.match(String(page.headers["content-type"]), /^text\/html/);
  assert.equal(page.headers["content-security-policy"], CONSOLE_CSP);
  assert.match(CONSOLE_CSP, /script-src 'self';/);
  assert.match(CONSOLE_CSP, /connect-src 'self'/);
  assert.doesNotMatch(CONSOLE_CSP, /unsafe-inline|unsafe-eval/);
  assert.equal(page.headers["x-content-type-options"], "nosniff");
  assert.equal(page.headers["cache-control"], "no-cache");
  // Every script is a file of the service: nothing inline, nothing from another host.
  const scripts = [...page.text.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
  assert.ok(scripts.length >= 1, "the page loads a script");
  for (const [, attributes, body] of scripts) {
    assert.equal(body!.trim(), "", "no inline script");
    assert.match(attributes!, /src="\/console\/assets\/[^"]+\.js"/);
  }
  assert.doesNotMatch(page.text, /https?:\/\//, "no absolute URL: nothing is fetched from elsewhere");
});

test("assets are served with the CSP too, hashed names cached for a year; a missing one is 404", async () => {
  const page = await get("/console/");
  const assets = [...page.text.matchAll(/(?:src|href)="(\/console\/assets\/[^"]+)"/g)].map((m) => m[1]!);
  assert.ok(assets.some((a) => a.endsWith(".js")) && assets.some((a) => a.endsWith(".css")), assets.join(", "));
  for (const asset of assets) {
    const reply = await get(asset);
    assert.equal(reply.status, 200, asset);
    assert.equal(reply.headers["cache-control"], "public, max-age=31536000, immutable");
    assert.equal(reply.headers["content-security-policy"], CONSOLE_CSP);
    // The bundle holds the fetch client only: no Node module was pulled into it.
    if (asset.endsWith(".js")) assert.doesNotMatch(reply.text, /from\s*["']node:|require\(["']node:/);
  }
  assert.equal((await get("/console/assets/nothing-here.js")).status, 404);
});

test("the console's routes are not in the OpenAPI document", async () => {
  const doc = (await get("/api/openapi.json")).json as { paths: Record<string, unknown> };
  assert.deepEqual(Object.keys(doc.paths).filter((p) => p.startsWith("/console")), []);
  assert.ok(Object.keys(doc.paths).includes("/api/get-data"));
});

test("a console that was not built answers 503 saying how to build it", async () => {
  assert.ok((await fs.stat(path.join(CONSOLE_ROOT, "index.html"))).isFile(), "npm run build wrote dist/console/index.html");
  const empty = await fs.mkdtemp(path.join(os.tmpdir(), "bloc-console-"));
  const app = Fastify();
  try {
    await installConsole(app, `${empty}/`);
    const reply = await app.inject({ method: "GET", url: "/console" });
    assert.equal(reply.statusCode, 503);
    assert.match(reply.body, /npm run build/);
    assert.equal(reply.headers["content-security-policy"], CONSOLE_CSP);
  } finally {
    await app.close();
    await fs.rm(empty, { recursive: true, force: true });
  }
});

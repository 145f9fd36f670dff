import fs from "node:fs";
import { fileURLToPath } from "node:url";
import type { FastifyInstance } from "fastify";
import fastifyStatic from "@fastify/static";
import { setPageHeaders } from "./page-headers.js";

/** Where the web console is served. */
export const CONSOLE_PREFIX = "/console";

/** The console's files as `npm run build` (Vite) writes them: dist/console beside dist/src. */
export const CONSOLE_ROOT = fileURLToPath(new URL("../../console/", import.meta.url));

/**
 * The console is a page of this origin that calls this origin's API and nothing else:
 * its scripts and styles are files (Vite writes no inline script), so nothing inline
 * runs, an injected <script> or style attribute is refused, and data can go nowhere but
 * back to the service. Downloads are Blob URLs, which only navigation (not fetch) uses.
 */
export const CONSOLE_CSP = [
  "default-src 'none'", "script-src 'self'", "style-src 'self'", "img-src 'self' data: blob:", "font-src 'self'",
  "connect-src 'self'", "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'",
].join("; ");

/** Vite names built assets by content hash: a changed file is a new URL, so they may be cached for good. */
const HASHED_ASSET = /\/assets\/[^/]+-[A-Za-z0-9_-]{8,}\.(?:js|css|svg|png|woff2?)$/;

/**
 * The web console (console/, built into dist/console at `npm ci`): static files under
 * /console/, left out of the OpenAPI document like the /docs assets. The page is a client
 * of the public and admin APIs: nothing here answers for it but files. A checkout whose
 * console was not built answers /console with a 503 saying how to build it.
 */
export async function installConsole(app: FastifyInstance, root = CONSOLE_ROOT): Promise<void> {
  await app.register(async (scope) => {
    scope.addHook("onSend", async (_request, reply) => setPageHeaders(reply, CONSOLE_CSP));
    if (!fs.existsSync(`${root}index.html`)) {
      scope.get(CONSOLE_PREFIX, { schema: { hide: true } }, async (_request, reply) => reply.code(503).type("text/plain; charset=utf-8")
        .send("The console is not built: run `npm run build` (npm ci does it), then restart the service.\n"));
      return;
    }
    // index.html names its assets under /console/assets/; /console itself is sent to /console/.
    scope.get(CONSOLE_PREFIX, { schema: { hide: true } }, async (_request, reply) => reply.redirect(`${CONSOLE_PREFIX}/`, 301));
    await scope.register(fastifyStatic, {
      root,
      prefix: `${CONSOLE_PREFIX}/`,
      decorateReply: false,
      schemaHide: true,
      cacheControl: false,
      setHeaders: (response, path) => {
        response.setHeader("cache-control", HASHED_ASSET.test(path) ? "public, max-age=31536000, immutable" : "no-cache");
      },
    });
  });
}

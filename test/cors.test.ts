import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { startServer, type TestServer } from "./support/server.js";
import { call } from "./support/http.js";
import { ConfigError, readConfig } from "../src/config.js";

/** Issue 11: CORS is off unless BLOC_CORS_ORIGINS lists origins; then their preflights are answered. */

const ALLOWED = "https://app.example.com";

function preflight(server: TestServer, path: string, origin: string, method = "GET") {
  return call(server.url, "OPTIONS", path, {
    headers: { origin, "access-control-request-method": method, "access-control-request-headers": "authorization,content-type" },
  });
}

function corsHeaders(headers: Record<string, unknown>): string[] {
  return Object.keys(headers).filter((h) => h.startsWith("access-control-"));
}

describe("without BLOC_CORS_ORIGINS", () => {
  let server: TestServer;
  before(async () => { server = await startServer(); });
  after(async () => { await server.close(); });

  test("a preflight from another origin gets no CORS header, nor does an answer", async () => {
    const reply = await preflight(server, "/api/get-data", ALLOWED);
    assert.deepEqual(corsHeaders(reply.headers), []);
    const get = await server.call("GET", "/api/me", { headers: { origin: ALLOWED } });
    assert.equal(get.status, 200, get.text);
    assert.deepEqual(corsHeaders(get.headers), []);
  });
});

describe("with BLOC_CORS_ORIGINS", () => {
  let server: TestServer;
  before(async () => { server = await startServer({ BLOC_CORS_ORIGINS: `${ALLOWED}, http://localhost:3000` }); });
  after(async () => { await server.close(); });

  test("an allowed origin's preflight is answered with the headers and the route's methods", async () => {
    const reply = await preflight(server, "/api/get-data", ALLOWED);
    assert.equal(reply.status, 204, reply.text);
    assert.equal(reply.headers["access-control-allow-origin"], ALLOWED);
    const allowedHeaders = String(reply.headers["access-control-allow-headers"]).toLowerCase().split(/,\s*/);
    for (const h of ["authorization", "content-type"]) assert.ok(allowedHeaders.includes(h), h);
    const methods = String(reply.headers["access-control-allow-methods"]).split(/,\s*/);
    for (const m of ["GET", "POST"]) assert.ok(methods.includes(m), m);
    assert.ok(!methods.includes("DELETE"));
    const admin = await preflight(server, "/api/admin/tokens/abc", "http://localhost:3000", "DELETE");
    assert.equal(admin.status, 204);
    assert.deepEqual(String(admin.headers["access-control-allow-methods"]).split(/,\s*/), ["DELETE"]);
  });

  test("an allowed origin's request carries the allow-origin header; the request still needs its token", async () => {
    const ok = await server.call("GET", "/api/me", { headers: { origin: ALLOWED } });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.headers["access-control-allow-origin"], ALLOWED);
    assert.match(String(ok.headers["access-control-expose-headers"]), /x-request-id/i);
    const refused = await call(server.url, "GET", "/api/me", { headers: { origin: ALLOWED } });
    assert.equal(refused.status, 401);
  });

  test("a disallowed origin gets no CORS header", async () => {
    for (const origin of ["https://evil.example.com", "https://app.example.com.evil.net", "http://app.example.com"]) {
      const reply = await preflight(server, "/api/get-data", origin);
      assert.equal(reply.headers["access-control-allow-origin"], undefined, origin);
      assert.equal(reply.headers["access-control-allow-methods"], undefined, origin);
      const get = await server.call("GET", "/api/me", { headers: { origin } });
      assert.equal(get.headers["access-control-allow-origin"], undefined, origin);
    }
  });
});

test("BLOC_CORS_ORIGINS takes origins only", () => {
  assert.deepEqual(readConfig({ BLOC_CORS_ORIGINS: "https://a.example, http://localhost:3000" }).corsOrigins,
    ["https://a.example", "http://localhost:3000"]);
  for (const bad of ["*", "https://a.example/", "https://a.example/path", "ftp://a.example", "a.example"]) {
    assert.throws(() => readConfig({ BLOC_CORS_ORIGINS: bad }), (e: unknown) => e instanceof ConfigError && e.message.includes("BLOC_CORS_ORIGINS"), bad);
  }
});

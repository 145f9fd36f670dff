import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs/promises";
import path from "node:path";
import { startServer, type TestServer } from "./support/server.js";
import { issueToken, keysOf } from "./support/fixtures.js";
import { rawRequest, type RawReply } from "./support/raw-http.js";

/**
 * Issue 9, finding 4: a revocation or a narrowed profile made while a request's body is
 * still arriving applies to that request. Each request sends its headers and half its
 * body, the admin changes access, then the rest is sent.
 */

const UPDATE = "/api/update-records-by-matching-values";

let server: TestServer;
let blocId: string;

before(async () => {
  server = await startServer();
  const created = await server.call("POST", "/api/admin/blocs", {
    json: { name: "Sites", fields: [{ name: "Part" }, { name: "Site", applyProfileFilter: true }, { name: "Doc", type: "file" }] },
  });
  assert.equal(created.status, 201, created.text);
  blocId = created.json.id as string;
});

after(async () => {
  await server.close();
});

/** A member of both sites with every right on the bloc, and a token whose ID the admin can revoke. */
async function member(): Promise<{ userId: string; tokenId: string; token: string }> {
  const user = await server.call("POST", "/api/admin/users", { json: { name: "site lead" } });
  const userId = user.json.id as string;
  assert.equal((await server.call("PUT", `/api/admin/users/${userId}`, { json: { profile: ["Dublin", "Cork"] } })).status, 200);
  assert.equal((await server.call("PUT", `/api/admin/blocs/${blocId}/access/${userId}`, { json: { read: true, add: true, update: true } })).status, 200);
  const { id: tokenId, token } = await issueToken(server, userId);
  return { userId, tokenId, token };
}

async function admin(method: string, p: string, json?: unknown): Promise<void> {
  const reply = await server.call(method, p, json === undefined ? {} : { json });
  assert.ok(reply.status < 300, `${method} ${p}: ${reply.status} ${reply.text}`);
}

function records(): Promise<number> {
  return server.ctx.store.records.countRecords({ blocId });
}

/** Time for the server to take the headers and authenticate them before access changes. */
const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 300));

/** Sends half the body, runs `meanwhile` once the server has the headers, then sends the rest. */
function halfThen(method: string, p: string, token: string, body: string | Buffer, meanwhile: () => Promise<void>, type = "application/json"): Promise<RawReply> {
  return rawRequest(server.url, {
    method, path: p, body, splitAt: Math.floor(body.length / 2), untilClosed: false,
    pause: async () => { await settle(); await meanwhile(); },
    headers: { authorization: `Bearer ${token}`, "content-type": type },
  });
}

test("add-data whose token is revoked while its body arrives → 401 {error}, nothing stored", async () => {
  const m = await member();
  const before = await records();
  const body = JSON.stringify({ scanStationID: blocId, dataToAdd: { field_1: "P-1", field_2: "Cork" } });
  const reply = await halfThen("POST", "/api/add-data", m.token, body, () => admin("DELETE", `/api/admin/tokens/${m.tokenId}`));
  assert.equal(reply.status, 401, reply.text);
  assert.deepEqual(keysOf(reply.json), ["error"]);
  assert.equal(await records(), before);
});

test("add-data whose user's profile is narrowed while its body arrives → 403 {error}, nothing stored", async () => {
  const m = await member();
  const body = JSON.stringify({ scanStationID: blocId, dataToAdd: { field_1: "P-2", field_2: "Cork" } });
  const control = await halfThen("POST", "/api/add-data", m.token, body, async () => undefined);
  assert.equal(control.status, 200, `without the change the same add is accepted: ${control.text}`);
  const before = await records();
  const reply = await halfThen("POST", "/api/add-data", m.token, body, () => admin("PUT", `/api/admin/users/${m.userId}`, { profile: ["Dublin"] }));
  assert.equal(reply.status, 403, reply.text);
  assert.deepEqual(keysOf(reply.json), ["error"]);
  assert.equal(await records(), before);
});

test("get-data whose token is revoked while its GET body arrives → 401 {error}", async () => {
  const m = await member();
  const reply = await halfThen("GET", "/api/get-data", m.token, JSON.stringify({ blocId, resultLimit: 5 }),
    () => admin("DELETE", `/api/admin/tokens/${m.tokenId}`));
  assert.equal(reply.status, 401, reply.text);
  assert.deepEqual(keysOf(reply.json), ["error"]);
});

test("an update whose user's profile is narrowed while its body arrives cannot set the lost site → 401 {message}", async () => {
  const m = await member();
  await admin("POST", "/api/add-data", { scanStationID: blocId, dataToAdd: { field_1: "MOVE-ME", field_2: "Dublin" } });
  const body = JSON.stringify({ blocId, fieldsToUpdate: { field_2: "Cork" }, searchItems: { field_1: "MOVE-ME" } });
  const reply = await halfThen("POST", UPDATE, m.token, body, () => admin("PUT", `/api/admin/users/${m.userId}`, { profile: ["Dublin"] }));
  assert.equal(reply.status, 401, reply.text);
  assert.deepEqual(keysOf(reply.json), ["message"]);
  const rows = await server.ctx.store.records.listRecords({ blocId }, { order: "oldest", limit: 1000, offset: 0 });
  assert.equal(rows.find((r) => r.values.field_1 === "MOVE-ME")?.values.field_2, "Dublin");
});

test("a multipart add-data whose token is revoked before its file arrives → 401 {error}, nothing stored, no file written", async () => {
  const m = await member();
  const before = await records();
  const text = (name: string, value: string): string => `--B\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  const head = text("scanStationID", blocId) + text("dataToAdd", JSON.stringify({ field_1: "P-3", field_2: "Cork" }));
  const file = `--B\r\nContent-Disposition: form-data; name="field_3"; filename="d.bin"\r\nContent-Type: application/octet-stream\r\n\r\n${"d".repeat(5000)}\r\n--B--\r\n`;
  const reply = await rawRequest(server.url, {
    method: "POST", path: "/api/add-data", body: head + file, splitAt: head.length, untilClosed: false,
    pause: async () => { await settle(); await admin("DELETE", `/api/admin/tokens/${m.tokenId}`); },
    headers: { authorization: `Bearer ${m.token}`, "content-type": "multipart/form-data; boundary=B" },
  });
  assert.equal(reply.status, 401, reply.text);
  assert.deepEqual(keysOf(reply.json), ["error"]);
  assert.equal(await records(), before);
  assert.deepEqual(await fs.readdir(path.join(server.dir, "files", "tmp")), []);
});

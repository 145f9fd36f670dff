import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import crypto from "node:crypto";
import { addBloc, addMember, startServer, type Member, type TestServer } from "./support/server.js";
import { keysOf } from "./support/fixtures.js";
import type { GenerationCache } from "../src/store/generation-cache.js";
import type { JsonBody } from "./support/json.js";

/** Issue 11: the admin API lists users and a user's tokens (with their last use), never a secret or hash. */

let server: TestServer;
let member: Member;
let blocId: string;

before(async () => {
  server = await startServer();
  blocId = await addBloc(server, "Listed", ["Part"]);
  member = await addMember(server, { blocId, read: true });
});

after(async () => {
  await server.close();
});

const STAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

async function tokensOf(userId: string): Promise<JsonBody[]> {
  const reply = await server.call("GET", `/api/admin/users/${userId}/tokens`);
  assert.equal(reply.status, 200, reply.text);
  assert.deepEqual(keysOf(reply.json), ["tokens"]);
  return reply.json.tokens;
}

/** The last use is written beside the request, not in it: wait (briefly) until it shows. */
async function lastUseOf(userId: string, tokenId: string): Promise<string> {
  for (let i = 0; i < 100; i += 1) {
    const listed = (await tokensOf(userId)).find((t) => t.id === tokenId);
    if (listed?.lastUsedAt) return listed.lastUsedAt as string;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.fail(`token ${tokenId} shows no last use`);
}

describe("GET /api/admin/users", () => {
  test("lists every user by ID with name, role and profile", async () => {
    await server.call("PUT", `/api/admin/users/${member.id}`, { json: { profile: ["Dublin"] } });
    const reply = await server.call("GET", "/api/admin/users");
    assert.equal(reply.status, 200, reply.text);
    assert.deepEqual(keysOf(reply.json), ["users"]);
    const users: JsonBody[] = reply.json.users;
    for (const user of users) assert.deepEqual(keysOf(user), ["disabled", "email", "id", "name", "profile", "role"]);
    assert.deepEqual(users.map((u) => u.role), ["admin", "member"]);
    assert.deepEqual(users[1], { id: member.id, name: "member", role: "member", profile: ["Dublin"], email: null, disabled: false });
    const shown = await server.call("GET", `/api/admin/users/${member.id}`);
    const { roles: _roles, ...described } = shown.json;
    assert.deepEqual(described, users[1], "as GET /api/admin/users/:id describes it");
  });

  test("is for admins only", async () => {
    const reply = await server.call("GET", "/api/admin/users", { token: member.token });
    assert.equal(reply.status, 403, reply.text);
    assert.equal(typeof reply.json.error, "string");
    assert.equal((await server.call("GET", "/api/admin/users", { headers: {}, token: "bds_nope" })).status, 401);
  });
});

describe("GET /api/admin/users/:userId/tokens", () => {
  test("lists a user's tokens with names, scopes, expiry, creation, revocation and last use; never a secret or hash", async () => {
    const user = await server.call("POST", "/api/admin/users", { json: { name: "Tokened" } });
    const userId: string = user.json.id;
    const plain = await server.call("POST", `/api/admin/users/${userId}/tokens`, { json: { name: "scanner" } });
    const scoped = await server.call("POST", `/api/admin/users/${userId}/tokens`, {
      json: { name: "reader", permissions: ["read"], blocs: [blocId], expiresAt: "2099-12-31 23:59:59" },
    });
    const revoked = await server.call("POST", `/api/admin/users/${userId}/tokens`, { json: {} });
    assert.equal((await server.call("DELETE", `/api/admin/tokens/${revoked.json.id}`)).status, 204);

    const reply = await server.call("GET", `/api/admin/users/${userId}/tokens`);
    assert.equal(reply.status, 200, reply.text);
    const tokens: JsonBody[] = reply.json.tokens;
    // Oldest first; tokens issued in the same second, by ID.
    assert.deepEqual(tokens.map((t) => t.id), [...tokens].sort((a, b) =>
      a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id < b.id ? -1 : 1).map((t) => t.id));
    assert.deepEqual(new Set(tokens.map((t) => t.id)), new Set([plain.json.id, scoped.json.id, revoked.json.id]));
    const byId = (id: string): JsonBody => tokens.find((t) => t.id === id);
    for (const t of tokens) {
      assert.deepEqual(keysOf(t), ["createdAt", "expiresAt", "id", "lastUsedAt", "name", "revokedAt", "scope", "userId"]);
      assert.match(t.createdAt, STAMP);
      assert.equal(t.userId, userId);
      assert.equal(t.lastUsedAt, null, "not used yet");
    }
    assert.deepEqual(byId(plain.json.id).scope, { permissions: null, blocs: null });
    assert.equal(byId(plain.json.id).name, "scanner");
    assert.equal(byId(plain.json.id).expiresAt, null);
    assert.deepEqual(byId(scoped.json.id).scope, { permissions: ["read"], blocs: [blocId] });
    assert.equal(byId(scoped.json.id).expiresAt, "2099-12-31 23:59:59");
    assert.equal(byId(revoked.json.id).name, null);
    assert.match(byId(revoked.json.id).revokedAt, STAMP);
    assert.equal(byId(plain.json.id).revokedAt, null);
    for (const issued of [plain, scoped, revoked]) {
      const secret: string = issued.json.token;
      assert.ok(!reply.text.includes(secret), "a secret is listed");
      assert.ok(!reply.text.includes(crypto.createHash("sha256").update(secret).digest("hex")), "a hash is listed");
    }
    assert.ok(!/hash|secret|"token"/.test(reply.text));
  });

  test("a token's last use shows after it authenticates a request, written at most once a minute", async () => {
    const issued = await server.call("POST", `/api/admin/users/${member.id}/tokens`, { json: { name: "used" } });
    const idle = await server.call("POST", `/api/admin/users/${member.id}/tokens`, { json: { name: "idle" } });
    const read = await server.call("GET", "/api/get-data", { token: issued.json.token, json: { blocId } });
    assert.equal(read.status, 200, read.text);
    const first = await lastUseOf(member.id, issued.json.id);
    assert.match(first, STAMP);
    assert.ok(first >= (await tokensOf(member.id)).find((t) => t.id === issued.json.id).createdAt);
    // Another second later, within the minute: no new write.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    assert.equal((await server.call("GET", "/api/get-data", { token: issued.json.token, json: { blocId } })).status, 200);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const listed = await tokensOf(member.id);
    assert.equal(listed.find((t) => t.id === issued.json.id).lastUsedAt, first);
    assert.equal(listed.find((t) => t.id === idle.json.id).lastUsedAt, null);
    // A refused request (a member on an admin route) still authenticated its token: it counts as a use.
    const other = await server.call("POST", `/api/admin/users/${member.id}/tokens`, { json: {} });
    assert.equal((await server.call("GET", "/api/admin/users", { token: other.json.token })).status, 403);
    assert.match(await lastUseOf(member.id, other.json.id), STAMP);
  });

  test("writing a last use changes nothing cached: the store's cache keeps its entries", async () => {
    // The cache is the store's own; reached here only to show that the write bumps no generation.
    const cache = (server.ctx.store as unknown as { cache: GenerationCache }).cache;
    const issued = await server.call("POST", `/api/admin/users/${member.id}/tokens`, { json: {} });
    assert.equal((await server.call("GET", "/api/me")).status, 200);
    assert.equal((await server.call("GET", "/api/me", { token: issued.json.token })).status, 200);
    const filled = cache.size;
    assert.ok(filled >= 2, `${filled} entries`);
    await lastUseOf(member.id, issued.json.id);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal((await server.call("GET", "/api/me")).status, 200);
    assert.equal(cache.size, filled, "a new generation would have emptied the cache");
    // A real change to a token does empty it (the check above can fail).
    assert.equal((await server.call("DELETE", `/api/admin/tokens/${issued.json.id}`)).status, 204);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal((await server.call("GET", "/api/me")).status, 200);
    assert.ok(cache.size < filled, `${cache.size} entries after a revocation`);
  });

  test("an unknown user → 404 {error}; an over-long ID → 400", async () => {
    for (const id of ["999999", "not-a-user"]) {
      const reply = await server.call("GET", `/api/admin/users/${id}/tokens`);
      assert.equal(reply.status, 404, reply.text);
      assert.deepEqual(keysOf(reply.json), ["error"]);
    }
    const long = await server.call("GET", `/api/admin/users/${"9".repeat(300)}/tokens`);
    assert.equal(long.status, 400, long.text);
  });
});

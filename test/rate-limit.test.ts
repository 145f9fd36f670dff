import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import crypto from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { call, type Reply } from "./support/http.js";
import { addBloc, addMember, startServer, type Member, type TestServer } from "./support/server.js";
import { freshWorkspace, startProcess, type Running } from "./support/process.js";
import { testEngine } from "./support/database.js";

/**
 * BLOC_RATE_LIMIT: at most N requests per second per token, then 429 in the endpoint's
 * error shape with Retry-After. Requests without a valid token are refused (401) before
 * they are counted. On PostgreSQL every process shares one count per token; on SQLite
 * each process counts its own.
 */

const LIMIT = 2;
const BURST = 40;

let server: TestServer;
let blocId: string;
let member: Member;

interface Burst {
  readonly replies: readonly Reply[];
  /** Clock seconds the burst touched: no request was counted outside them. */
  readonly windows: number;
}

/** Sends all requests at once; notes which clock seconds they were sent and answered in. */
async function burst(send: (index: number) => Promise<Reply>, count = BURST): Promise<Burst> {
  const start = Date.now();
  const replies = await Promise.all(Array.from({ length: count }, (_, index) => send(index)));
  const end = Date.now();
  return { replies, windows: Math.floor(end / 1000) - Math.floor(start / 1000) + 1 };
}

function served(result: Burst): number {
  return result.replies.filter((r) => r.status !== 429).length;
}

function assertRefusals(result: Burst, key: "error" | "message"): void {
  const refused = result.replies.filter((r) => r.status === 429);
  assert.ok(refused.length > 0, `some of ${result.replies.length} requests are refused`);
  for (const reply of refused) {
    assert.equal(reply.headers["retry-after"], "1", "Retry-After: the next second");
    assert.deepEqual(Object.keys(reply.json), [key]);
    assert.match(reply.json[key], new RegExp(`Too many requests: this token may make ${LIMIT} per second`));
  }
}

/** Waits for the start of the next clock second, when every count starts again. */
async function nextWindow(): Promise<void> {
  await sleep(1000 - (Date.now() % 1000) + 20);
}

/** The server for setting things up as the admin: a request refused for the limit is sent again in the next second. */
function paced(target: TestServer): TestServer {
  return {
    ...target,
    async call(method, p, options) {
      for (;;) {
        const reply = await target.call(method, p, options);
        if (reply.status !== 429) return reply;
        await nextWindow();
      }
    },
  };
}

before(async () => {
  server = await startServer({ BLOC_RATE_LIMIT: String(LIMIT) });
  blocId = await addBloc(paced(server), "Limited", ["Part"]);
  member = await addMember(paced(server), { blocId, read: true, add: true, update: true });
});

after(async () => {
  await server.close();
});

test("a token over its limit gets 429 with Retry-After, in each endpoint's error shape", async () => {
  await nextWindow();
  const reads = await burst(() => call(server.url, "GET", "/api/get-data", { token: member.token, json: { blocId } }));
  assert.ok(served(reads) <= LIMIT * reads.windows, `${served(reads)} served in ${reads.windows} s`);
  assertRefusals(reads, "error");
  for (const reply of reads.replies) assert.ok([200, 429].includes(reply.status), reply.text);

  await nextWindow();
  const updates = await burst(() => call(server.url, "POST", "/api/update-records-by-matching-values", {
    token: member.token, json: { blocId, fieldsToUpdate: { field_1: "x" }, searchItems: { field_1: "none" } },
  }));
  assertRefusals(updates, "message");

  await nextWindow();
  const admin = await burst(() => server.call("GET", "/api/admin/blocs"));
  assertRefusals(admin, "error");
});

test("a refused add-data stores nothing, and the token is served again in the next second", async () => {
  await nextWindow();
  const before = await server.ctx.store.records.countRecords({ blocId });
  const adds = await burst(() => call(server.url, "POST", "/api/add-data", { token: member.token, json: { scanStationID: blocId, dataToAdd: { field_1: "P" } } }));
  assertRefusals(adds, "error");
  assert.equal(await server.ctx.store.records.countRecords({ blocId }), before + served(adds), "one record per 200, none per 429");
  await nextWindow();
  const again = await call(server.url, "GET", "/api/me", { token: member.token });
  assert.equal(again.status, 200, again.text);
});

test("tokens are counted apart: one token's burst does not limit another's", async () => {
  const other = await addMember(paced(server), { blocId, read: true });
  await nextWindow();
  const [flood, calm] = await Promise.all([
    burst(() => call(server.url, "GET", "/api/me", { token: member.token })),
    burst(() => call(server.url, "GET", "/api/me", { token: other.token }), LIMIT),
  ]);
  assertRefusals(flood, "error");
  // The calm token's requests may straddle two seconds, never exceed its own limit.
  assert.equal(served(calm), LIMIT, calm.replies.map((r) => r.status).join(","));
});

test("requests without a valid token are refused with 401 and not counted against any token", async () => {
  await nextWindow();
  const anonymous = await burst(() => call(server.url, "GET", "/api/me", {}));
  const forged = await burst(() => call(server.url, "GET", "/api/me", { token: `bds_${crypto.randomBytes(32).toString("base64url")}` }));
  for (const reply of [...anonymous.replies, ...forged.replies]) assert.equal(reply.status, 401, reply.text);
  const health = await burst(() => call(server.url, "GET", "/health"));
  for (const reply of health.replies) assert.equal(reply.status, 200, "routes without a token are not limited");
  const fresh = await addMember(paced(server), { blocId, read: true });
  assert.equal((await call(server.url, "GET", "/api/me", { token: fresh.token })).status, 200);
});

test("without BLOC_RATE_LIMIT nothing is limited", async () => {
  const unlimited = await startServer();
  try {
    const result = await burst(() => unlimited.call("GET", "/api/admin/blocs"), 100);
    assert.deepEqual([...new Set(result.replies.map((r) => r.status))], [200]);
    assert.equal(result.replies[0]!.headers["x-ratelimit-limit"], undefined);
  } finally {
    await unlimited.close();
  }
});

const sharedCount = testEngine() === "postgres";

test(`two server processes on one database (${testEngine()}): ${sharedCount ? "one count per token, shared" : "each process counts its own"}`, { timeout: 120_000 }, async () => {
  const workspace = await freshWorkspace("rate-pair");
  const admin = `rate-admin-${crypto.randomBytes(12).toString("hex")}`;
  const env = { DATABASE_URL: workspace.databaseUrl, BLOC_ADMIN_TOKEN: admin, BLOC_RATE_LIMIT: String(LIMIT) };
  const running: Running[] = [];
  try {
    running.push(await startProcess(env, workspace.cwd));
    running.push(await startProcess(env, workspace.cwd));
    const [a, b] = running.map((r) => r.url) as [string, string];
    // Connections warmed first, so that the burst's requests are counted close together.
    await Promise.all([call(a, "GET", "/health"), call(b, "GET", "/health")]);
    await nextWindow();
    const result = await burst((i) => call(i % 2 === 0 ? a : b, "GET", "/api/admin/blocs", { token: admin }), BURST);
    const bothServed = served(result);
    if (sharedCount) {
      assert.ok(bothServed <= LIMIT * result.windows, `${bothServed} served by the two in ${result.windows} s: the limit is shared`);
    } else {
      assert.ok(bothServed <= 2 * LIMIT * result.windows, `${bothServed} served by the two in ${result.windows} s: each its own limit`);
    }
    assertRefusals(result, "error");
  } finally {
    for (const r of running) await r.stop();
    await workspace.remove();
  }
});

import { after, before, test } from "node:test";
import http from "node:http";
import assert from "node:assert/strict";
import { configChanged, recordAdded } from "../src/domain/events.js";
import { Receiver, signedWith, type Received } from "./support/receiver.js";
import { addMember, addRecord, startServer, type Member, type TestServer } from "./support/server.js";

/**
 * Webhooks against real receivers on this machine: every committed add and update is
 * delivered, signed, in order per bloc, until acknowledged; refused and rolled-back
 * changes send nothing; a dead receiver holds up neither the API nor other webhooks.
 */

let server: TestServer;
let blocId: string;
let writer: Member & { tokenId: string };
const receivers: Receiver[] = [];
const SECRET = "a-webhook-secret-of-some-length";

async function receiver(): Promise<Receiver> {
  const r = await Receiver.start();
  receivers.push(r);
  return r;
}

async function webhook(url: string, body: Record<string, unknown> = {}): Promise<string> {
  const reply = await server.call("POST", "/api/admin/webhooks", { json: { url, blocs: [blocId], secret: SECRET, ...body } });
  assert.equal(reply.status, 201, reply.text);
  return reply.json.id as string;
}

function update(fieldsToUpdate: Record<string, string>, searchItems: Record<string, string>): Promise<number[]> {
  return server.call("POST", "/api/update-records-by-matching-values", {
    token: writer.token, json: { blocId, fieldsToUpdate, searchItems },
  }).then((reply) => {
    assert.equal(reply.status, 200, reply.text);
    return reply.json.updated_record_ids as number[];
  });
}

/** A webhook's delivery log once it holds `n` attempts (a lane writes its log shortly after the attempts). */
async function logOf(id: string, n: number): Promise<{ id: number; outcome: string; statusCode: number; error: string | null; attempt: number; eventId: string }[]> {
  for (let waited = 0; ; waited += 50) {
    const reply = await server.call("GET", `/api/admin/webhooks/${id}/deliveries?limit=1000`);
    assert.equal(reply.status, 200, reply.text);
    if (reply.json.deliveries.length >= n || waited > 10_000) return reply.json.deliveries;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The acknowledged deliveries' event numbers, which must run on with no gap and no repeat. */
function assertInOrder(deliveries: readonly Received[]): void {
  const seqs = deliveries.map((d) => d.body.seq);
  assert.deepEqual(seqs, seqs.map((_, i) => seqs[0]! + i), "acknowledged in order, each once");
}

before(async () => {
  server = await startServer({ BLOC_WEBHOOK_RETRY_MS: "50", BLOC_EVENTS_POLL_MS: "50" });
  const bloc = await server.call("POST", "/api/admin/blocs", {
    json: { name: "Scans", fields: [{ name: "Part" }, { name: "Line" }, { name: "Serial", unique: true }] },
  });
  assert.equal(bloc.status, 201, bloc.text);
  blocId = bloc.json.id as string;
  const member = await addMember(server, { blocId, read: true, add: true, update: true });
  const tokens = await server.call("GET", `/api/admin/users/${member.id}/tokens`);
  writer = { ...member, tokenId: tokens.json.tokens[0].id as string };
});

after(async () => {
  await server.close();
  for (const r of receivers) await r.close();
});

test("adds and updates arrive in order, each signed with the webhook's secret, with the record as it was", async () => {
  const r = await receiver();
  const id = await webhook(r.url, { events: ["record.added", "record.updated"] });
  // Concurrent adds share group commits: each still gets its own event, numbered in commit order.
  const ids = await Promise.all(Array.from({ length: 24 }, (_, i) =>
    addRecord(server, blocId, { field_1: `P-${i}`, field_2: i % 3 === 0 ? "L1" : "L2" }, writer.token)));
  const updated = await update({ field_2: "L9" }, { field_2: "L1" });
  assert.equal(updated.length, 8);
  await r.until(() => r.acknowledged.length === 32, "32 events acknowledged");

  const got = r.acknowledged;
  assertInOrder(got);
  assert.equal(got[0]!.body.seq > 0, true);
  for (const d of got) {
    assert.ok(signedWith(SECRET, d), `event ${d.body.seq} is signed with the secret`);
    assert.equal(d.headers["x-bloc-event-id"], d.body.id);
    assert.equal(d.headers["x-bloc-event-type"], d.body.type);
    assert.equal(d.headers["content-type"], "application/json");
    assert.equal(d.body.blocId, blocId);
  }
  assert.equal(new Set(got.map((d) => d.body.id)).size, 32, "event IDs are distinct");
  const added = got.slice(0, 24);
  assert.ok(added.every((d) => d.body.type === "record.added"));
  assert.deepEqual(added.map((d) => (d.body.record as { service_entry_row_id: number }).service_entry_row_id).sort((a, b) => a - b),
    [...ids].sort((a, b) => a - b));
  const first = added.find((d) => (d.body.record as Record<string, unknown>).field_1 === "P-0")!;
  assert.deepEqual(first.body.actor, { userId: writer.id, tokenId: writer.tokenId });
  assert.deepEqual({ ...(first.body.record as Record<string, unknown>), created_at: "" }, {
    service_entry_row_id: ids[0], created_at: "", user_id: writer.id, submitted_status: 1, field_1: "P-0", field_2: "L1",
  });
  const updates = got.slice(24);
  assert.ok(updates.every((d) => d.body.type === "record.updated"));
  assert.deepEqual(updates.map((d) => (d.body.record as { service_entry_row_id: number }).service_entry_row_id).sort((a, b) => a - b), updated);
  for (const d of updates) {
    assert.deepEqual(d.body.changes, { field_2: { from: "L1", to: "L9" } });
    assert.equal((d.body.record as Record<string, unknown>).field_2, "L9", "the record as the update left it");
  }

  const log = await logOf(id, 32);
  assert.equal(log.length, 32);
  assert.ok(log.every((d) => d.outcome === "delivered" && d.statusCode === 200 && d.attempt === 1));
  const listed = await server.call("GET", "/api/admin/webhooks");
  const mine = listed.json.webhooks.find((w: { id: string }) => w.id === id);
  assert.deepEqual({ ...mine, createdAt: "" }, { id, url: r.url, blocs: [blocId], events: ["record.added", "record.updated"], createdAt: "" });
  assert.equal(JSON.stringify(listed.json).includes(SECRET), false, "the listing never shows a secret");
});

test("a receiver that fails three times, then answers, receives every event in the end, in order", async () => {
  const r = await receiver();
  r.answer = (n) => (n <= 3 ? 500 : 200);
  const id = await webhook(r.url);
  const ids: number[] = [];
  for (let i = 0; i < 4; i += 1) ids.push(await addRecord(server, blocId, { field_1: `R-${i}` }, writer.token));
  await r.until(() => r.acknowledged.length === 4, "4 events acknowledged");

  assert.deepEqual(r.received.slice(0, 4).map((d) => [d.status, d.headers["x-bloc-delivery-attempt"]]),
    [[500, "1"], [500, "2"], [500, "3"], [200, "4"]], "the first event, tried until acknowledged");
  assert.equal(new Set(r.received.slice(0, 4).map((d) => d.body.id)).size, 1, "the same event each time");
  assertInOrder(r.acknowledged);
  assert.deepEqual(r.acknowledged.map((d) => (d.body.record as { service_entry_row_id: number }).service_entry_row_id), ids);
  assert.equal(r.received.length, 7, "nothing sent twice once acknowledged");

  const oldestFirst = [...await logOf(id, 7)].reverse();
  assert.deepEqual(oldestFirst.map((d) => [d.outcome, d.statusCode, d.attempt]), [
    ["failed", 500, 1], ["failed", 500, 2], ["failed", 500, 3], ["delivered", 200, 4],
    ["delivered", 200, 1], ["delivered", 200, 1], ["delivered", 200, 1],
  ]);
  // The receiver's status and the size of its answer ("not now"), never the answer itself.
  assert.equal(oldestFirst[0]!.error, "HTTP 500, 7 bytes");
  const metrics = (await server.call("GET", "/metrics")).text;
  const attempts = (outcome: string): number => Number(new RegExp(`^bloc_webhook_attempts_total\\{outcome="${outcome}"\\} (\\d+)$`, "m").exec(metrics)?.[1] ?? 0);
  assert.ok(attempts("failed") >= 3 && attempts("delivered") >= 4, `attempts in /metrics: ${metrics.split("\n").filter((l) => l.startsWith("bloc_webhook")).join("; ")}`);

  // A logged delivery sent again by hand: the same event, under its own ID, and logged.
  const resent = await server.call("POST", `/api/admin/webhooks/${id}/deliveries/${oldestFirst[0]!.id}/resend`);
  assert.equal(resent.status, 200, resent.text);
  assert.equal(resent.json.delivery.outcome, "resent");
  assert.equal(resent.json.delivery.attempt, 2);
  assert.equal(r.received.at(-1)!.body.id, oldestFirst[0]!.eventId);
  assert.ok(signedWith(SECRET, r.received.at(-1)!));
  const missing = await server.call("POST", `/api/admin/webhooks/${id}/deliveries/999999/resend`);
  assert.equal(missing.status, 404, missing.text);
  assert.match(missing.json.error, /Delivery "999999" does not exist/);
});

test("nothing is sent for a refused add, a refused or rolled-back update, or a unit undone in a group commit", async () => {
  const r = await receiver();
  // Every bloc, present and future: this one included.
  const reply = await server.call("POST", "/api/admin/webhooks", { json: { url: r.url, secret: SECRET } });
  assert.equal(reply.status, 201, reply.text);
  assert.equal(reply.json.blocs, null);
  const seqBefore = await server.ctx.store.events.lastEventSeq(blocId);

  await addRecord(server, blocId, { field_1: "U-1", field_3: "S-1" }, writer.token);
  // Refused before its transaction: an unknown field.
  const unknown = await server.call("POST", "/api/add-data", { token: writer.token, json: { scanStationID: blocId, dataToAdd: JSON.stringify({ nope: "x" }) } });
  assert.equal(unknown.status, 400, unknown.text);
  // Refused inside it, after the bloc is locked: a taken unique value.
  const taken = await server.call("POST", "/api/add-data", { token: writer.token, json: { scanStationID: blocId, dataToAdd: JSON.stringify({ field_3: "S-1" }) } });
  assert.equal(taken.status, 400, taken.text);
  // Six at once with one unique value share a group commit: one is kept, five are undone in their savepoints.
  const racers = await Promise.all(Array.from({ length: 6 }, () => server.call("POST", "/api/add-data", {
    token: writer.token, json: { scanStationID: blocId, dataToAdd: JSON.stringify({ field_1: "race", field_3: "S-2" }) },
  })));
  assert.deepEqual(racers.map((x) => x.status).sort(), [200, 400, 400, 400, 400, 400]);
  // An update refused inside its transaction: it would give a second record S-1.
  const clash = await server.call("POST", "/api/update-records-by-matching-values", {
    token: writer.token, json: { blocId, fieldsToUpdate: { field_3: "S-1" }, searchItems: { field_1: "race" } },
  });
  assert.equal(clash.status, 400, clash.text);
  // A transaction that appended its events and then failed: rolled back, with them.
  await assert.rejects(server.ctx.store.transaction(async (tx) => {
    await tx.events.appendEvents(blocId, [recordAdded({ id: 1, createdAt: server.ctx.now(), userId: "1", submittedStatus: 1, jobId: null, values: {} }, null)]);
    throw new Error("rolled back on purpose");
  }), /rolled back on purpose/);
  await addRecord(server, blocId, { field_1: "sentinel" }, writer.token);

  await r.until(() => r.acknowledged.length >= 3, "3 events acknowledged");
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.deepEqual(r.received.map((d) => (d.body.record as Record<string, unknown>).field_1), ["U-1", "race", "sentinel"]);
  assertInOrder(r.received);
  assert.equal(r.received[0]!.body.seq, seqBefore + 1, "numbers left no gap for what was undone");
  assert.equal(await server.ctx.store.events.lastEventSeq(blocId), seqBefore + 3);
});

test("changes to a bloc's fields, settings and access are events too, for webhooks that ask for them", async () => {
  const r = await receiver();
  await webhook(r.url, { events: ["bloc.updated", "access.updated"] });
  const field = await server.call("POST", `/api/admin/blocs/${blocId}/fields`, { json: { name: "Shift" } });
  assert.equal(field.status, 201, field.text);
  assert.equal((await server.call("PATCH", `/api/admin/blocs/${blocId}`, { json: { acceptingData: true } })).status, 200);
  assert.equal((await server.call("PUT", `/api/admin/blocs/${blocId}/restrictions/${writer.id}`, { json: { mode: "own" } })).status, 200);
  assert.equal((await server.call("DELETE", `/api/admin/blocs/${blocId}/restrictions/${writer.id}`)).status, 204);
  await addRecord(server, blocId, { field_1: "not asked for" }, writer.token);
  await r.until(() => r.acknowledged.length === 4, "4 events acknowledged");
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.deepEqual(r.received.map((d) => [d.body.type, (d.body.change as { kind: string }).kind]), [
    ["bloc.updated", "field.added"], ["bloc.updated", "settings"], ["access.updated", "restriction.set"], ["access.updated", "restriction.removed"],
  ]);
  assert.deepEqual(r.received[2]!.body.change, { kind: "restriction.set", userId: writer.id, mode: "own" });
  assertInOrder(r.received);
  assert.equal(configChanged("bloc.updated", "x", { kind: "k" }).recordId, null);
});

test("a receiver that never answers holds up neither the API nor another webhook of the same bloc", async () => {
  const dead = await receiver();
  dead.answer = () => "hang";
  const live = await receiver();
  await webhook(dead.url);
  await webhook(live.url);
  const ids: number[] = [];
  for (let i = 0; i < 5; i += 1) ids.push(await addRecord(server, blocId, { field_1: `H-${i}` }, writer.token));
  await live.until(() => live.acknowledged.length === 5, "the live receiver has all 5");
  assert.deepEqual(live.acknowledged.map((d) => (d.body.record as { service_entry_row_id: number }).service_entry_row_id), ids);
  assert.equal(dead.received.length, 1, "the hung receiver holds its first event, and gets nothing after it");
});

test("webhook input is checked, and a removed webhook stops receiving", async () => {
  const bad = async (body: Record<string, unknown>, status: number, pattern: RegExp): Promise<void> => {
    const reply = await server.call("POST", "/api/admin/webhooks", { json: body });
    assert.equal(reply.status, status, reply.text);
    assert.match(reply.json.error, pattern);
  };
  await bad({ url: "ftp://x.example/" }, 400, /http:\/\/ or https:\/\//);
  await bad({ url: "not a url" }, 400, /absolute http/);
  await bad({ url: "http://x.example/", events: ["record.removed"] }, 400, /events/);
  await bad({ url: "http://x.example/", events: [] }, 400, /at least one/);
  await bad({ url: "http://x.example/", blocs: ["no-such-bloc"] }, 404, /no-such-bloc/);
  await bad({ url: "http://x.example/", secret: "short" }, 400, /secret must be 16/);
  const generated = await server.call("POST", "/api/admin/webhooks", { json: { url: "http://127.0.0.1:9/", blocs: [blocId] } });
  assert.equal(generated.status, 201, generated.text);
  assert.ok(generated.json.secret.length >= 40, "a generated secret is long");
  const member = await server.call("GET", "/api/admin/webhooks", { token: writer.token });
  assert.equal(member.status, 403, "members may not list webhooks");

  const r = await receiver();
  const id = await webhook(r.url);
  await addRecord(server, blocId, { field_1: "before removal" }, writer.token);
  await r.until(() => r.acknowledged.length === 1, "1 event acknowledged");
  assert.equal((await server.call("DELETE", `/api/admin/webhooks/${id}`)).status, 204);
  assert.equal((await server.call("DELETE", `/api/admin/webhooks/${id}`)).status, 404);
  assert.equal((await server.call("GET", `/api/admin/webhooks/${id}/deliveries`)).status, 404);
  await addRecord(server, blocId, { field_1: "after removal" }, writer.token);
  await new Promise((resolve) => setTimeout(resolve, 400));
  assert.equal(r.received.length, 1, "nothing after removal");
});

test("events of large records are read in batches bounded by bytes, and every one is still delivered", async () => {
  const r = await receiver();
  await webhook(r.url);
  const before = await server.ctx.store.events.lastEventSeq(blocId);
  // About 60 KB of data each, under the 64 KiB value limit.
  const big = (tag: string): Record<string, string> => ({ field_1: tag, field_2: `${tag}-${"x".repeat(60_000)}` });
  const added = await server.call("POST", `/api/admin/blocs/${blocId}/fields`, { json: { name: "Notes" } });
  assert.equal(added.status, 201, added.text);
  const ids: number[] = [];
  for (const tag of ["B1", "B2", "B3"]) ids.push(await addRecord(server, blocId, big(tag), writer.token));
  const recordEvents = async (maxBytes: number) =>
    (await server.ctx.store.events.eventsAfter(blocId, before + 1, 100, maxBytes)).map((e) => e.recordId);
  assert.deepEqual(await recordEvents(1), [ids[0]], "under any budget, the first event");
  assert.deepEqual(await recordEvents(50_000), [ids[0]], "the second would start past the budget");
  assert.deepEqual(await recordEvents(100_000), [ids[0], ids[1]], "each event that starts within the budget");
  assert.deepEqual(await recordEvents(10_000_000), ids);
  await r.until(() => r.acknowledged.filter((d) => d.body.type === "record.added").length === 3, "the 3 large events");
  assert.deepEqual(r.acknowledged.filter((d) => d.body.type === "record.added")
    .map((d) => (d.body.record as Record<string, string>).field_2!.length), [60_003, 60_003, 60_003]);
  assertInOrder(r.acknowledged);
});

test("an event failing for longer than BLOC_WEBHOOK_RETRY_FOR_MS is given up on, logged so, and the next one goes", async () => {
  const quick = await startServer({ BLOC_WEBHOOK_RETRY_MS: "50", BLOC_WEBHOOK_RETRY_FOR_MS: "400", BLOC_EVENTS_POLL_MS: "50" });
  try {
    const bloc = await quick.call("POST", "/api/admin/blocs", { json: { name: "Doomed", fields: [{ name: "Part" }] } });
    const r = await receiver();
    // The first event is refused for ever; every later one is acknowledged.
    let refusedId: string | undefined;
    r.answer = (_n, received) => {
      refusedId ??= received.body.id;
      return received.body.id === refusedId ? 500 : 200;
    };
    const hook = await quick.call("POST", "/api/admin/webhooks", { json: { url: r.url, blocs: [bloc.json.id], secret: SECRET } });
    assert.equal(hook.status, 201, hook.text);
    await addRecord(quick, bloc.json.id as string, { field_1: "never acknowledged" });
    await addRecord(quick, bloc.json.id as string, { field_1: "after it" });
    await r.until(() => r.acknowledged.length === 1, "the next event, once the first is given up on");
    assert.equal((r.acknowledged[0]!.body.record as Record<string, string>).field_1, "after it");
    const attempts = r.received.filter((d) => d.body.id === refusedId);
    assert.ok(attempts.length >= 3, `retried with backoff before giving up (${attempts.length} attempts)`);
    let log: { outcome: string; eventId: string }[] = [];
    for (let waited = 0; !log.some((d) => d.outcome === "delivered") && waited < 10_000; waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      log = (await quick.call("GET", `/api/admin/webhooks/${hook.json.id}/deliveries`)).json.deliveries;
    }
    const outcomes = [...log].reverse().map((d) => d.outcome);
    assert.equal(outcomes.at(-2), "gave-up", outcomes.join(", "));
    assert.equal(outcomes.at(-1), "delivered");
    assert.ok(outcomes.slice(0, -2).every((o) => o === "failed"));
  } finally {
    await quick.close();
  }
});

test("credentials in a webhook's URL are used for delivery but shown nowhere: not in its answer, listing or log", async () => {
  const r = await receiver();
  const port = new URL(r.url).port;
  const reply = await server.call("POST", "/api/admin/webhooks", {
    json: { url: `http://hook-user:hook-pa55@127.0.0.1:${port}/in?x=1`, blocs: [blocId], secret: SECRET },
  });
  assert.equal(reply.status, 201, reply.text);
  assert.equal(reply.json.url, `http://***@127.0.0.1:${port}/in?x=1`);
  await addRecord(server, blocId, { field_1: "with credentials" }, writer.token);
  await r.until(() => r.acknowledged.length === 1, "the event, delivered");
  assert.equal(r.acknowledged[0]!.headers.authorization, `Basic ${Buffer.from("hook-user:hook-pa55").toString("base64")}`, "delivery uses them");
  const listed = await server.call("GET", "/api/admin/webhooks");
  assert.equal(listed.json.webhooks.find((w: { id: string }) => w.id === reply.json.id).url, `http://***@127.0.0.1:${port}/in?x=1`);
  const log = await logOf(reply.json.id as string, 1);
  for (const text of [reply.text, listed.text, JSON.stringify(log)]) {
    assert.equal(text.includes("hook-pa55") || text.includes("hook-user"), false, text.slice(0, 300));
  }
});

test("with BLOC_WEBHOOK_QUOTE_REPLIES=1 a failed attempt's log quotes the receiver's answer; without, a redirect's location is not told either", async () => {
  const quoting = await startServer({ BLOC_WEBHOOK_RETRY_MS: "50", BLOC_EVENTS_POLL_MS: "50", BLOC_WEBHOOK_QUOTE_REPLIES: "1" });
  try {
    const bloc = await quoting.call("POST", "/api/admin/blocs", { json: { name: "Quoted", fields: [{ name: "Part" }] } });
    const r = await receiver();
    r.answer = (n) => (n === 1 ? 500 : 200);
    const hook = await quoting.call("POST", "/api/admin/webhooks", { json: { url: r.url, blocs: [bloc.json.id], secret: SECRET } });
    assert.equal(hook.status, 201, hook.text);
    await addRecord(quoting, bloc.json.id as string, { field_1: "quoted" });
    await r.until(() => r.acknowledged.length === 1, "acknowledged on the second attempt");
    let log: { outcome: string; error: string | null }[] = [];
    for (let waited = 0; log.length < 2 && waited < 10_000; waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      log = (await quoting.call("GET", `/api/admin/webhooks/${hook.json.id}/deliveries`)).json.deliveries;
    }
    assert.deepEqual([...log].reverse().map((d) => [d.outcome, d.error]), [["failed", "HTTP 500: not now"], ["delivered", null]]);
  } finally {
    await quoting.close();
  }

  // An internal address that redirects: by default the log says a redirect came, not where to or what it said.
  const secretive = http.createServer((_request, response) => {
    response.writeHead(302, { location: "http://10.0.0.1/internal-secret-path" }).end("internal answer text");
  });
  await new Promise<void>((resolve) => secretive.listen(0, "127.0.0.1", resolve));
  try {
    const port = (secretive.address() as { port: number }).port;
    const hook = await webhook(`http://127.0.0.1:${port}/`);
    await addRecord(server, blocId, { field_1: "to the redirect" }, writer.token);
    const [first] = [...await logOf(hook, 1)].reverse();
    assert.equal(first!.error, "HTTP 302 (redirects are not followed), 20 bytes");
    assert.equal((await server.call("DELETE", `/api/admin/webhooks/${hook}`)).status, 204);
  } finally {
    await new Promise((resolve) => secretive.close(resolve));
  }
});

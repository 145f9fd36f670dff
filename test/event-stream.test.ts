import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import crypto from "node:crypto";
import { call } from "./support/http.js";
import { freshWorkspace, startProcess } from "./support/process.js";
import { addMember, addRecord, startServer, type Member, type TestServer } from "./support/server.js";
import { SseClient } from "./support/sse.js";

/**
 * GET /api/events: a bloc's record events as Server-Sent Events, each shown only to
 * subscribers who may see its record (restrictions, profile filters, scoped tokens, as
 * they stand at each event), resumable after Last-Event-ID without gaps or repeats, and
 * fed by every process on the store.
 */

let server: TestServer;
let blocId: string;
let dublin: Member;
let owner: Member;
const streams: SseClient[] = [];

async function open(token: string, lastEventId?: string, path = `/api/events?blocId=${blocId}`): Promise<SseClient> {
  const stream = await SseClient.open(server.url, path, token, lastEventId);
  streams.push(stream);
  if (stream.status === 200) await stream.until(() => stream.events.some((e) => e.event === "ready"), "the ready event");
  return stream;
}

function parts(stream: SseClient, type = "record.added"): string[] {
  return stream.of(type).map((e) => String(e.body.record.field_1));
}

async function grant(userId: string, rights: Record<string, boolean>): Promise<void> {
  const reply = await server.call("PUT", `/api/admin/blocs/${blocId}/access/${userId}`, { json: rights });
  assert.equal(reply.status, 200, reply.text);
}

async function profile(userId: string, values: string[]): Promise<void> {
  const reply = await server.call("PUT", `/api/admin/users/${userId}`, { json: { profile: values } });
  assert.equal(reply.status, 200, reply.text);
}

before(async () => {
  server = await startServer({ BLOC_EVENTS_POLL_MS: "50" });
  const bloc = await server.call("POST", "/api/admin/blocs", {
    json: { name: "Sites", fields: [{ name: "Part" }, { name: "Site", applyProfileFilter: true }] },
  });
  assert.equal(bloc.status, 201, bloc.text);
  blocId = bloc.json.id as string;
  dublin = await addMember(server, { blocId, read: true, add: true });
  await profile(dublin.id, ["Dublin"]);
  owner = await addMember(server, { blocId, read: true, add: true });
  await profile(owner.id, ["Dublin", "Cork"]);
  const own = await server.call("PUT", `/api/admin/blocs/${blocId}/restrictions/${owner.id}`, { json: { mode: "own" } });
  assert.equal(own.status, 200, own.text);
});

after(async () => {
  for (const stream of streams) stream.close();
  await server.close();
});

test("two users with different restrictions each see only the events of records they may see", async () => {
  const [d, o, a] = [await open(dublin.token), await open(owner.token), await open(server.adminToken)];
  assert.match((await server.call("GET", "/metrics")).text, /^bloc_event_streams [3-9]$/m, "the open streams are counted");
  const a1 = await addRecord(server, blocId, { field_1: "A1", field_2: "Dublin" });
  const a2 = await addRecord(server, blocId, { field_1: "A2", field_2: "Cork" });
  await addRecord(server, blocId, { field_1: "O1", field_2: "Cork" }, owner.token);
  await addRecord(server, blocId, { field_1: "O2", field_2: "Dublin" }, owner.token);
  await addRecord(server, blocId, { field_1: "D1", field_2: "Dublin" }, dublin.token);
  // An update that brings a Cork record into Dublin's view, and one Dublin cannot see at all.
  const moved = await server.call("POST", "/api/update-records-by-matching-values", {
    json: { blocId, fieldsToUpdate: { field_2: "Dublin" }, searchItems: { field_1: "A2" } },
  });
  assert.equal(moved.status, 200, moved.text);
  const hidden = await server.call("POST", "/api/update-records-by-matching-values", {
    json: { blocId, fieldsToUpdate: { field_1: "O1b" }, searchItems: { field_1: "O1" } },
  });
  assert.equal(hidden.status, 200, hidden.text);
  await addRecord(server, blocId, { field_1: "last", field_2: "Dublin" });

  await a.until(() => a.of("record.added", "record.updated").length === 8, "the admin's 8 events");
  await d.until(() => parts(d).includes("last"), "Dublin's last event");
  await o.until(() => parts(o, "record.updated").includes("O1b"), "the owner's update");

  assert.deepEqual(parts(d), ["A1", "O2", "D1", "last"]);
  assert.deepEqual(parts(o), ["O1", "O2"]);
  assert.deepEqual(parts(a), ["A1", "A2", "O1", "O2", "D1", "last"]);

  // A record brought into view arrives without the values it had while hidden.
  const [dMoved] = d.of("record.updated");
  assert.equal(d.of("record.updated").length, 1);
  assert.deepEqual({ ...dMoved!.body.record, created_at: "" },
    { service_entry_row_id: a2, created_at: "", user_id: "1", submitted_status: 1, field_1: "A2", field_2: "Dublin" });
  assert.equal("changes" in dMoved!.body, false);
  const aMoved = a.of("record.updated").find((e) => e.body.record.service_entry_row_id === a2)!;
  assert.deepEqual(aMoved.body.changes, { field_2: { from: "Cork", to: "Dublin" } });
  // Who changed it, and the event's number in the bloc, are the admin's to know.
  assert.equal(typeof aMoved.body.seq, "number");
  assert.deepEqual(aMoved.body.actor, { userId: "1", tokenId: aMoved.body.actor.tokenId });
  for (const e of [...d.of("record.added", "record.updated"), ...o.of("record.added", "record.updated")]) {
    assert.equal("seq" in e.body || "actor" in e.body, false, "members see neither numbers nor actors");
  }
  // Nothing of a hidden record or value anywhere in what the Dublin user received. (Only the
  // data: an opaque ID is 22 random-looking base64url characters, which may hold "O1" by chance.)
  const seen = d.events.map((e) => e.data).join("\n");
  for (const secret of ["Cork", "O1", "O1b"]) assert.equal(seen.includes(secret), false, `Dublin's stream never holds "${secret}"`);
  assert.ok(d.of("record.added").every((e) => e.body.blocId === blocId && e.id !== undefined && !/^\d+$/.test(e.id)),
    "IDs are opaque: they do not count the hidden events between them");
  assert.equal(a1, d.of("record.added")[0]!.body.record.service_entry_row_id);
  for (const s of [d, o, a]) s.close();
});

test("a reconnect with Last-Event-ID gets every event missed meanwhile, and none twice", async () => {
  const first = await open(dublin.token);
  for (const p of ["R1", "R2", "R3"]) await addRecord(server, blocId, { field_1: p, field_2: "Dublin" });
  await first.until(() => parts(first).length === 3, "3 events");
  const lastId = first.lastEventId!;
  first.close();
  for (const p of ["M1", "C1", "M2", "M3"]) await addRecord(server, blocId, { field_1: p, field_2: p === "C1" ? "Cork" : "Dublin" });
  await server.call("POST", "/api/update-records-by-matching-values", { json: { blocId, fieldsToUpdate: { field_1: "M4" }, searchItems: { field_1: "M3" } } });

  const again = await open(dublin.token, lastId);
  await again.until(() => again.of("record.updated").length === 1, "the missed update");
  assert.deepEqual(parts(again), ["M1", "M2", "M3"], "the missed adds, in order, and nothing before them");
  assert.deepEqual(again.of("record.updated").map((e) => [e.body.record.field_1, "changes" in e.body]), [["M4", false]],
    "the update, without former values: a member may not read a record's history");
  await addRecord(server, blocId, { field_1: "live", field_2: "Dublin" });
  await again.until(() => parts(again).includes("live"), "a live event after the missed ones");
  assert.equal(again.of("reset").length, 0);

  // The same through the query string (for clients that cannot set headers).
  const byQuery = await open(dublin.token, undefined, `/api/events?blocId=${blocId}&lastEventId=${encodeURIComponent(lastId)}`);
  await byQuery.until(() => parts(byQuery).includes("live"), "the missed events through ?lastEventId");
  assert.deepEqual(parts(byQuery), ["M1", "M2", "M3", "live"]);

  // An ID this service never gave (or another bloc's) cannot be opened: the stream says so and starts from now.
  const forged = await open(dublin.token, "MTIz");
  await forged.until(() => forged.of("reset").length === 1, "a reset");
  await addRecord(server, blocId, { field_1: "after reset", field_2: "Dublin" });
  await forged.until(() => parts(forged).length === 1, "one event after the reset");
  assert.deepEqual(parts(forged), ["after reset"]);
  for (const s of [again, byQuery, forged]) s.close();
});

test("a reset's ID tells a reader nothing of hidden changes, and resuming from it loses nothing of theirs", async () => {
  const galway = await addMember(server, { blocId, read: true });
  await profile(galway.id, ["Galway"]);
  // An ID this service never gave makes the stream start from now with a reset: a probe.
  const probe = async (): Promise<string> => {
    const stream = await open(galway.token, "MTIz");
    await stream.until(() => stream.of("reset").length === 1, "a reset");
    stream.close();
    return stream.of("reset")[0]!.id!;
  };
  const first = await probe();
  await addRecord(server, blocId, { field_1: "hidden 1", field_2: "Cork" });
  await addRecord(server, blocId, { field_1: "hidden 2", field_2: "Dublin" });
  assert.equal(await probe(), first, "records the reader may not see leave the reset's ID as it was");

  // Resuming from it gets what the reader may see that came meanwhile, and no reset.
  await addRecord(server, blocId, { field_1: "G1", field_2: "Galway" });
  const resumed = await open(galway.token, first);
  await resumed.until(() => parts(resumed).includes("G1"), "the Galway record added while away");
  assert.deepEqual(parts(resumed), ["G1"]);
  assert.equal(resumed.of("reset").length, 0);
  resumed.close();

  // Once they see something new, a reset's ID is that event's: it moves only for what they see.
  await addRecord(server, blocId, { field_1: "hidden 3", field_2: "Cork" });
  const later = await probe();
  assert.notEqual(later, first);
  assert.equal(later, resumed.of("record.added")[0]!.id);
});

test("an event ID resumes only the reader it was given to, and former values go only to those who may read history", async () => {
  const admin = await open(server.adminToken);
  const id = await addRecord(server, blocId, { field_1: "H1", field_2: "Dublin" });
  await admin.until(() => parts(admin).includes("H1"), "the admin's event of the add");
  const adminsId = admin.lastEventId!;
  const updated = await server.call("POST", "/api/update-records-by-matching-values", {
    json: { blocId, fieldsToUpdate: { field_1: "H2" }, searchItems: { field_1: "H1" } },
  });
  assert.equal(updated.status, 200, updated.text);
  await admin.until(() => parts(admin, "record.updated").includes("H2"), "the admin's event of the update");
  assert.deepEqual(admin.of("record.updated").at(-1)!.body.changes, { field_1: { from: "H1", to: "H2" } });

  // Granted read after the update: the record's history is refused them...
  const late = await addMember(server, { blocId, read: true });
  await profile(late.id, ["Dublin"]);
  const history = await server.call("GET", `/api/admin/blocs/${blocId}/records/${id}/history`, { token: late.token });
  assert.equal(history.status, 403);
  // ...and the admin's ID does not open for them: the stream starts from now, without the old update.
  const stolen = await open(late.token, adminsId);
  await stolen.until(() => stolen.of("reset").length === 1, "a reset");
  await addRecord(server, blocId, { field_1: "H3", field_2: "Dublin" });
  await stolen.until(() => parts(stolen).includes("H3"), "an event after the reset");
  assert.deepEqual(stolen.of("record.added", "record.updated").map((e) => e.body.record.field_1), ["H3"]);

  // Their own IDs resume them; updates they see live come without former values.
  const own = stolen.lastEventId!;
  stolen.close();
  await server.call("POST", "/api/update-records-by-matching-values", {
    json: { blocId, fieldsToUpdate: { field_1: "H4" }, searchItems: { field_1: "H3" } },
  });
  const resumed = await open(late.token, own);
  await resumed.until(() => resumed.of("record.updated").length === 1, "the update missed meanwhile");
  assert.equal(resumed.of("reset").length, 0);
  const [seen] = resumed.of("record.updated");
  assert.equal(seen!.body.record.field_1, "H4");
  assert.equal("changes" in seen!.body, false, "no former values for a reader refused the history");
  assert.equal(resumed.events.map((e) => e.data).join("\n").includes("H3\""), false);
  // A scoped admin token may not use the admin API either: the same for it.
  const scoped = await server.call("POST", "/api/admin/users/1/tokens", { json: { blocs: [blocId] } });
  assert.equal(scoped.status, 201, scoped.text);
  const scopedStream = await open(scoped.json.token as string);
  await server.call("POST", "/api/update-records-by-matching-values", {
    json: { blocId, fieldsToUpdate: { field_1: "H5" }, searchItems: { field_1: "H4" } },
  });
  await scopedStream.until(() => scopedStream.of("record.updated").length === 1, "the scoped admin's update");
  assert.equal("changes" in scopedStream.of("record.updated")[0]!.body, false);
  for (const stream of [admin, resumed, scopedStream]) stream.close();
});

test("access withdrawn or narrowed mid-stream applies from the next event on", async () => {
  const member = await addMember(server, { blocId, read: true });
  await profile(member.id, ["Dublin"]);
  const stream = await open(member.token);
  await addRecord(server, blocId, { field_1: "seen", field_2: "Dublin" });
  await stream.until(() => parts(stream).length === 1, "the first event");
  await profile(member.id, ["Cork"]);
  await addRecord(server, blocId, { field_1: "now hidden", field_2: "Dublin" });
  await addRecord(server, blocId, { field_1: "now seen", field_2: "Cork" });
  await stream.until(() => parts(stream).length === 2, "the Cork event");
  assert.deepEqual(parts(stream), ["seen", "now seen"]);
  await grant(member.id, {});
  await addRecord(server, blocId, { field_1: "after removal", field_2: "Cork" });
  await stream.until(() => stream.ended, "the stream ends");
  assert.deepEqual(stream.of("error").map((e) => e.body), [{ error: "You are not authorized to access this bloc" }]);
  assert.deepEqual(parts(stream), ["seen", "now seen"]);

  // A scoped token for another bloc, and a revoked token: refused like get-data refuses.
  const other = await server.call("POST", "/api/admin/blocs", { json: { name: "Other", fields: [{ name: "X" }] } });
  const scoped = await server.call("POST", `/api/admin/users/${dublin.id}/tokens`, { json: { blocs: [other.json.id] } });
  const refused = await open(scoped.json.token as string);
  assert.equal(refused.status, 401);
  assert.deepEqual(JSON.parse(refused.text), { error: "You are not authorized to access this bloc" });
  const live = await open(scoped.json.token as string, undefined, `/api/events?blocId=${other.json.id}`);
  assert.equal(live.status, 401, "no read grant on the other bloc either");
  const revocable = await server.call("POST", `/api/admin/users/${dublin.id}/tokens`, { json: {} });
  const revoked = await open(revocable.json.token as string);
  await server.call("DELETE", `/api/admin/tokens/${revocable.json.id}`);
  await addRecord(server, blocId, { field_1: "after revocation", field_2: "Dublin" });
  await revoked.until(() => revoked.ended, "the revoked token's stream ends");
  assert.deepEqual(revoked.of("error").map((e) => e.body), [{ error: "The access token is invalid, expired or revoked" }]);
});

test("refusals come as JSON under `error`, before any stream starts", async () => {
  const none = await SseClient.open(server.url, `/api/events?blocId=${blocId}`, "not-a-token");
  assert.equal(none.status, 401);
  assert.deepEqual(JSON.parse(none.text), { error: "The access token is invalid, expired or revoked" });
  const missing = await SseClient.open(server.url, "/api/events", server.adminToken);
  assert.equal(missing.status, 400);
  assert.match(JSON.parse(missing.text).error, /blocId/);
  const unknownBloc = await SseClient.open(server.url, "/api/events?blocId=nope", dublin.token);
  assert.equal(unknownBloc.status, 401, "a missing bloc reads as a forbidden one to members");
  const tooMany = await startServer({ BLOC_EVENT_STREAMS_MAX: "1" });
  try {
    const held = await SseClient.open(tooMany.url, "/api/events?blocId=none", tooMany.adminToken);
    assert.equal(held.status, 404, "admins are told a bloc does not exist");
    const made = await tooMany.call("POST", "/api/admin/blocs", { json: { name: "B", fields: [{ name: "X" }] } });
    const one = await SseClient.open(tooMany.url, `/api/events?blocId=${made.json.id}`, tooMany.adminToken);
    assert.equal(one.status, 200);
    const two = await SseClient.open(tooMany.url, `/api/events?blocId=${made.json.id}`, tooMany.adminToken);
    assert.equal(two.status, 503);
    assert.match(JSON.parse(two.text).error, /most event streams \(1\)/);
    one.close();
    // A server stopping ends the streams it holds rather than wait for them.
    const three = await SseClient.open(tooMany.url, `/api/events?blocId=${made.json.id}`, tooMany.adminToken).catch(() => undefined);
    await tooMany.close();
    if (three?.status === 200) await three.until(() => three.ended, "the stream ends with the server");
  } finally {
    await tooMany.close().catch(() => undefined);
  }
});

test("a revoked token or a removed grant ends a stream within seconds, though no event comes", async () => {
  const quiet = await server.call("POST", "/api/admin/blocs", { json: { name: "Quiet", fields: [{ name: "X" }] } });
  assert.equal(quiet.status, 201, quiet.text);
  const path = `/api/events?blocId=${quiet.json.id}`;
  const member = await addMember(server, { blocId: quiet.json.id as string, read: true });
  const revocable = await server.call("POST", `/api/admin/users/${member.id}/tokens`, { json: {} });
  const [byToken, byGrant] = [await open(revocable.json.token as string, undefined, path), await open(member.token, undefined, path)];

  const revokedAt = Date.now();
  assert.equal((await server.call("DELETE", `/api/admin/tokens/${revocable.json.id}`)).status, 204);
  await byToken.until(() => byToken.ended, "the revoked token's stream ends", 6_000);
  assert.ok(Date.now() - revokedAt < 6_000);
  assert.deepEqual(byToken.of("error").map((e) => e.body), [{ error: "The access token is invalid, expired or revoked" }]);
  assert.equal(byGrant.ended, false, "the user's other token still reads");

  const removedAt = Date.now();
  const removed = await server.call("DELETE", `/api/admin/blocs/${quiet.json.id}/access/${member.id}`);
  assert.equal(removed.status, 204, removed.text);
  await byGrant.until(() => byGrant.ended, "the stream of a reader whose grant went ends", 6_000);
  assert.ok(Date.now() - removedAt < 6_000);
  assert.deepEqual(byGrant.of("error").map((e) => e.body), [{ error: "You are not authorized to access this bloc" }]);
});

test("one user holds at most BLOC_EVENT_STREAMS_PER_USER streams, whatever their tokens; others still get theirs", async () => {
  const limited = await startServer({ BLOC_EVENT_STREAMS_PER_USER: "2" });
  const held: SseClient[] = [];
  try {
    const made = await limited.call("POST", "/api/admin/blocs", { json: { name: "B", fields: [{ name: "X" }] } });
    const path = `/api/events?blocId=${made.json.id}`;
    const greedy = await addMember(limited, { blocId: made.json.id as string, read: true });
    const other = await addMember(limited, { blocId: made.json.id as string, read: true });
    const second = await limited.call("POST", `/api/admin/users/${greedy.id}/tokens`, { json: {} });
    for (const token of [greedy.token, greedy.token]) {
      held.push(await SseClient.open(limited.url, path, token));
      assert.equal(held.at(-1)!.status, 200);
    }
    for (const token of [greedy.token, second.json.token as string]) {
      const refused = await SseClient.open(limited.url, path, token);
      assert.equal(refused.status, 429);
      assert.deepEqual(JSON.parse(refused.text), {
        error: "You hold your most event streams on this server (2); close one before opening another",
      });
    }
    held.push(await SseClient.open(limited.url, path, other.token));
    assert.equal(held.at(-1)!.status, 200, "another user still opens a stream");
    // A stream closed frees its slot.
    held[0]!.close();
    let again = await SseClient.open(limited.url, path, greedy.token);
    for (let i = 0; again.status === 429 && i < 50; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      again = await SseClient.open(limited.url, path, greedy.token);
    }
    held.push(again);
    assert.equal(again.status, 200);
  } finally {
    for (const stream of held) stream.close();
    await limited.close();
  }
});

test("an event written by a second process reaches a stream held by the first", { timeout: 60_000 }, async () => {
  const workspace = await freshWorkspace("stream-pair");
  const admin = `pair-admin-${crypto.randomBytes(8).toString("hex")}`;
  const env = { DATABASE_URL: workspace.databaseUrl, BLOC_ADMIN_TOKEN: admin, BLOC_EVENTS_POLL_MS: "100" };
  const first = await startProcess(env, workspace.cwd);
  const second = await startProcess(env, workspace.cwd);
  try {
    const bloc = await call(first.url, "POST", "/api/admin/blocs", { token: admin, json: { name: "Pair", fields: [{ name: "Part" }] } });
    const stream = await SseClient.open(first.url, `/api/events?blocId=${bloc.json.id}`, admin);
    streams.push(stream);
    await stream.until(() => stream.events.some((e) => e.event === "ready"), "ready");
    for (const part of ["from the second", "and again"]) {
      const added = await call(second.url, "POST", "/api/add-data", {
        token: admin, json: { scanStationID: bloc.json.id, dataToAdd: JSON.stringify({ field_1: part }) },
      });
      assert.equal(added.status, 200, added.text);
    }
    await stream.until(() => stream.of("record.added").length === 2, "both events through the first process");
    assert.deepEqual(stream.of("record.added").map((e) => e.body.record.field_1), ["from the second", "and again"]);
    stream.close();
  } finally {
    await first.stop();
    await second.stop();
    await workspace.remove();
  }
});

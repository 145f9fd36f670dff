import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import crypto from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { call, type Reply } from "./support/http.js";
import { addBloc, addMember, startServer, type Member, type TestServer } from "./support/server.js";
import { freshWorkspace, startProcess, type Running } from "./support/process.js";
import { allRows } from "./support/recount.js";
import { postMultipart } from "./support/upload.js";
import { testEngine } from "./support/database.js";

/**
 * Safe retries: add-data with an Idempotency-Key. A repeat from the same user answers
 * what the first request answered and adds nothing; the key with another request is
 * refused (422); concurrent requests with one key make one record, in one process,
 * across two processes and across a restart; refused requests are not remembered.
 */

let server: TestServer;
let blocId: string;
let member: Member;

const DOCKET = "D-{seq:4}";

function key(): string {
  return `retry-${crypto.randomUUID()}`;
}

function add(base: string, token: string, idempotencyKey: string | undefined, body: Record<string, unknown>): Promise<Reply> {
  return call(base, "POST", "/api/add-data", {
    token, json: body, ...(idempotencyKey === undefined ? {} : { headers: { "idempotency-key": idempotencyKey } }),
  });
}

function records(): Promise<number> {
  return server.ctx.store.records.countRecords({ blocId });
}

before(async () => {
  server = await startServer();
  const bloc = await server.call("POST", "/api/admin/blocs", {
    json: {
      name: "Retries",
      fields: [{ name: "Part" }, { name: "Docket", type: "autogenerate", format: DOCKET }, { name: "Serial", unique: true }, { name: "Photo", type: "file" }],
    },
  });
  assert.equal(bloc.status, 201, bloc.text);
  blocId = bloc.json.id as string;
  member = await addMember(server, { blocId, add: true, read: true });
  // D-0001 is taken: a request sending it gets a replacement, which a repeat must report again.
  assert.equal((await add(server.url, server.adminToken, undefined, { scanStationID: blocId, dataToAdd: { field_2: "D-0001" } })).status, 200);
});

after(async () => {
  await server.close();
});

test("a repeat with the same key answers the first answer, byte for byte, and adds nothing", async () => {
  const k = key();
  const body = { scanStationID: blocId, jobID: null, dataToAdd: JSON.stringify({ field_1: "P-1", field_2: "D-0001" }) };
  const before = await records();
  const first = await add(server.url, member.token, k, body);
  assert.equal(first.status, 200, first.text);
  assert.deepEqual(first.json.autogenerateReplacements, [{ field: "field_2", sent: "D-0001", value: "D-0002" }]);
  for (let i = 0; i < 3; i += 1) {
    const again = await add(server.url, member.token, k, body);
    assert.equal(again.status, first.status);
    assert.equal(again.text, first.text, "the same body");
  }
  // The same request written another way (keys reordered, dataToAdd as an object) is the same request.
  const reordered = await add(server.url, member.token, k, { dataToAdd: { field_2: "D-0001", field_1: "P-1" }, scanStationID: blocId });
  assert.equal(reordered.text, first.text);
  assert.equal(await records(), before + 1, "one record");
});

test("the same key with another request is refused with 422 and adds nothing", async () => {
  const k = key();
  const body = { scanStationID: blocId, dataToAdd: { field_1: "P-2" } };
  assert.equal((await add(server.url, member.token, k, body)).status, 200);
  const before = await records();
  const other = await server.call("POST", "/api/admin/blocs", { json: { name: "Other", fields: [{ name: "Part" }] } });
  await server.call("PUT", `/api/admin/blocs/${other.json.id}/access/${member.id}`, { json: { add: true } });
  for (const changed of [
    { scanStationID: blocId, dataToAdd: { field_1: "P-3" } },
    { scanStationID: blocId, dataToAdd: { field_1: "P-2", field_3: "S-1" } },
    { scanStationID: blocId, dataToAdd: { field_1: "P-2" }, submittedStatus: 0 },
    { scanStationID: blocId, dataToAdd: { field_1: "P-2" }, jobID: "J-1" },
    { scanStationID: other.json.id, dataToAdd: { field_1: "P-2" } },
  ]) {
    const reply = await add(server.url, member.token, k, changed);
    assert.equal(reply.status, 422, `${JSON.stringify(changed)}: ${reply.text}`);
    assert.match(reply.json.error, /Idempotency-Key was already used with a different request/);
    assert.deepEqual(Object.keys(reply.json), ["error"]);
  }
  assert.equal(await records(), before);
  assert.equal(await server.ctx.store.records.countRecords({ blocId: other.json.id as string }), 0);
});

test("multipart: a repeat answers the same and adds no record and no file; other file content is another request", async () => {
  const k = key();
  const photo = crypto.randomBytes(20_000);
  const text = { scanStationID: blocId, dataToAdd: JSON.stringify({ field_1: "P-file" }) };
  const upload = (content: Buffer): ReturnType<typeof postMultipart> => postMultipart(server.url, member.token, text,
    [{ slug: "field_4", content, filename: "photo.bin" }], { headers: { "idempotency-key": k } });
  const filesBefore = (await allRows(server.ctx.store, "files")).length;
  const before = await records();
  const first = await upload(photo);
  assert.equal(first.status, 200, first.text);
  const again = await upload(photo);
  assert.equal(again.status, 200, again.text);
  assert.equal(again.text, first.text);
  const other = crypto.randomBytes(20_000);
  const changed = await upload(other);
  assert.equal(changed.status, 422, changed.text);
  assert.equal(await records(), before + 1);
  assert.equal((await allRows(server.ctx.store, "files")).length, filesBefore + 1, "one file row");
  const stored = (content: Buffer): Promise<boolean> => {
    const sha = crypto.createHash("sha256").update(content).digest("hex");
    return fs.stat(path.join(server.dir, "files", sha.slice(0, 2), sha)).then(() => true, () => false);
  };
  assert.ok(await stored(photo), "the first request's file is kept");
  assert.ok(!(await stored(other)), "the refused upload's content is not");
});

test("a refused request is not remembered: the client may correct it and send it again with the same key", async () => {
  const k = key();
  const taken = `S-${crypto.randomUUID()}`;
  assert.equal((await add(server.url, server.adminToken, undefined, { scanStationID: blocId, dataToAdd: { field_3: taken } })).status, 200);
  const keysBefore = (await allRows(server.ctx.store, "idempotency_keys")).length;
  const before = await records();
  // Refused before the transaction (an unknown field) and inside it (a unique value taken).
  const unknown = await add(server.url, member.token, k, { scanStationID: blocId, dataToAdd: { field_9: "x" } });
  assert.equal(unknown.status, 400, unknown.text);
  const duplicate = await add(server.url, member.token, k, { scanStationID: blocId, dataToAdd: { field_3: taken } });
  assert.equal(duplicate.status, 400, duplicate.text);
  assert.equal((await allRows(server.ctx.store, "idempotency_keys")).length, keysBefore, "no key kept for a refusal");
  const corrected = await add(server.url, member.token, k, { scanStationID: blocId, dataToAdd: { field_3: `${taken}-b` } });
  assert.equal(corrected.status, 200, corrected.text);
  const again = await add(server.url, member.token, k, { scanStationID: blocId, dataToAdd: { field_3: `${taken}-b` } });
  assert.equal(again.text, corrected.text);
  assert.equal(await records(), before + 1);
});

test("a key that is empty, too long or not printable ASCII is refused with 400 before anything is stored", async () => {
  const before = await records();
  for (const bad of ["", "k".repeat(256), "tab\there", "caf\u00e9"]) {
    const reply = await add(server.url, member.token, bad, { scanStationID: blocId, dataToAdd: { field_1: "P-bad" } });
    assert.equal(reply.status, 400, `${JSON.stringify(bad)}: ${reply.text}`);
    assert.match(reply.json.error, /Idempotency-Key must be 1 to 255 printable ASCII characters/);
  }
  const multipart = await postMultipart(server.url, member.token, { scanStationID: blocId, dataToAdd: "{}" },
    [{ slug: "field_4", content: Buffer.from("x"), filename: "x.bin" }], { headers: { "idempotency-key": "k".repeat(256) } });
  assert.equal(multipart.status, 400, multipart.text);
  assert.equal((await add(server.url, member.token, "k".repeat(255), { scanStationID: blocId, dataToAdd: {} })).status, 200, "255 characters are accepted");
  assert.equal(await records(), before + 1);
});

test("another user's request with the same key is independent", async () => {
  const k = key();
  const body = { scanStationID: blocId, dataToAdd: { field_1: "P-shared" } };
  const mine = await add(server.url, member.token, k, body);
  const theirs = await add(server.url, server.adminToken, k, body);
  assert.equal(mine.status, 200);
  assert.equal(theirs.status, 200);
  assert.notEqual(theirs.json.returnedStationID, mine.json.returnedStationID);
  // And a different request under the same key is theirs to make.
  const other = await add(server.url, (await addMember(server, { blocId, add: true })).token, k, { scanStationID: blocId, dataToAdd: { field_1: "P-other" } });
  assert.equal(other.status, 200, other.text);
});

test("a repeat is checked for access like any request: a user who lost add is refused, not answered", async () => {
  const scanner = await addMember(server, { blocId, add: true });
  const k = key();
  const body = { scanStationID: blocId, dataToAdd: { field_1: "P-access" } };
  assert.equal((await add(server.url, scanner.token, k, body)).status, 200);
  await server.call("DELETE", `/api/admin/blocs/${blocId}/access/${scanner.id}`);
  const again = await add(server.url, scanner.token, k, body);
  assert.equal(again.status, 403, again.text);
  assert.deepEqual(Object.keys(again.json), ["error"]);
});

test("20 concurrent requests with one key make one record, and every answer is the same", async () => {
  const k = key();
  const before = await records();
  const body = { scanStationID: blocId, dataToAdd: { field_1: "P-burst", field_2: "D-0001" } };
  const replies = await Promise.all(Array.from({ length: 20 }, () => add(server.url, member.token, k, body)));
  for (const reply of replies) {
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.text, replies[0]!.text);
  }
  assert.equal(await records(), before + 1);
});

test("only the key's hash is stored, with the record's ID, in the record's transaction", async () => {
  const k = `plain-${crypto.randomUUID()}`;
  const reply = await add(server.url, member.token, k, { scanStationID: blocId, dataToAdd: { field_1: "P-hash" } });
  assert.equal(reply.status, 200);
  const rows = await allRows(server.ctx.store, "idempotency_keys");
  assert.ok(!JSON.stringify(rows).includes(k), "the key itself is nowhere");
  const row = rows.find((r) => r.key_hash === crypto.createHash("sha256").update(k).digest("hex"));
  assert.ok(row, "the key's SHA-256 is");
  assert.equal(row.user_id, member.id);
  assert.equal(row.record_id, reply.json.returnedStationID);
});

test("a key expires after BLOC_IDEMPOTENCY_SECONDS: a later repeat is a new request", async () => {
  const short = await startServer({ BLOC_IDEMPOTENCY_SECONDS: "1" });
  try {
    const id = await addBloc(short, "Short", ["Part"]);
    const k = key();
    const first = await add(short.url, short.adminToken, k, { scanStationID: id, dataToAdd: { field_1: "A" } });
    assert.equal(first.status, 200);
    await sleep(1500);
    const later = await add(short.url, short.adminToken, k, { scanStationID: id, dataToAdd: { field_1: "A" } });
    assert.equal(later.status, 200);
    assert.notEqual(later.json.returnedStationID, first.json.returnedStationID, "a new record");
    // And the expired key no longer binds its request: another one is accepted.
    await sleep(1500);
    const other = await add(short.url, short.adminToken, k, { scanStationID: id, dataToAdd: { field_1: "B" } });
    assert.equal(other.status, 200, other.text);
    assert.equal(await short.ctx.store.records.countRecords({ blocId: id }), 3);
    assert.equal((await allRows(short.ctx.store, "idempotency_keys")).length, 1, "one entry per user and key");
  } finally {
    await short.close();
  }
});

async function countOver(base: string, admin: string, id: string): Promise<number> {
  const reply = await call(base, "GET", "/api/get-data", { token: admin, json: { blocId: id, resultLimit: 1 } });
  assert.equal(reply.status, 200, reply.text);
  return reply.json.data.count as number;
}

test(`two server processes on one database (${testEngine()}): concurrent requests with one key make one record`, { timeout: 120_000 }, async () => {
  const workspace = await freshWorkspace("idem-pair");
  const admin = `idem-admin-${crypto.randomBytes(12).toString("hex")}`;
  const env = { DATABASE_URL: workspace.databaseUrl, BLOC_ADMIN_TOKEN: admin, BLOC_FILES_DIR: `${workspace.cwd}/files` };
  const running: Running[] = [];
  try {
    running.push(await startProcess(env, workspace.cwd));
    running.push(await startProcess(env, workspace.cwd));
    const [a, b] = running.map((r) => r.url) as [string, string];
    const bloc = await call(a, "POST", "/api/admin/blocs", {
      token: admin, json: { name: "Pair", fields: [{ name: "Part" }, { name: "Docket", type: "autogenerate", format: DOCKET }] },
    });
    assert.equal(bloc.status, 201, bloc.text);
    const id = bloc.json.id as string;
    for (let round = 0; round < 3; round += 1) {
      const k = key();
      const body = { scanStationID: id, dataToAdd: { field_1: `P-${round}` } };
      const replies = await Promise.all(Array.from({ length: 20 }, (_, i) => add(i % 2 === 0 ? a : b, admin, k, body)));
      for (const reply of replies) {
        assert.equal(reply.status, 200, reply.text);
        assert.equal(reply.text, replies[0]!.text);
      }
      assert.equal(await countOver(b, admin, id), round + 1, `round ${round}: one record`);
    }
  } finally {
    for (const r of running) await r.stop();
    await workspace.remove();
  }
});

test("a repeat after a restart answers the first answer and adds nothing", { timeout: 120_000 }, async () => {
  const workspace = await freshWorkspace("idem-restart");
  const admin = `idem-admin-${crypto.randomBytes(12).toString("hex")}`;
  const env = { DATABASE_URL: workspace.databaseUrl, BLOC_ADMIN_TOKEN: admin, BLOC_FILES_DIR: `${workspace.cwd}/files` };
  let running: Running | undefined;
  try {
    running = await startProcess(env, workspace.cwd);
    const bloc = await call(running.url, "POST", "/api/admin/blocs", {
      token: admin, json: { name: "Restart", fields: [{ name: "Part" }, { name: "Docket", type: "autogenerate", format: DOCKET }] },
    });
    const id = bloc.json.id as string;
    await add(running.url, admin, undefined, { scanStationID: id, dataToAdd: { field_2: "D-0001" } });
    const k = key();
    const body = { scanStationID: id, dataToAdd: { field_1: "P", field_2: "D-0001" } };
    const first = await add(running.url, admin, k, body);
    assert.equal(first.status, 200, first.text);
    assert.equal(first.json.autogenerateReplacements.length, 1);
    await running.stop();
    running = undefined;
    running = await startProcess(env, workspace.cwd);
    const again = await add(running.url, admin, k, body);
    assert.equal(again.status, 200);
    assert.equal(again.text, first.text);
    const changed = await add(running.url, admin, k, { ...body, jobID: "other" });
    assert.equal(changed.status, 422, changed.text);
    assert.equal(await countOver(running.url, admin, id), 2);
  } finally {
    await running?.stop();
    await workspace.remove();
  }
});

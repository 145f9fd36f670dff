import { after, test } from "node:test";
import assert from "node:assert/strict";
import crypto from "node:crypto";
import { call } from "./support/http.js";
import { freshWorkspace, startProcess, type Running, type Workspace } from "./support/process.js";
import { Receiver, signedWith } from "./support/receiver.js";

/**
 * Webhook delivery across server processes on one store: a lane is claimed through the
 * database, so two processes deliver each event once between them; and a process killed
 * with SIGKILL while a delivery is in flight leaves its events to the next process, which
 * delivers every one of them, in order, once the dead one's lease has run out.
 */

const cleanups: (() => Promise<void>)[] = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

const SECRET = "processes-webhook-secret";

async function setUp(name: string): Promise<{ workspace: Workspace; env: Record<string, string>; admin: string }> {
  const workspace = await freshWorkspace(name);
  cleanups.push(() => workspace.remove());
  const admin = `${name}-admin-${crypto.randomBytes(8).toString("hex")}`;
  // A short attempt time-out keeps the lease (2 × time-out + 1 s) short, so a dead holder's lane is free again soon.
  const env = {
    DATABASE_URL: workspace.databaseUrl, BLOC_ADMIN_TOKEN: admin, BLOC_WEBHOOK_TIMEOUT_MS: "1000",
    BLOC_WEBHOOK_RETRY_MS: "100", BLOC_EVENTS_POLL_MS: "100",
  };
  return { workspace, env, admin };
}

async function start(env: Record<string, string>, cwd: string): Promise<Running> {
  const running = await startProcess(env, cwd);
  cleanups.push(async () => { if (running.child.exitCode === null && running.child.signalCode === null) await running.stop(); });
  return running;
}

async function receiver(): Promise<Receiver> {
  const r = await Receiver.start();
  cleanups.push(() => r.close());
  return r;
}

async function blocWithWebhook(url: string, admin: string, hook: string): Promise<string> {
  const bloc = await call(url, "POST", "/api/admin/blocs", { token: admin, json: { name: "Line", fields: [{ name: "Part" }] } });
  assert.equal(bloc.status, 201, bloc.text);
  const webhook = await call(url, "POST", "/api/admin/webhooks", { token: admin, json: { url: hook, secret: SECRET } });
  assert.equal(webhook.status, 201, webhook.text);
  return bloc.json.id as string;
}

async function add(url: string, admin: string, blocId: string, part: string): Promise<number> {
  const reply = await call(url, "POST", "/api/add-data", { token: admin, json: { scanStationID: blocId, dataToAdd: JSON.stringify({ field_1: part }) } });
  assert.equal(reply.status, 200, reply.text);
  return reply.json.returnedStationID as number;
}

test("two server processes on one store deliver each event once between them, in order", { timeout: 60_000 }, async () => {
  const { workspace, env, admin } = await setUp("webhook-pair");
  const first = await start(env, workspace.cwd);
  const second = await start(env, workspace.cwd);
  const r = await receiver();
  const blocId = await blocWithWebhook(first.url, admin, r.url);
  const ids: number[] = [];
  for (let i = 0; i < 30; i += 1) ids.push(await add(i % 2 === 0 ? first.url : second.url, admin, blocId, `P-${i}`));
  await r.until(() => r.acknowledged.length >= 30, "30 events acknowledged");
  await new Promise((resolve) => setTimeout(resolve, 500));
  assert.equal(r.received.length, 30, "no event sent twice");
  // The bloc's creation is its event 1: the webhook, made after it, starts at 2.
  assert.deepEqual(r.received.map((d) => d.body.seq), Array.from({ length: 30 }, (_, i) => i + 2));
  assert.deepEqual(r.received.map((d) => (d.body.record as { service_entry_row_id: number }).service_entry_row_id), ids);
  assert.ok(r.received.every((d) => signedWith(SECRET, d)));
});

test("a server killed with SIGKILL mid-delivery: the next one delivers every pending event, in order", { timeout: 60_000 }, async () => {
  const { workspace, env, admin } = await setUp("webhook-kill");
  const doomed = await start(env, workspace.cwd);
  const r = await receiver();
  // The first delivery is held open: the process is killed while it is in flight.
  r.answer = () => "hang";
  const blocId = await blocWithWebhook(doomed.url, admin, r.url);
  const ids: number[] = [];
  for (let i = 0; i < 5; i += 1) ids.push(await add(doomed.url, admin, blocId, `K-${i}`));
  await r.until(() => r.received.length === 1, "the first delivery in flight");
  const exited = new Promise((resolve) => doomed.child.once("exit", resolve));
  doomed.child.kill("SIGKILL");
  await exited;
  r.answer = () => 200;

  await start(env, workspace.cwd);
  await r.until(() => r.acknowledged.length === 5, "5 events acknowledged after the restart");
  const acknowledged = r.acknowledged;
  assert.deepEqual(acknowledged.map((d) => d.body.seq), [2, 3, 4, 5, 6], "in order, from the one that was in flight");
  assert.deepEqual(acknowledged.map((d) => (d.body.record as { service_entry_row_id: number }).service_entry_row_id), ids);
  assert.equal(r.received[0]!.body.id, acknowledged[0]!.body.id, "the event in flight is sent again, under the same ID");
  assert.ok(acknowledged.every((d) => signedWith(SECRET, d)));
});

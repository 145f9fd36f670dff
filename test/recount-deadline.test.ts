import { test } from "node:test";
import assert from "node:assert/strict";
import crypto from "node:crypto";
import postgres from "postgres";
import { LOCK } from "../src/store/postgres/driver.js";
import { testEngine } from "./support/database.js";
import { call, type Reply } from "./support/http.js";
import { freshWorkspace, startProcess } from "./support/process.js";

/*
 * A change that counts a bloc again (an owner's restriction, the bloc's restriction to or
 * from `own`, a profile filter) takes as long as the bloc is large: it must not fail at the
 * request's store deadline, which is there to tell an outage from an answer on its way, nor
 * be cut with the silent connections when another request's deadline passes. Here the bloc's
 * lock is held from outside for several deadlines, so that the work waits as a large recount
 * would; an add to the same bloc meanwhile still gets its 503 on time.
 */

const PG_ONLY = testEngine() === "postgres" ? false : "PostgreSQL only: SQLite has no store deadline";
const DEADLINE_MS = 300;

test("a restriction change that counts the bloc again outlasts the store deadline, while other writes keep theirs", { skip: PG_ONLY, timeout: 60_000 }, async () => {
  const workspace = await freshWorkspace("recount-deadline");
  const admin = `recount-admin-${crypto.randomBytes(12).toString("hex")}`;
  const running = await startProcess({ DATABASE_URL: workspace.databaseUrl, BLOC_ADMIN_TOKEN: admin, BLOC_STORE_TIMEOUT_MS: String(DEADLINE_MS) }, workspace.cwd);
  const sql = postgres(workspace.databaseUrl, { max: 1, onnotice: () => undefined });
  const as = (method: string, route: string, json?: unknown): Promise<Reply> => call(running.url, method, route, { token: admin, json });
  let release: (() => void) | undefined;
  try {
    const bloc = await as("POST", "/api/admin/blocs", { name: "Scans", fields: [{ name: "Part" }] });
    assert.equal(bloc.status, 201, bloc.text);
    const blocId = bloc.json.id as string;
    const user = await as("POST", "/api/admin/users", { name: "operator" });
    assert.equal(user.status, 201, user.text);
    const userId = user.json.id as string;
    const added = await as("POST", "/api/add-data", { scanStationID: blocId, dataToAdd: JSON.stringify({ field_1: "before" }) });
    assert.equal(added.status, 200, added.text);

    // The bloc's writers' lock, as a long recount would hold it.
    let locked!: () => void;
    const lockTaken = new Promise<void>((resolve) => { locked = resolve; });
    const holding = sql.begin(async (tx) => {
      await tx`SELECT pg_advisory_xact_lock(${LOCK.bloc}::integer, hashtext(${blocId}::text))`;
      locked();
      await new Promise<void>((resolve) => { release = resolve; });
    });
    await lockTaken;

    const started = performance.now();
    const restriction = as("PUT", `/api/admin/blocs/${blocId}/restrictions/${userId}`, { mode: "own" });
    const blocRestriction = as("PATCH", `/api/admin/blocs/${blocId}`, { restriction: "own" });
    // The control: an add waits for the same lock, and is refused at its deadline.
    const add = await as("POST", "/api/add-data", { scanStationID: blocId, dataToAdd: JSON.stringify({ field_1: "meanwhile" }) });
    assert.equal(add.status, 503, add.text);
    assert.ok(performance.now() - started < 10 * DEADLINE_MS, `the add waited ${Math.round(performance.now() - started)} ms`);

    let answered = false;
    void Promise.race([restriction, blocRestriction]).then(() => { answered = true; });
    await new Promise((resolve) => setTimeout(resolve, 6 * DEADLINE_MS));
    assert.equal(answered, false, "a recount answered while the bloc's lock was held");
    release!();
    await holding;

    const [set, patched] = await Promise.all([restriction, blocRestriction]);
    assert.equal(set.status, 200, set.text);
    assert.equal(set.json.mode, "own");
    assert.equal(patched.status, 200, patched.text);
    assert.equal(patched.json.restriction, "own");

    // Both committed, and the service writes on as before.
    const access = await as("GET", `/api/admin/blocs/${blocId}/access`);
    assert.equal(access.status, 200, access.text);
    assert.deepEqual((access.json.restrictions as { userId: string; mode: string }[]).map((r) => [r.userId, r.mode]), [[userId, "own"]]);
    const after = await as("POST", "/api/add-data", { scanStationID: blocId, dataToAdd: JSON.stringify({ field_1: "after" }) });
    assert.equal(after.status, 200, after.text);
    const removed = await as("DELETE", `/api/admin/blocs/${blocId}/restrictions/${userId}`);
    assert.equal(removed.status, 204, removed.text);
  } finally {
    // A failed assertion leaves the lock's transaction open: end it, or nothing can close.
    release?.();
    await sql.end({ timeout: 5 });
    await running.stop();
    await workspace.remove();
  }
});

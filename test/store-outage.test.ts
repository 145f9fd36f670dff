import { test } from "node:test";
import assert from "node:assert/strict";
import crypto from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { StoreUnavailableError } from "../src/domain/errors.js";
import { connect } from "../src/store/postgres/driver.js";
import { PostgresStore } from "../src/store/postgres/postgres-store.js";
import { translate as translateSqlite } from "../src/store/sqlite/errors.js";
import { testEngine } from "./support/database.js";
import { call, type Reply } from "./support/http.js";
import { freshWorkspace, SERVER_ENTRY, startProcess, type Running } from "./support/process.js";
import { spawn, spawnSync } from "node:child_process";
import { TcpProxy } from "./support/tcp-proxy.js";

/**
 * A store that cannot be reached (issue 20): the service answers 503 with Retry-After in
 * each endpoint's own key instead of 500 or silence. PostgreSQL's faults are a TCP proxy
 * of the test's own between the service and the server (support/tcp-proxy.ts).
 */

const onPostgres = testEngine() === "postgres";
const PG_ONLY = onPostgres ? false : "PostgreSQL only: a network between the service and its store";

interface Service {
  readonly running: Running;
  /** The database itself, not through the proxy. */
  readonly databaseUrl: string;
  readonly proxy: TcpProxy;
  readonly admin: string;
  readonly blocId: string;
  stop(): Promise<void>;
}

/** The service (one process, or WORKERS=n) on a fresh database reached through a proxy, with one bloc. */
async function startBehindProxy(name: string, env: Record<string, string> = {}, waitMs = 30_000): Promise<Service> {
  const workspace = await freshWorkspace(name);
  const target = new URL(workspace.databaseUrl);
  const proxy = await TcpProxy.start({ host: target.hostname, port: Number(target.port || 5432) });
  const admin = `${name}-admin-${crypto.randomBytes(12).toString("hex")}`;
  let running: Running | undefined;
  try {
    running = await startProcess({ DATABASE_URL: proxy.through(workspace.databaseUrl), BLOC_ADMIN_TOKEN: admin, ...env }, workspace.cwd, undefined, waitMs);
    const bloc = await call(running.url, "POST", "/api/admin/blocs", { token: admin, json: { name: "Scans", fields: [{ name: "Part" }, { name: "Writer" }] } });
    assert.equal(bloc.status, 201, bloc.text);
    const started = running;
    return {
      running: started, databaseUrl: workspace.databaseUrl, proxy, admin, blocId: bloc.json.id as string,
      async stop() {
        await proxy.set("up");
        await started.stop();
        await proxy.close();
        await workspace.remove();
      },
    };
  } catch (error) {
    await running?.stop();
    await proxy.close();
    await workspace.remove();
    throw error;
  }
}

/** The first field of every record of a small bloc, sorted: what was written, as a reader sees it. */
async function storedParts(url: string, token: string, blocId: string): Promise<string[]> {
  const read = await call(url, "GET", "/api/get-data", { token, json: { blocId, resultLimit: 50 } });
  assert.equal(read.status, 200, read.text);
  return Object.entries(read.json.data as Record<string, Record<string, string>>)
    .filter(([key]) => /^\d+$/.test(key)).map(([, record]) => record.field_1!).sort();
}

/** Sends `request` again, `pauseMs` apart, until it is answered 200 or `withinMs` has passed: the last answer. */
async function untilOk(request: () => Promise<Reply>, withinMs: number, pauseMs = 200): Promise<Reply> {
  const started = performance.now();
  let reply = await request();
  while (reply.status !== 200 && performance.now() - started < withinMs) {
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
    reply = await request();
  }
  return reply;
}

function assertUnavailable(reply: Reply, key: "error" | "message", what: string): void {
  assert.equal(reply.status, 503, `${what}: ${reply.status} ${reply.text}`);
  assert.equal(reply.headers["retry-after"], "2", `${what}: Retry-After`);
  assert.match(String(reply.json?.[key]), /store unavailable/i, `${what}: ${reply.text}`);
  assert.deepEqual(Object.keys(reply.json), [key], `${what}: only the endpoint's key`);
}

test("an unreachable PostgreSQL answers 503 with Retry-After in each endpoint's own key, and 200 once it is back", { skip: PG_ONLY, timeout: 90_000 }, async () => {
  const service = await startBehindProxy("outage-503");
  const { running, admin, blocId } = service;
  try {
    const add = (): Promise<Reply> => call(running.url, "POST", "/api/add-data", {
      token: admin, headers: { connection: "close" }, json: { scanStationID: blocId, dataToAdd: { field_1: "P-1", field_2: "x" } },
    });
    assert.equal((await add()).status, 200);

    await service.proxy.set("cut");
    assertUnavailable(await add(), "error", "add-data");
    assertUnavailable(await call(running.url, "GET", "/api/get-data", { token: admin, headers: { connection: "close" }, json: { blocId, resultLimit: 5 } }), "error", "get-data");
    assertUnavailable(await call(running.url, "POST", "/api/update-records-by-matching-values", {
      token: admin, headers: { connection: "close" }, json: { blocId, fieldsToUpdate: { field_2: "y" }, searchItems: { field_1: "P-1" } },
    }), "message", "update-records");
    assert.equal((await call(running.url, "GET", "/readyz")).status, 503);

    await service.proxy.set("up");
    const again = await untilOk(add, 10_000);
    assert.equal(again.status, 200, `adds succeed again once the store is back: ${again.text}`);
  } finally {
    await service.stop();
  }
});

test("a transaction begun while PostgreSQL refuses connections fails as the store being unavailable, not as a server fault", { skip: PG_ONLY, timeout: 60_000 }, async () => {
  // The pool's connections are closed by the cut and noticed closed, so the transaction must open
  // one (pool.reserve), and that is refused: as when a group commit runs again one unit at a time.
  const workspace = await freshWorkspace("reserve-refused");
  const target = new URL(workspace.databaseUrl);
  const proxy = await TcpProxy.start({ host: target.hostname, port: Number(target.port || 5432) });
  const store = await PostgresStore.open(proxy.through(workspace.databaseUrl), 2, 5_000);
  try {
    await store.transaction((tx) => tx.blocs.listBlocs());
    await proxy.set("cut");
    await new Promise((resolve) => setTimeout(resolve, 300));
    const error = await store.transaction((tx) => tx.blocs.listBlocs()).then(() => undefined, (failure: unknown) => failure);
    assert.ok(error instanceof StoreUnavailableError, `refused connection: ${String(error)} ${(error as { code?: string } | undefined)?.code ?? ""}`);
    await proxy.set("up");
  } finally {
    await store.close();
    await proxy.close();
    await workspace.remove();
  }
});

test("a route that dies in the middle of a new connection's opening costs that connection, not the service or its later requests", { skip: PG_ONLY, timeout: 90_000 }, async () => {
  // Every connection the driver opens looks up the array types before it takes a statement
  // (several kB of answer). A route that died in the middle of that answer left the connection
  // waiting for the rest for ever, since it had received bytes: with the pool's connections so,
  // every later request was 503 until a restart. And a connection cut while it waited (a
  // reset, or the store cutting it for silence) rejected the driver's lookup unhandled, which
  // ended the process: most likely the "socket hang up" CI once saw in the orphan test below.
  const timeoutMs = 1000;
  const service = await startBehindProxy("mid-answer", { BLOC_STORE_TIMEOUT_MS: String(timeoutMs), BLOC_PG_POOL: "2" });
  const { running, admin, blocId } = service;
  let part = 0;
  const add = (): Promise<Reply> => call(running.url, "POST", "/api/add-data", {
    token: admin, headers: { connection: "close" }, json: { scanStationID: blocId, dataToAdd: { field_1: `M-${part += 1}`, field_2: "mid" } },
  });
  try {
    assert.equal((await add()).status, 200);
    // Every connection closed, then opened again through a route that dies 1,000 bytes into
    // PostgreSQL's side: past the connection's start (about 400), inside the type lookup.
    await service.proxy.set("cut");
    await service.proxy.set("up");
    service.proxy.holeAfter(1_000);
    for (let i = 0; i < 3; i += 1) assertUnavailable(await add(), "error", `add-data while the route is dying (${i})`);
    await service.proxy.set("up", { keepSwallowed: true });
    const again = await untilOk(add, 10_000);
    assert.equal(again.status, 200, `adds succeed within 10 s of the route's return: ${again.text}; the service: ${running.output().slice(-2_000)}`);
    assert.equal(running.child.exitCode, null, "the service is still running");
    assert.match(running.output(), /lost with nothing waiting on it/, "a connection was cut in the middle of its opening (the case under test)");
  } finally {
    await service.stop();
  }
});

test("a black-holed PostgreSQL is answered 503 within BLOC_STORE_TIMEOUT_MS, writes nothing, and its connections are not reused", { skip: PG_ONLY, timeout: 90_000 }, async () => {
  const timeoutMs = 1500;
  const service = await startBehindProxy("outage-deadline", { BLOC_STORE_TIMEOUT_MS: String(timeoutMs), BLOC_PG_POOL: "3" });
  const { running, admin, blocId } = service;
  const add = (part: string): Promise<Reply> => call(running.url, "POST", "/api/add-data", {
    token: admin, headers: { connection: "close" }, json: { scanStationID: blocId, dataToAdd: { field_1: part, field_2: "deadline" } },
  });
  const timed = async (request: Promise<Reply>): Promise<{ reply: Reply; ms: number }> => {
    const started = performance.now();
    const reply = await request;
    return { reply, ms: performance.now() - started };
  };
  try {
    assert.equal((await add("before")).status, 200);
    await service.proxy.set("black-hole");
    // More requests than the pool has connections: each one's connection is cut, not kept waiting.
    const during = await Promise.all([
      ...Array.from({ length: 5 }, (_, i) => timed(add(`hole-${i}`))),
      timed(call(running.url, "GET", "/api/get-data", { token: admin, headers: { connection: "close" }, json: { blocId, resultLimit: 5 } })),
    ]);
    for (const { reply, ms } of during) {
      assertUnavailable(reply, "error", "during the black hole");
      assert.ok(ms < timeoutMs + 2_000, `answered in ${Math.round(ms)} ms, past the deadline plus 2 s`);
    }
    await service.proxy.set("up");
    const again = await untilOk(() => add("after"), 5_000, 100);
    assert.equal(again.status, 200, `adds succeed within 5 s of the store's return: ${again.text}`);
    assert.deepEqual(await storedParts(running.url, admin, blocId), ["after", "before"], "nothing answered 503 was written");
  } finally {
    await service.stop();
  }
});

/**
 * Runs adds from six writers into a black hole until one transaction holds its bloc's
 * lock at the cut, then brings the route back without telling PostgreSQL anything of the
 * swallowed connections (`caught` runs just before, once there are such sessions). Returns
 * the sessions PostgreSQL then thought held the lock, and a wait for them to be gone.
 */
async function catchOrphans(service: Service, direct: ReturnType<typeof connect>, add: () => Promise<Reply>,
  caught: () => void = () => undefined): Promise<{ orphans: number[]; left: (withinMs: number) => Promise<number[]> }> {
  // Sessions of the service that hold a bloc's lock in a transaction PostgreSQL still thinks open.
  const lockHolders = async (): Promise<number[]> => (await direct.unsafe(`SELECT DISTINCT a.pid FROM pg_stat_activity a
    JOIN pg_locks l ON l.pid = a.pid AND l.locktype = 'advisory' AND l.granted
    WHERE a.application_name = 'bloc-data' AND a.state LIKE 'idle in transaction%'`)).map((row) => Number(row.pid));
  let orphans: number[] = [];
  for (let attempt = 0; attempt < 8 && orphans.length === 0; attempt += 1) {
    let adding = true;
    const writers = Array.from({ length: 6 }, async () => { while (adding) await add(); });
    await new Promise((resolve) => setTimeout(resolve, 150 + attempt * 37));
    await service.proxy.set("black-hole");
    adding = false;
    // Looked for while the writers' requests wait out their deadline: PostgreSQL ends a session
    // idle in a transaction after two deadlines itself, and under CI's load that once came
    // before the last of them answered (8 attempts, none caught). A session still idle in its
    // transaction 50 ms after the cut is one the service can no longer reach.
    const writing = Promise.all(writers);
    let answered = false;
    void writing.then(() => { answered = true; }, () => { answered = true; });
    while (!answered && orphans.length === 0) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      const seen = await lockHolders();
      if (seen.length > 0) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        orphans = (await lockHolders()).filter((pid) => seen.includes(pid));
      }
    }
    await writing;
    if (orphans.length === 0) orphans = await lockHolders();
    if (orphans.length > 0) caught();
    await service.proxy.set("up", { keepSwallowed: true });
    if (orphans.length === 0) await new Promise((resolve) => setTimeout(resolve, 500));
  }
  assert.ok(orphans.length > 0, "a black hole caught a transaction holding its bloc's lock");
  // Those of them still holding a lock once they are all gone or `withinMs` has passed.
  const left = async (withinMs: number): Promise<number[]> => {
    const started = performance.now();
    let holding = (await lockHolders()).filter((pid) => orphans.includes(pid));
    while (holding.length > 0 && performance.now() - started < withinMs) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      holding = (await lockHolders()).filter((pid) => orphans.includes(pid));
    }
    return holding;
  };
  return { orphans, left };
}

/**
 * A service behind a proxy with a 1 s store deadline and a pool of 3, a direct connection to its
 * database, and an add of a new part. Each add on a connection of its own, as in the tests above:
 * these tests are about PostgreSQL's sessions, and a request that fails without an answer says
 * whether the service was still running and what it last wrote (CI once saw a "socket hang up"
 * here, most likely the service ending on the driver's unhandled rejection that
 * process-guard.ts now keeps: see "a route that dies in the middle of a new connection's opening").
 */
async function orphanBench(name: string): Promise<{ service: Service; direct: ReturnType<typeof connect>; add: () => Promise<Reply> }> {
  const service = await startBehindProxy(name, { BLOC_STORE_TIMEOUT_MS: "1000", BLOC_PG_POOL: "3" });
  const direct = connect(service.databaseUrl, 1);
  let part = 0;
  const { running } = service;
  const add = (): Promise<Reply> => call(running.url, "POST", "/api/add-data", {
    token: service.admin, headers: { connection: "close" },
    json: { scanStationID: service.blocId, dataToAdd: { field_1: `P-${part += 1}`, field_2: "orphan" } },
  }).catch((error: unknown) => {
    const exit = running.child.exitCode ?? running.child.signalCode ?? "still running";
    throw new Error(`add-data got no answer (${String(error)}); the service: ${exit}; its output: ${running.output().slice(-2_000)}`, { cause: error });
  });
  return { service, direct, add };
}

test("a transaction cut off by a partition PostgreSQL never noticed does not keep its bloc's lock: its session is ended once the server is back", { skip: PG_ONLY, timeout: 120_000 }, async () => {
  const { service, direct, add } = await orphanBench("outage-orphan");
  try {
    assert.equal((await add()).status, 200);
    const { orphans, left: orphansLeft } = await catchOrphans(service, direct, add);
    // The service ends the session it lost, so the lock is free and adds succeed again. (Pooled
    // connections still in the kept hole are found dead one deadline at a time meanwhile, so
    // this allows more than the 5 s a reset route recovers in; without the fix, never.)
    // 45 s: under CI's load, with both engines' suites on two cores, 20 s once did not suffice.
    const again = await untilOk(add, 45_000);
    const sessions = async (): Promise<string> => JSON.stringify(await direct.unsafe(`SELECT a.pid, a.state, a.wait_event,
      left(a.query, 80) AS query, a.backend_start, a.xact_start, a.state_change, now() AS now,
      (SELECT string_agg(l.locktype || ':' || l.objid || ':' || l.granted, ',') FROM pg_locks l WHERE l.pid = a.pid AND l.locktype = 'advisory') AS locks
      FROM pg_stat_activity a WHERE a.application_name = 'bloc-data'`));
    if (again.status !== 200) {
      assert.fail(`adds to the bloc succeed again: ${again.text}; orphans at the cut ${orphans.join(",")}; sessions now ${await sessions()}`);
    }
    // Gone by now, or within two store deadlines: CI once saw one of them still listed, holding
    // an advisory lock, just after an add had gone through, which no rerun reproduced; the
    // service's output and the sessions say what it was if it stays.
    const left = await orphansLeft(2_000 + 3_000);
    if (left.length > 0) {
      assert.fail(`the orphaned sessions ${left.join(",")} are gone; sessions now ${await sessions()}; the service's output: ${service.running.output().slice(-3_000)}`);
    }
  } finally {
    await direct.end();
    await service.stop();
  }
});

test("a session orphaned by a partition is ended by PostgreSQL itself after two store deadlines idle, even when the service is gone", { skip: PG_ONLY, timeout: 120_000 }, async () => {
  const { service, direct, add } = await orphanBench("outage-orphan-alone");
  const { running } = service;
  try {
    assert.equal((await add()).status, 200);
    // Killed while the route swallows everything: the service can end nothing, and PostgreSQL learns nothing.
    const { left } = await catchOrphans(service, direct, add, () => running.child.kill("SIGKILL"));
    assert.deepEqual(await left(15_000), [], "PostgreSQL ended the orphaned sessions itself");
  } finally {
    await direct.end();
    await service.stop();
  }
});

/**
 * Issue 20's outage, end to end: WORKERS=2 behind the proxy, writers and readers running
 * through up, cut, up, black hole, up. Bounds, not timings: the machine is shared.
 */
test("WORKERS=2 through a cut and a black hole: every request answered in time, outages 503, no worker exits, no acknowledged add lost", { skip: PG_ONLY, timeout: 120_000 }, async () => {
  const timeoutMs = 1500;
  const service = await startBehindProxy("outage-phases", { WORKERS: "2", BLOC_STORE_TIMEOUT_MS: String(timeoutMs), BLOC_PG_POOL: "4" }, 60_000);
  const { running, admin, blocId } = service;
  let output = "";
  running.child.stdout!.on("data", (chunk: Buffer) => { output += chunk.toString(); });
  running.child.stderr!.on("data", (chunk: Buffer) => { output += chunk.toString(); });
  const acknowledged: string[] = [];
  const failures: string[] = [];
  const recoveries: { at: number; firstAdd?: number }[] = [];
  let phase = "up";
  let stop = false;
  let slowest = 0;
  let outageAnswers = 0;

  const check = (reply: Reply, ms: number, what: string): void => {
    slowest = Math.max(slowest, ms);
    if (ms >= timeoutMs + 2_000) failures.push(`${what} in ${phase}: answered after ${Math.round(ms)} ms`);
    if (reply.status === 503) {
      outageAnswers += 1;
      if (reply.headers["retry-after"] !== "2" || !/store unavailable/i.test(String(reply.json?.error))) failures.push(`${what} in ${phase}: ${reply.text}`);
    } else if (reply.status !== 200) {
      failures.push(`${what} in ${phase}: ${reply.status} ${reply.text}`);
    }
  };
  const writer = async (w: number): Promise<void> => {
    for (let i = 0; !stop; i += 1) {
      const part = `w${w}-${i}`;
      const started = performance.now();
      const reply = await call(running.url, "POST", "/api/add-data", {
        token: admin, headers: { connection: "close" }, json: { scanStationID: blocId, dataToAdd: { field_1: part, field_2: `writer ${w}` } },
      }).catch((error: unknown) => ({ status: 0, text: String(error), headers: {}, json: undefined, body: Buffer.alloc(0) }));
      const now = performance.now();
      check(reply, now - started, "add-data");
      if (reply.status === 200) {
        acknowledged.push(part);
        const recovery = recoveries.at(-1);
        if (recovery && recovery.firstAdd === undefined && started >= recovery.at) recovery.firstAdd = now;
      }
      await new Promise((resolve) => setTimeout(resolve, 40));
    }
  };
  const reader = async (): Promise<void> => {
    while (!stop) {
      const started = performance.now();
      const reply = await call(running.url, "GET", "/api/get-data", { token: admin, headers: { connection: "close" }, json: { blocId, resultLimit: 10 } })
        .catch((error: unknown) => ({ status: 0, text: String(error), headers: {}, json: undefined, body: Buffer.alloc(0) }));
      check(reply, performance.now() - started, "get-data");
      await new Promise((resolve) => setTimeout(resolve, 60));
    }
  };
  const hold = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
  const to = async (mode: "up" | "cut" | "black-hole"): Promise<void> => {
    await service.proxy.set(mode);
    phase = mode === "up" ? `up after ${phase}` : mode;
    if (mode === "up") recoveries.push({ at: performance.now() });
  };

  try {
    const load = [writer(1), writer(2), writer(3), reader(), reader()];
    await hold(2_000);
    await to("cut");
    await hold(3_000);
    await to("up");
    await hold(5_000);
    await to("black-hole");
    await hold(3_000);
    await to("up");
    await hold(5_000);
    stop = true;
    await Promise.all(load);

    assert.deepEqual(failures, [], `every request answered within ${timeoutMs} + 2000 ms, 200 or 503 with Retry-After (slowest ${Math.round(slowest)} ms); the server said: ${output.split("\n").filter((line) => /error|fault/i.test(line)).slice(0, 20).join("\n")}`);
    assert.ok(outageAnswers > 0, "the outages were seen");
    for (const [i, recovery] of recoveries.entries()) {
      assert.ok(recovery.firstAdd !== undefined && recovery.firstAdd - recovery.at < 5_000,
        `adds succeed within 5 s of recovery ${i + 1}: ${recovery.firstAdd === undefined ? "none" : `${Math.round(recovery.firstAdd - recovery.at)} ms`}`);
    }
    assert.doesNotMatch(output, /exited with|reading 'write'/, `no worker exits: ${output}`);

    const stored = new Set<string>();
    for (let page = 1; ; page += 1) {
      const read = await call(running.url, "GET", "/api/get-data", { token: admin, json: { blocId, resultLimit: 1000, currentPage: page } });
      assert.equal(read.status, 200, read.text);
      const records = Object.entries(read.json.data as Record<string, Record<string, string>>).filter(([key]) => /^\d+$/.test(key));
      for (const [, record] of records) stored.add(record.field_1!);
      if (records.length < 1000) break;
    }
    const lost = acknowledged.filter((part) => !stored.has(part));
    assert.deepEqual(lost, [], `every acknowledged add is stored (${acknowledged.length} acknowledged, ${stored.size} stored)`);
  } finally {
    stop = true;
    await service.stop();
  }
});

/**
 * A script's opening: the driver, the guard when GUARD is "1", and a reserved connection
 * whose backend has been terminated and whose socket has closed (porsager/postgres#1208's
 * sequence), as `reserved`.
 */
const CLOSED_RESERVED = `
import postgres from "postgres";
if (process.env.GUARD === "1") (await import(process.env.GUARD_MODULE)).guardDriverFaults();
const sql = postgres(process.env.URL, { max: 1, onnotice: () => undefined });
const admin = postgres(process.env.URL, { max: 1, onnotice: () => undefined });
const reserved = await sql.reserve();
const [{ pid }] = await reserved\`SELECT pg_backend_pid() AS pid\`;
await admin\`SELECT pg_terminate_backend(\${pid})\`;
await new Promise((resolve) => setTimeout(resolve, 300));
`;

/**
 * The driver fault itself, outside the service (which no longer provokes it): that
 * connection, released, then used, throws from a timer. With the guard the process logs
 * it and goes on.
 */
const FAULT_SCRIPT = `${CLOSED_RESERVED}
reserved.release();
await Promise.race([sql\`SELECT 1\`.catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 1000))]);
console.log("still running");
process.exit(0);
`;

/**
 * The same fault met by a statement instead of a timer: with one statement in flight on
 * that connection, sending a second one of 1 KB or more writes to the socket at once,
 * and the driver fails the first with that TypeError. The store must take it for the
 * outage it is (503), not for a fault of its own (500).
 */
const PIPELINE_SCRIPT = `${CLOSED_RESERVED}
const { translate } = await import(process.env.ERRORS_MODULE);
const first = reserved.unsafe("SELECT 1").then(() => "answered", (error) => error);
reserved.unsafe("SELECT '" + "x".repeat(2000) + "'").catch(() => undefined);
const error = await first;
console.log(JSON.stringify({ message: error.message, translated: translate(error).constructor.name }));
process.exit(0);
`;

/** Runs a script from the project, so that it finds the driver the service uses; its exit code and output. */
function runScript(script: string, env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
      cwd: path.resolve(path.dirname(SERVER_ENTRY), "../.."), env: { ...process.env, ...env },
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => { output += chunk.toString(); });
    child.stderr.on("data", (chunk: Buffer) => { output += chunk.toString(); });
    child.once("close", (code) => resolve({ code, output }));
  });
}

test("a start, and a worker replaced during an outage, wait for PostgreSQL instead of exiting", { skip: PG_ONLY, timeout: 120_000 }, async () => {
  const workspace = await freshWorkspace("outage-start");
  const target = new URL(workspace.databaseUrl);
  const proxy = await TcpProxy.start({ host: target.hostname, port: Number(target.port || 5432) });
  let running: Running | undefined;
  try {
    await proxy.set("cut");
    const back = setTimeout(() => void proxy.set("up"), 3_000);
    running = await startProcess({
      DATABASE_URL: proxy.through(workspace.databaseUrl), WORKERS: "2", BLOC_STORE_TIMEOUT_MS: "1000",
    }, workspace.cwd, undefined, 60_000).finally(() => clearTimeout(back));
    assert.match(running.output(), /the database is out of reach \(.+\); waiting for it/, "the start said it waits");
    const pidOf = async (): Promise<number> => {
      const reply = await call(running!.url, "GET", "/health", { headers: { connection: "close" } });
      assert.equal(reply.status, 200, reply.text);
      return reply.json.pid as number;
    };
    const victim = await pidOf();
    await proxy.set("cut");
    process.kill(victim, "SIGKILL");
    // The replacement starts while PostgreSQL is out of reach: it waits, and the service stays up.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    assert.equal(running.child.exitCode, null, `the service is still running:\n${running.output()}`);
    assert.equal((await call(running.url, "GET", "/health", { headers: { connection: "close" } })).status, 200, "the other worker answers meanwhile");
    await proxy.set("up");
    // Both workers answer again, the replacement among them.
    const seen = new Set<number>();
    const until = Date.now() + 20_000;
    while (seen.size < 2 && Date.now() < until) {
      seen.add(await pidOf());
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal(seen.size, 2, `two workers answer once PostgreSQL is back: ${[...seen].join(", ")}`);
    assert.ok(!seen.has(victim), "the killed worker was replaced");
  } finally {
    await proxy.set("up");
    await running?.stop();
    await proxy.close();
    await workspace.remove();
  }
});

test("a driver write to a closed connection does not end the process, and fails the statement in flight as an outage", { skip: PG_ONLY, timeout: 60_000 }, async () => {
  const workspace = await freshWorkspace("driver-fault");
  try {
    const guardModule = path.join(path.dirname(SERVER_ENTRY), "store/postgres/process-guard.js");
    const env = { URL: workspace.databaseUrl, GUARD_MODULE: guardModule };
    const unguarded = await runScript(FAULT_SCRIPT, { ...env, GUARD: "0" });
    assert.equal(unguarded.code, 1, `the fault is real: without the guard it ends the process: ${unguarded.output}`);
    assert.match(unguarded.output, /reading 'write'/);
    const guarded = await runScript(FAULT_SCRIPT, { ...env, GUARD: "1" });
    assert.equal(guarded.code, 0, guarded.output);
    assert.match(guarded.output, /still running/);
    assert.match(guarded.output, /postgres#1154/);

    const pipelined = await runScript(PIPELINE_SCRIPT, { ...env, GUARD: "1", ERRORS_MODULE: path.join(path.dirname(guardModule), "errors.js") });
    assert.equal(pipelined.code, 0, pipelined.output);
    const seen = JSON.parse(pipelined.output.split("\n").find((line) => line.startsWith("{")) ?? "{}") as { message?: string; translated?: string };
    assert.match(seen.message ?? "", /reading 'write'/, `the statement in flight failed with the driver's fault: ${pipelined.output}`);
    assert.equal(seen.translated, "StoreUnavailableError", "and the store translates it as the outage it is");
  } finally {
    await workspace.remove();
  }
});

test("SQLite: a store that cannot be written is unavailable; a busy one is not", async () => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "bloc-outage-sqlite-"));
  const file = path.join(dir, "bloc.db");
  const writer = new Database(file);
  try {
    writer.pragma("journal_mode = WAL");
    writer.exec("CREATE TABLE t (x INTEGER)");
    const reader = new Database(file, { readonly: true });
    try {
      // Running as root, file modes do not stop a write: a read-only connection is SQLite's own refusal.
      const refused = catchError(() => reader.exec("INSERT INTO t VALUES (1)"));
      assert.match(String((refused as { code?: unknown }).code), /^SQLITE_READONLY/);
      assert.ok(translateSqlite(refused) instanceof StoreUnavailableError, "SQLITE_READONLY → unavailable");
    } finally {
      reader.close();
    }
    const other = new Database(file);
    try {
      other.pragma("busy_timeout = 0");
      writer.exec("BEGIN IMMEDIATE");
      const busy = catchError(() => other.exec("BEGIN IMMEDIATE"));
      writer.exec("ROLLBACK");
      assert.equal((busy as { code?: unknown }).code, "SQLITE_BUSY");
      assert.equal(translateSqlite(busy), busy, "SQLITE_BUSY keeps its own handling");
    } finally {
      other.close();
    }
  } finally {
    writer.close();
    await fs.rm(dir, { recursive: true, force: true });
  }
});

function catchError(work: () => unknown): unknown {
  try {
    work();
  } catch (error) {
    return error;
  }
  assert.fail("expected an error");
}

/** Sets or clears the immutable attribute, which stops even root's writes; false where the file system has none. */
function immutable(files: readonly string[], on: boolean): boolean {
  const run = spawnSync("chattr", [on ? "+i" : "-i", ...files], { encoding: "utf8" });
  return run.status === 0;
}

test("SQLite over HTTP: a database that cannot be written answers 503 with Retry-After, loses nothing, and writes again once it can", {
  skip: testEngine() === "sqlite" ? false : "SQLite only",
}, async (t) => {
  const workspace = await freshWorkspace("outage-sqlite-disk");
  const file = workspace.databaseUrl.replace(/^sqlite:/, "");
  const admin = `disk-admin-${crypto.randomBytes(12).toString("hex")}`;
  const running = await startProcess({ DATABASE_URL: workspace.databaseUrl, BLOC_ADMIN_TOKEN: admin }, workspace.cwd);
  // Not the -shm file: SQLite maps it, and a map that cannot be written is a bus error, not a disk's refusal.
  const files = [file, `${file}-wal`];
  try {
    const bloc = await call(running.url, "POST", "/api/admin/blocs", { token: admin, json: { name: "Disk", fields: [{ name: "Part" }] } });
    assert.equal(bloc.status, 201, bloc.text);
    const blocId = bloc.json.id as string;
    const add = (part: string): Promise<Reply> => call(running.url, "POST", "/api/add-data", { token: admin, json: { scanStationID: blocId, dataToAdd: { field_1: part } } });
    assert.equal((await add("before")).status, 200);
    if (!immutable(files, true)) {
      t.skip("chattr +i is not available on this file system (or to this user): nothing here refuses root's writes");
      return;
    }
    try {
      // Root ignores file modes; the immutable attribute refuses its writes as a full or read-only disk would.
      assertUnavailable(await add("during"), "error", "add-data on a database that cannot be written");
      assertUnavailable(await call(running.url, "POST", "/api/update-records-by-matching-values", {
        token: admin, json: { blocId, fieldsToUpdate: { field_1: "changed" }, searchItems: { field_1: "before" } },
      }), "message", "update-records on a database that cannot be written");
    } finally {
      immutable(files, false);
    }
    const again = await add("after");
    assert.equal(again.status, 200, `writes again once the database can be written: ${again.text}`);
    assert.deepEqual(await storedParts(running.url, admin, blocId), ["after", "before"], "the refused writes wrote nothing, and nothing acknowledged was lost");
  } finally {
    immutable(files, false);
    await running.stop();
    await workspace.remove();
  }
});

import { test } from "node:test";
import assert from "node:assert/strict";
import { once } from "node:events";
import { call } from "./support/http.js";
import { freshWorkspace, runToEnd, SERVER_ENTRY, startProcess, type Running } from "./support/process.js";

/**
 * WORKERS=N runs N server processes on one port: requests are served by several
 * processes, a worker that dies is replaced while the port keeps answering, and
 * SIGTERM to the primary stops them all.
 */

const ADMIN = "cluster-test-admin-token-0123456789";
/** How long a cluster may take to have every worker listening, with other test files running beside it. */
const CLUSTER_START_MS = 60_000;

/** The pid that answered, on a connection of its own (a kept-alive one would stay with one worker). */
async function healthPid(url: string): Promise<number> {
  const reply = await call(url, "GET", "/health", { headers: { connection: "close" } });
  assert.equal(reply.status, 200, reply.text);
  assert.equal(reply.json.status, "ok");
  return reply.json.pid as number;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A folder and a fresh database of the engine under test (BLOC_TEST_ENGINE). */
async function withWorkspace(work: (cwd: string, databaseUrl: string) => Promise<void>): Promise<void> {
  const workspace = await freshWorkspace("cluster");
  try {
    await work(workspace.cwd, workspace.databaseUrl);
  } finally {
    await workspace.remove();
  }
}

test("WORKERS=2: several worker processes answer on one port; a killed one is replaced; SIGTERM stops all", { timeout: 180_000 }, async () => {
  await withWorkspace(async (cwd, databaseUrl) => {
    const server: Running = await startProcess({ WORKERS: "2", DATABASE_URL: databaseUrl, BLOC_ADMIN_TOKEN: ADMIN }, cwd, SERVER_ENTRY, CLUSTER_START_MS);
    let later = "";
    server.child.stdout!.on("data", (chunk: Buffer) => { later += chunk.toString(); });
    server.child.stderr!.on("data", (chunk: Buffer) => { later += chunk.toString(); });
    try {
      const primary = server.child.pid!;
      const pids = new Set<number>();
      for (let i = 0; i < 12; i += 1) pids.add(await healthPid(server.url));
      assert.equal(pids.size, 2, `two workers answer: ${[...pids].join(", ")}`);
      assert.ok(!pids.has(primary), "the primary serves no request");

      // What one worker writes, the other reads: they share the store.
      const bloc = await call(server.url, "POST", "/api/admin/blocs", { token: ADMIN, json: { name: "Shared", fields: [{ name: "A" }] } });
      assert.equal(bloc.status, 201, bloc.text);
      for (let i = 0; i < 6; i += 1) {
        const added = await call(server.url, "POST", "/api/add-data", {
          token: ADMIN, headers: { connection: "close" }, json: { scanStationID: bloc.json.id, dataToAdd: { field_1: `v${i}` } },
        });
        assert.equal(added.status, 200, added.text);
      }

      const [victim, survivor] = [...pids] as [number, number];
      process.kill(victim, "SIGKILL");
      // Once the primary has seen it die (a connection handed over just before that is lost with the
      // worker), the port keeps answering while a replacement starts; the dead worker never answers again.
      const deadline = Date.now() + 60_000;
      while (!later.includes(`worker ${victim} exited`)) {
        assert.ok(Date.now() < deadline, `the primary did not report the death of worker ${victim}: ${later}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const seen = new Set<number>();
      while (![...seen].some((pid) => pid !== survivor)) {
        assert.ok(Date.now() < deadline, `no replacement worker within 60 s; answered by ${[...seen].join(", ")}`);
        const pid = await healthPid(server.url);
        assert.notEqual(pid, victim, "the killed worker does not answer");
        seen.add(pid);
      }
      const replacement = [...seen].find((pid) => pid !== survivor)!;
      assert.ok(!alive(victim));
      const read = await call(server.url, "GET", "/api/get-data", { token: ADMIN, json: { blocId: bloc.json.id } });
      assert.equal(read.json.data.count, 6, "nothing was lost with the worker");
      assert.match(later, new RegExp(`worker ${victim} exited with signal SIGKILL; starting another`));

      await server.stop();
      assert.equal(server.child.exitCode, 0, later);
      for (const pid of [survivor, replacement]) {
        for (let i = 0; i < 50 && alive(pid); i += 1) await new Promise((resolve) => setTimeout(resolve, 100));
        assert.ok(!alive(pid), `worker ${pid} stopped with the primary`);
      }
      assert.doesNotMatch(later, /listening on/, "the listening line is printed once, not per worker");
    } finally {
      if (server.child.exitCode === null && server.child.signalCode === null) await server.stop();
    }
  });
});

test("WORKERS unset or 1: one process, no cluster", async () => {
  await withWorkspace(async (cwd, databaseUrl) => {
    for (const workers of [undefined, "1"]) {
      const server = await startProcess({ DATABASE_URL: databaseUrl, ...(workers ? { WORKERS: workers } : {}) }, cwd, SERVER_ENTRY, CLUSTER_START_MS);
      try {
        assert.equal(await healthPid(server.url), server.child.pid);
      } finally {
        await server.stop();
      }
    }
  });
});

test("a port in use stops the primary with exit code 1, said once, before any worker starts", async () => {
  await withWorkspace(async (cwd, databaseUrl) => {
    const taken = await startProcess({ DATABASE_URL: databaseUrl }, cwd);
    try {
      const port = new URL(taken.url).port;
      const child = runToEnd(SERVER_ENTRY, [], { WORKERS: "2", PORT: port, DATABASE_URL: databaseUrl, BLOC_LOG_LEVEL: "warn" }, cwd);
      const result = await child;
      assert.equal(result.code, 1, result.stderr);
      // The primary tries the port before forking (start-up-errors.test.ts checks the line itself).
      assert.match(result.stderr, new RegExp(`^bloc-data-service: PORT: port ${port} .* already in use`));
      assert.doesNotMatch(result.stderr, /worker/);
      assert.doesNotMatch(result.stdout, /listening on/);
    } finally {
      await taken.stop();
    }
  });
});

test("SIGINT stops the cluster too", async () => {
  await withWorkspace(async (cwd, databaseUrl) => {
    const server = await startProcess({ WORKERS: "2", DATABASE_URL: databaseUrl }, cwd, SERVER_ENTRY, CLUSTER_START_MS);
    const pids = new Set<number>();
    for (let i = 0; i < 6; i += 1) pids.add(await healthPid(server.url));
    const exited = once(server.child, "exit");
    server.child.kill("SIGINT");
    const [code] = await exited;
    assert.equal(code, 0);
    for (const pid of pids) {
      for (let i = 0; i < 50 && alive(pid); i += 1) await new Promise((resolve) => setTimeout(resolve, 100));
      assert.ok(!alive(pid), `worker ${pid} stopped`);
    }
  });
});

test("WORKERS=2: GET /metrics answers for the whole cluster, whichever worker takes it", { timeout: 180_000 }, async () => {
  await withWorkspace(async (cwd, databaseUrl) => {
    const server: Running = await startProcess({ WORKERS: "2", DATABASE_URL: databaseUrl, BLOC_ADMIN_TOKEN: ADMIN }, cwd, SERVER_ENTRY, CLUSTER_START_MS);
    try {
      const pids = new Set<number>();
      for (let i = 0; i < 40; i += 1) pids.add(await healthPid(server.url));
      assert.equal(pids.size, 2, "both workers answered /health");
      // Each scrape, on a connection of its own, may land on either worker: all see the same 40.
      for (let i = 0; i < 6; i += 1) {
        const reply = await call(server.url, "GET", "/metrics", { headers: { connection: "close" } });
        assert.equal(reply.status, 200, reply.text);
        const line = reply.text.split("\n").find((l) => l.startsWith('bloc_http_requests_total{method="GET",route="/health",status="200"}'));
        assert.equal(line?.split(" ")[1], "40", line);
      }
    } finally {
      await server.stop();
    }
  });
});

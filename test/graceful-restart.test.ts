import { test } from "node:test";
import assert from "node:assert/strict";
import { once } from "node:events";
import { seedArchive } from "./support/archive.js";
import { testEngine } from "./support/database.js";
import { call } from "./support/http.js";
import { holdReport, holdUpload, untilRefused, type HeldUpload } from "./support/in-flight.js";
import { freshWorkspace, SERVER_ENTRY, startProcess, type Running, type Workspace } from "./support/process.js";

/**
 * SIGTERM drains: the port closes, requests in progress (uploads still sending their
 * body, a report still streaming to a slow reader) finish with whole answers, the
 * store closes and the process exits 0. Restarted on the same database, every write
 * that was answered 200 is there. Then the same for a WORKERS=2 cluster, and the time
 * limit that keeps a stuck client from holding a stop forever.
 */

const ADMIN = "graceful-test-admin-token-0123456789";
/** Records behind the slow report, each with a value this long: tens of megabytes, more than socket buffers hold. */
const REPORT_RECORDS = 12_000;
const REPORT_VALUE = "r".repeat(2_000);
const LOAD_CLIENTS = 16;
const HELD_UPLOADS = 4;

interface Setup {
  readonly workspace: Workspace;
  readonly env: Record<string, string>;
  /** The bloc the load and the held uploads add to. */
  readonly blocId: string;
  /** The bloc of the slow report, which nothing writes to while it streams. */
  readonly archiveId: string;
}

/** A bloc for the load, and a second one filled (through the store) with the records of the slow report. */
async function prepare(name: string, extraEnv: Record<string, string> = {}): Promise<Setup & { server: Running }> {
  const workspace = await freshWorkspace(name);
  const env = { DATABASE_URL: workspace.databaseUrl, BLOC_ADMIN_TOKEN: ADMIN, ...extraEnv };
  const server = await startProcess(env, workspace.cwd, SERVER_ENTRY, 60_000);
  for (const [name, id] of [["Scans", "scans"], ["Archive", "archive"]]) {
    const bloc = await call(server.url, "POST", "/api/admin/blocs", {
      token: ADMIN, json: { name, id, fields: [{ name: "Part" }, { name: "Client" }] },
    });
    assert.equal(bloc.status, 201, bloc.text);
  }
  await seedArchive(workspace, REPORT_RECORDS, REPORT_VALUE);
  return { workspace, env, blocId: "scans", archiveId: "archive", server };
}

interface LoadResult {
  /** field_1 values answered 200. */
  readonly acknowledged: string[];
  /** Answers received whole after SIGTERM was sent (200s and 503s). */
  readonly answeredWhileStopping: number;
}

/**
 * Clients adding records one after another until the server stops answering. Any
 * answer must arrive whole: 200, or the 503 Fastify gives a request that arrives on a
 * kept-alive connection once the stop has begun. A connection refused or closed before
 * any answer ends a client (that request was never taken in).
 */
function runLoad(url: string, blocId: string, stopping: () => boolean): Promise<LoadResult> {
  const acknowledged: string[] = [];
  let answeredWhileStopping = 0;
  const client = async (c: number): Promise<void> => {
    for (let n = 0; ; n += 1) {
      const part = `load-${c}-${n}`;
      let reply;
      try {
        reply = await call(url, "POST", "/api/add-data", { token: ADMIN, json: { scanStationID: blocId, dataToAdd: { field_1: part, field_2: String(c) } } });
      } catch (error) {
        assert.ok(stopping(), `a request failed before the stop: ${String(error)}`);
        return;
      }
      if (stopping()) answeredWhileStopping += 1;
      if (reply.status === 200) {
        acknowledged.push(part);
        continue;
      }
      assert.equal(reply.status, 503, `only a stopping server may refuse: ${reply.status} ${reply.text}`);
      assert.ok(stopping(), "503 before the stop");
      assert.equal(typeof reply.json?.error, "string", `the 503 is a JSON body: ${reply.text}`);
      return;
    }
  };
  return Promise.all(Array.from({ length: LOAD_CLIENTS }, (_, c) => client(c))).then(() => ({ acknowledged, answeredWhileStopping }));
}

/** Every record of a bloc (the load's unless told), read through a report on a restarted server. */
async function partsAfterRestart(setup: Setup, blocId = setup.blocId): Promise<string[]> {
  const server = await startProcess(setup.env, setup.workspace.cwd, SERVER_ENTRY, 60_000);
  try {
    const report = await call(server.url, "GET", "/api/get-data-report", {
      token: ADMIN, json: { stationID: blocId, fieldsToReport: { field_1: true } },
    });
    assert.equal(report.status, 200, report.text);
    return (report.json.data as { field_1: string }[]).map((row) => row.field_1);
  } finally {
    await server.stop();
  }
}

function assertWholeReport(finished: { status: number; body: Buffer; complete: boolean }): void {
  assert.equal(finished.status, 200);
  assert.ok(finished.complete, "the report streamed to its end, not cut off");
  const rows = (JSON.parse(finished.body.toString("utf8")) as { data: { field_2: string }[] }).data;
  assert.equal(rows.length, REPORT_RECORDS, "every row of the report arrived");
  assert.ok(rows.every((row) => row.field_2 === REPORT_VALUE));
}

async function finishUploads(uploads: readonly HeldUpload[]): Promise<number[]> {
  const ids: number[] = [];
  for (const upload of uploads) {
    const answer = await upload.finish();
    assert.ok(answer.complete, "the upload's answer arrived whole");
    assert.equal(answer.status, 200, answer.body.toString());
    ids.push((JSON.parse(answer.body.toString()) as { returnedStationID: number }).returnedStationID);
  }
  return ids;
}

test(`SIGTERM under load: in-flight uploads and a streaming report finish, every answered write survives the restart (${testEngine()})`, { timeout: 240_000 }, async (t) => {
  const setup = await prepare("graceful");
  const { server } = setup;
  try {
    let stopping = false;
    const load = runLoad(server.url, setup.blocId, () => stopping);
    // Let the load get going: some adds answered before the stop.
    while ((await call(server.url, "GET", "/api/get-data", { token: ADMIN, json: { blocId: setup.blocId } })).json.data.count < 50) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const report = await holdReport(server.url, ADMIN, { stationID: setup.archiveId, fieldsToReport: "all" });
    assert.equal(report.status, 200);
    const uploads = await Promise.all(Array.from({ length: HELD_UPLOADS }, (_, i) =>
      holdUpload(server.url, ADMIN, { scanStationID: setup.blocId, dataToAdd: { field_1: `held-${i}`, field_2: "held" } })));

    const exited = once(server.child, "exit");
    stopping = true;
    server.child.kill("SIGTERM");
    await untilRefused(server.url);
    // Stopped listening, and still waiting for the report's reader and the uploads' bodies.
    assert.equal(server.child.exitCode, null, "the server waits for the requests in progress");
    const before = report.received();
    const ids = await finishUploads(uploads);
    const finished = await report.finish();
    assertWholeReport(finished);
    assert.ok(before < finished.body.length, `the report was still streaming at the stop (${before} of ${finished.body.length} bytes read)`);
    const { acknowledged, answeredWhileStopping } = await load;
    const [code, signal] = await exited as [number | null, NodeJS.Signals | null];
    assert.deepEqual({ code, signal }, { code: 0, signal: null }, "the server exits 0 once drained");

    const parts = await partsAfterRestart(setup);
    const stored = new Set(parts);
    assert.equal(stored.size, parts.length, "no record was stored twice");
    const lost = acknowledged.filter((part) => !stored.has(part));
    assert.deepEqual(lost, [], "every add answered 200 is there after the restart");
    for (let i = 0; i < HELD_UPLOADS; i += 1) assert.ok(stored.has(`held-${i}`), `held upload ${i} (record ${ids[i]}) is there`);
    assert.ok(acknowledged.length > 0);
    t.diagnostic(`graceful restart (${testEngine()}): ${acknowledged.length} adds acknowledged, all found; ` +
      `${answeredWhileStopping} answered while stopping; ${HELD_UPLOADS} held uploads and a ${finished.body.length}-byte report completed`);
  } finally {
    if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill("SIGKILL");
    await setup.workspace.remove();
  }
});

test(`WORKERS=2: SIGTERM to the primary drains every worker's requests, then it exits 0 (${testEngine()})`, { timeout: 240_000 }, async () => {
  const setup = await prepare("graceful-cluster", { WORKERS: "2" });
  const { server } = setup;
  try {
    // Connections of their own: the primary hands them to the workers in turn, so both workers hold requests.
    const reports = await Promise.all([0, 1].map(() => holdReport(server.url, ADMIN, { stationID: setup.archiveId, fieldsToReport: "all" })));
    const uploads = await Promise.all(Array.from({ length: HELD_UPLOADS }, (_, i) =>
      holdUpload(server.url, ADMIN, { scanStationID: setup.blocId, dataToAdd: { field_1: `held-${i}`, field_2: "held" } })));
    const exited = once(server.child, "exit");
    server.child.kill("SIGTERM");
    await untilRefused(server.url);
    assert.equal(server.child.exitCode, null, "the primary waits for its workers");
    await finishUploads(uploads);
    for (const report of reports) assertWholeReport(await report.finish());
    const [code] = await exited as [number | null];
    assert.equal(code, 0);
    const stored = new Set(await partsAfterRestart(setup));
    for (let i = 0; i < HELD_UPLOADS; i += 1) assert.ok(stored.has(`held-${i}`));
  } finally {
    if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill("SIGKILL");
    await setup.workspace.remove();
  }
});

test("a client that stops reading cannot hold a stop past BLOC_SHUTDOWN_TIMEOUT_MS", { timeout: 240_000 }, async () => {
  const setup = await prepare("graceful-timeout", { BLOC_SHUTDOWN_TIMEOUT_MS: "500" });
  const { server } = setup;
  try {
    const report = await holdReport(server.url, ADMIN, { stationID: setup.archiveId, fieldsToReport: "all" });
    const exited = once(server.child, "exit");
    server.child.kill("SIGTERM");
    // The reader never reads: only the time limit can end the stop.
    const [code] = await exited as [number | null];
    assert.equal(code, 0, "the store was closed and the process exited normally");
    const finished = await report.finish();
    assert.equal(finished.complete, false, "the stuck report's connection was cut");
    // The records are all there: cutting a reader loses no write.
    assert.equal((await partsAfterRestart(setup, setup.archiveId)).length, REPORT_RECORDS);
  } finally {
    if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill("SIGKILL");
    await setup.workspace.remove();
  }
});

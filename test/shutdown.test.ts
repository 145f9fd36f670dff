import { test } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import { seedArchive } from "./support/archive.js";
import { testEngine } from "./support/database.js";
import { call } from "./support/http.js";
import { holdReport, holdUpload, untilRefused } from "./support/in-flight.js";
import { freshWorkspace, SERVER_ENTRY, startProcess } from "./support/process.js";

/**
 * A stop ends when its last request does, even when every client keeps its connection
 * alive. Before the fix, a connection whose request finished after SIGTERM stayed open
 * (idle, kept alive), and the server waited for it until BLOC_SHUTDOWN_TIMEOUT_MS (25 s
 * by default) although nothing was in progress. graceful-restart.test.ts proves that
 * the requests in progress finish; this file proves that nothing else holds the stop.
 */

const ADMIN = "shutdown-test-admin-token-0123456789";
/** Enough report bytes (about 8 MB) that the report is still streaming at the signal. */
const REPORT_RECORDS = 4_000;
const REPORT_VALUE = "r".repeat(2_000);
const WRITERS = 8;
const READERS = 2;
/** The slack the promise allows between the last answer and the exit (store closed, process gone). */
const EXIT_WITHIN_MS = 2_000;

for (const workers of [1, 2]) {
  const label = workers === 1 ? "one process" : `WORKERS=${workers}`;
  test(`${label}: with keep-alive clients, the stop ends within ${EXIT_WITHIN_MS / 1000} s of the last answer, not at the time limit (${testEngine()})`, { timeout: 180_000 }, async () => {
    const workspace = await freshWorkspace(`shutdown-${workers}`);
    // The default time limit (25 s): a stop that waits for it fails the bound by far.
    const env = { DATABASE_URL: workspace.databaseUrl, BLOC_ADMIN_TOKEN: ADMIN, WORKERS: String(workers) };
    const server = await startProcess(env, workspace.cwd, SERVER_ENTRY, 60_000);
    const agent = new http.Agent({ keepAlive: true });
    try {
      for (const [name, id] of [["Scans", "scans"], ["Archive", "archive"]]) {
        const bloc = await call(server.url, "POST", "/api/admin/blocs", {
          token: ADMIN, json: { name, id, fields: [{ name: "Part" }, { name: "Client" }] },
        });
        assert.equal(bloc.status, 201, bloc.text);
      }
      await seedArchive(workspace, REPORT_RECORDS, REPORT_VALUE);

      let stopping = false;
      let lastAnswerAt = 0;
      let answered = 0;
      const writer = async (w: number): Promise<void> => {
        // A client like a scanner's: one add after another on its kept-alive connection, none once the stop has begun.
        for (let n = 0; !stopping; n += 1) {
          let reply;
          try {
            reply = await call(server.url, "POST", "/api/add-data", {
              agent, token: ADMIN, json: { scanStationID: "scans", dataToAdd: { field_1: `w${w}-${n}`, field_2: String(w) } },
            });
          } catch (error) {
            // An idle connection closed at the signal, as the client sent on it: the request was never taken in.
            assert.ok(stopping, `a request failed before the stop: ${String(error)}`);
            return;
          }
          lastAnswerAt = Date.now();
          answered += 1;
          assert.ok(reply.status === 200 || (stopping && reply.status === 503), `${reply.status} ${reply.text}`);
        }
      };
      const writing = Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(w)));
      while (answered < 40) await new Promise((resolve) => setTimeout(resolve, 20));

      // In progress at the signal, each on a kept-alive connection: reports streaming to paused readers, an upload half sent.
      const reports = await Promise.all(Array.from({ length: READERS }, () =>
        holdReport(server.url, ADMIN, { stationID: "archive", fieldsToReport: "all" }, agent)));
      const upload = await holdUpload(server.url, ADMIN, { scanStationID: "scans", dataToAdd: { field_1: "held", field_2: "held" } }, agent);

      let exitedAt = 0;
      const exited = new Promise<number | null>((resolve) => server.child.once("exit", (code) => { exitedAt = Date.now(); resolve(code); }));
      stopping = true;
      server.child.kill("SIGTERM");
      await untilRefused(server.url);
      assert.equal(server.child.exitCode, null, "the server waits for the requests in progress");

      const uploaded = await upload.finish();
      assert.equal(uploaded.status, 200, uploaded.body.toString());
      assert.ok(uploaded.complete, "the upload's answer arrived whole");
      lastAnswerAt = Math.max(lastAnswerAt, Date.now());
      for (const report of reports) {
        const finished = await report.finish();
        assert.equal(finished.status, 200);
        assert.ok(finished.complete, "the report streamed to its end");
        assert.equal((JSON.parse(finished.body.toString("utf8")) as { data: unknown[] }).data.length, REPORT_RECORDS);
        lastAnswerAt = Math.max(lastAnswerAt, Date.now());
      }
      await writing;

      const code = await exited;
      assert.equal(code, 0, server.output());
      const waited = exitedAt - lastAnswerAt;
      assert.ok(waited < EXIT_WITHIN_MS, `the server exited ${waited} ms after the last answer: ${server.output()}`);
      assert.doesNotMatch(server.output(), /shutdown time limit/, "no request was left at the time limit");
    } finally {
      agent.destroy();
      if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill("SIGKILL");
      await workspace.remove();
    }
  });
}

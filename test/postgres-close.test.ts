import { test } from "node:test";
import assert from "node:assert/strict";
import crypto from "node:crypto";
import { once } from "node:events";
import autocannon from "autocannon";
import { testEngine } from "./support/database.js";
import { call } from "./support/http.js";
import { freshWorkspace, startProcess } from "./support/process.js";

/*
 * After group-committed adds from 32 connections whose clients went away with requests
 * in flight (autocannon stops mid-request when its time is up), the PostgreSQL driver's
 * pool.end() never resolved (porsager/postgres#925: a connection reserved and released
 * keeps it waiting), so a SIGTERM'd server drained its requests and then never exited.
 * The store now ends its pools with a timeout; without it this test fails.
 */
test("a PostgreSQL server exits after SIGTERM once 32 connections of adds have run", {
  skip: testEngine() === "postgres" ? false : "the driver's pool is PostgreSQL's",
  timeout: 90_000,
}, async () => {
  const workspace = await freshWorkspace("pg-close");
  const admin = `pg-close-admin-${crypto.randomBytes(8).toString("hex")}`;
  const server = await startProcess({ DATABASE_URL: workspace.databaseUrl, BLOC_ADMIN_TOKEN: admin }, workspace.cwd);
  try {
    const bloc = await call(server.url, "POST", "/api/admin/blocs", {
      token: admin, json: { name: "Scans", fields: [{ name: "Part" }, { name: "Line" }] },
    });
    assert.equal(bloc.status, 201, bloc.text);
    const result = await autocannon({
      url: `${server.url}/api/add-data`, method: "POST", connections: 32, duration: 2,
      headers: { "content-type": "application/json", authorization: `Bearer ${admin}` },
      body: JSON.stringify({ scanStationID: bloc.json.id, dataToAdd: JSON.stringify({ field_1: "P-1", field_2: "Line 2" }) }),
    });
    assert.equal(result.non2xx + result.errors, 0, "every add answered 200");
    assert.ok(result.requests.total > 32, `only ${result.requests.total} adds`);
    const exited = once(server.child, "exit");
    const started = Date.now();
    server.child.kill("SIGTERM");
    const outcome = await Promise.race([exited.then(() => "exited"), new Promise((resolve) => setTimeout(() => resolve("still running"), 30_000))]);
    assert.equal(outcome, "exited", "the server exits within 30 s of SIGTERM");
    assert.equal(server.child.exitCode, 0);
    assert.ok(Date.now() - started < 30_000);
  } finally {
    if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill("SIGKILL");
    await workspace.remove();
  }
});

import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import parse from "parse-prometheus-text-format";
import { addBloc, addRecord, startServer, type TestServer } from "./support/server.js";
import { call } from "./support/http.js";

/** Issue 11: GET /metrics in the Prometheus text format, moving with traffic, on the engine under test. */

/** The parsed families, and the text (histogram samples are read from it: see observed). */
interface Families extends Array<ReturnType<typeof parse>[number]> { text?: string }

/** One line of the text format: a comment, or a sample `name{labels} value`. */
const LINE = /^(#.*|[a-zA-Z_:][a-zA-Z0-9_:]*(\{[^}]*\})? [-+0-9.eEInfNa]+)$/;

async function scrape(server: TestServer, token?: string): Promise<Families> {
  const reply = await call(server.url, "GET", "/metrics", token === undefined ? {} : { token });
  assert.equal(reply.status, 200, reply.text);
  assert.match(String(reply.headers["content-type"]), /^text\/plain; version=0\.0\.4/);
  for (const line of reply.text.split("\n").filter((l) => l !== "")) assert.match(line, LINE);
  const families: Families = parse(reply.text);
  assert.ok(families.length > 10);
  families.text = reply.text;
  return families;
}

/** A counter's value for the samples whose labels include `labels` (summed), 0 when none. */
function counter(families: Families, name: string, labels: Record<string, string> = {}): number {
  const family = families.find((f) => f.name === name);
  if (!family) return 0;
  assert.equal(family.type, "COUNTER", name);
  return family.metrics
    .filter((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v))
    .reduce((sum, m) => sum + Number(m.value), 0);
}

/**
 * A histogram's observation count for the series whose labels include `labels`, read
 * from its `_count` samples: parse-prometheus-text-format 1.1.1 keeps only the first
 * series of a labelled histogram, so its histograms are not used.
 */
function observed(families: Families, name: string, labels: Record<string, string>): number {
  const family = families.find((f) => f.name === name);
  if (!family) return 0;
  assert.equal(family.type, "HISTOGRAM", name);
  const sample = new RegExp(`^${name}_count\\{(.*)\\} (\\S+)$`);
  let sum = 0;
  for (const line of families.text!.split("\n")) {
    const match = sample.exec(line);
    if (!match) continue;
    const found = Object.fromEntries([...match[1]!.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([k, v]) => found[k] === v)) sum += Number(match[2]);
  }
  return sum;
}

describe("GET /metrics without a token setting", () => {
  let server: TestServer;
  let blocId: string;
  before(async () => {
    server = await startServer();
    blocId = await addBloc(server, "Metered", ["Code", "State"]);
  });
  after(async () => { await server.close(); });

  test("parses as Prometheus text, with the process's default metrics", async () => {
    const families = await scrape(server);
    for (const name of ["process_cpu_user_seconds_total", "process_resident_memory_bytes", "nodejs_eventloop_lag_seconds"]) {
      assert.ok(families.some((f) => f.name === name), name);
    }
  });

  test("its counters move with traffic by the right amounts", async () => {
    const before = await scrape(server);
    const secret = "secret-value-7f3a";
    for (const state of ["open", "open", "closed"]) await addRecord(server, blocId, { field_1: secret, field_2: state });
    const updated = await server.call("POST", "/api/update-records-by-matching-values", {
      json: { blocId, fieldsToUpdate: { field_2: "done" }, searchItems: { field_2: "open" } },
    });
    assert.equal(updated.status, 200, updated.text);
    assert.equal(updated.json.updated_record_ids.length, 2);
    const report = await server.call("GET", "/api/get-data-report", { json: { stationID: blocId, fieldsToReport: "all" } });
    assert.equal(report.status, 200, report.text);
    const refused = await server.call("GET", `/api/get-data?blocId=${encodeURIComponent(blocId)}`, { token: "bds_not-a-token" });
    assert.equal(refused.status, 401);
    const missing = await server.call("GET", `/no/such/${secret}`);
    assert.equal(missing.status, 404);

    const after = await scrape(server);
    const delta = (name: string, labels: Record<string, string> = {}): number => counter(after, name, labels) - counter(before, name, labels);
    assert.equal(delta("bloc_records_added_total"), 3);
    assert.equal(delta("bloc_records_updated_total"), 2);
    assert.equal(delta("bloc_report_rows_total"), 3);
    assert.equal(delta("bloc_http_requests_total", { method: "POST", route: "/api/add-data", status: "200" }), 3);
    assert.equal(delta("bloc_http_requests_total", { route: "/api/update-records-by-matching-values", status: "200" }), 1);
    assert.equal(delta("bloc_http_requests_total", { method: "GET", route: "/api/get-data-report", status: "200" }), 1);
    assert.equal(delta("bloc_http_requests_total", { method: "GET", route: "/api/get-data", status: "401" }), 1);
    assert.equal(delta("bloc_http_requests_total", { route: "(unmatched)", status: "404" }), 1);
    const latency = observed(after, "bloc_http_request_duration_seconds", { route: "/api/add-data" }) -
      observed(before, "bloc_http_request_duration_seconds", { route: "/api/add-data" });
    assert.equal(latency, 3);
    const transactions = observed(after, "bloc_store_operation_duration_seconds", { operation: "transaction" }) -
      observed(before, "bloc_store_operation_duration_seconds", { operation: "transaction" });
    assert.ok(transactions >= 4, `${transactions} transactions timed`);
    assert.ok(observed(after, "bloc_store_operation_duration_seconds", { operation: "findTokenByHash" }) > 0);

    // Labels are routes, methods, statuses and operations: no value, URL or token shows.
    const text = (await call(server.url, "GET", "/metrics")).text;
    for (const leak of [secret, server.adminToken, "bds_not-a-token", blocId]) assert.ok(!text.includes(leak), leak);
  });

  test("a repeated Idempotency-Key adds no record to the count", async () => {
    const before = counter(await scrape(server), "bloc_records_added_total");
    for (let i = 0; i < 2; i += 1) {
      const reply = await server.call("POST", "/api/add-data", {
        json: { scanStationID: blocId, dataToAdd: JSON.stringify({ field_1: "once" }) },
        headers: { "idempotency-key": "metrics-once" },
      });
      assert.equal(reply.status, 200, reply.text);
    }
    assert.equal(counter(await scrape(server), "bloc_records_added_total") - before, 1);
  });
});

describe("GET /metrics with BLOC_METRICS_TOKEN", () => {
  const token = "metrics-token-0123456789abcdef";
  let server: TestServer;
  before(async () => { server = await startServer({ BLOC_METRICS_TOKEN: token }); });
  after(async () => { await server.close(); });

  test("answers the token and refuses, in JSON, none, another, or the admin's", async () => {
    await scrape(server, token);
    for (const other of [undefined, "metrics-token-0123456789abcdeX", server.adminToken, `${token}x`]) {
      const reply = await call(server.url, "GET", "/metrics", other === undefined ? {} : { token: other });
      assert.equal(reply.status, 401, reply.text);
      assert.equal(typeof reply.json.error, "string");
      assert.ok(!reply.text.includes(token));
    }
  });
});

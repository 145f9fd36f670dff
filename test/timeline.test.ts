import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { BlocClient } from "bloc-data-service/client";
import { insertAt } from "./support/fixtures.js";
import { addBloc, startServer, type TestServer } from "./support/server.js";
import type { JsonBody } from "./support/json.js";

/*
 * GET /api/blocs/:blocId/timeline: records per hour or day of a window, as the reader sees
 * them (grant, restriction, profile filter) and as value filters narrow them, each bucket
 * equal to get-data's count over the same window.
 */

let server: TestServer;
let bloc: string;
const users: Record<string, { id: string; token: string }> = {};

async function admin(method: string, path: string, json?: unknown): Promise<JsonBody> {
  const reply = await server.call(method, path, json === undefined ? {} : { json });
  assert.ok(reply.status < 300, `${method} ${path}: ${reply.status} ${reply.text}`);
  return reply.json;
}

async function user(name: string, grant: Record<string, boolean> | null, profile: string[] = []): Promise<void> {
  const made = await admin("POST", "/api/admin/users", { name, role: "member" });
  await admin("PUT", `/api/admin/users/${made.id}`, { profile });
  if (grant) await admin("PUT", `/api/admin/blocs/${bloc}/access/${made.id}`, grant);
  users[name] = { id: made.id as string, token: (await admin("POST", `/api/admin/users/${made.id}/tokens`, {})).token as string };
}

const ask = (query: string, token?: string) =>
  server.call("GET", `/api/blocs/${bloc}/timeline?${query}`, token === undefined ? {} : { token });
const counts = async (query: string, token?: string): Promise<number[]> => {
  const reply = await ask(query, token);
  assert.equal(reply.status, 200, reply.text);
  return reply.json.buckets.map((b: { count: number }) => b.count);
};

const DAYS = "from=2026-03-03&to=2026-03-05";

before(async () => {
  server = await startServer();
  bloc = await addBloc(server, "Scans", ["Part", "Site"]);
  await admin("PATCH", `/api/admin/blocs/${bloc}/fields/field_2`, { applyProfileFilter: true });
  await user("Ann", { read: true }, ["Dublin"]);
  await user("Bob", { read: true }, ["Dublin", "Cork"]);
  await user("Eve", null);
  await user("Fay", { read: true }, ["Dublin", "Cork"]);
  await admin("PUT", `/api/admin/blocs/${bloc}/restrictions/${users.Bob!.id}`, { mode: "own" });
  await admin("PUT", `/api/admin/blocs/${bloc}/restrictions/${users.Fay!.id}`, { mode: "hidden" });
  const records: [string, string, string, string][] = [
    ["2026-03-03 08:10:00", "Ann", "P-1", "Dublin"],
    ["2026-03-03 08:50:00", "Bob", "P-2", "Cork"],
    ["2026-03-03 09:30:00", "Ann", "P-2", "Dublin"],
    ["2026-03-04 10:00:00", "Bob", "P-1", "Cork"],
    ["2026-03-05 23:59:59", "Ann", "P-1", "Dublin"],
    ["2026-03-06 00:00:00", "Ann", "P-1", "Dublin"],
  ];
  // Enough records on the 3rd for its counters to count values (BLOC_COUNTED_ABOVE=8 in the suite), none of them in the window's filters.
  for (let i = 0; i < 10; i += 1) records.push([`2026-03-03 15:${String(i).padStart(2, "0")}:00`, "Ann", `Q-${i}`, "Galway"]);
  for (const [at, by, part, site] of records) await insertAt(server, bloc, at, { field_1: part, field_2: site }, users[by]!.id);
});

after(async () => { await server.close(); });

test("per day and per hour, for an admin: every record in its bucket, the bounds inclusive, equal to get-data's counts", async () => {
  const reply = await ask(DAYS);
  assert.equal(reply.status, 200);
  assert.deepEqual(reply.json, {
    blocId: bloc, unit: "day",
    buckets: [
      { start: "2026-03-03 00:00:00", end: "2026-03-03 23:59:59", count: 13 },
      { start: "2026-03-04 00:00:00", end: "2026-03-04 23:59:59", count: 1 },
      { start: "2026-03-05 00:00:00", end: "2026-03-05 23:59:59", count: 1 },
    ],
  });
  const hours = (await ask("from=2026-03-03&to=2026-03-03&unit=hour")).json.buckets as { start: string; count: number }[];
  assert.equal(hours.length, 24);
  assert.deepEqual(hours.filter((b) => b.count > 0).map((b) => [b.start, b.count]),
    [["2026-03-03 08:00:00", 2], ["2026-03-03 09:00:00", 1], ["2026-03-03 15:00:00", 10]]);
  for (const bucket of hours) {
    const page = await server.call("GET", "/api/get-data", { json: { blocId: bloc, fromDate: bucket.start, toDate: bucket.start.slice(0, 14) + "59:59" } });
    assert.equal(page.json.data.count, bucket.count, bucket.start);
  }
  const client = new BlocClient({ url: server.url, token: server.adminToken });
  try {
    const viaClient = await client.timeline({ blocId: bloc, from: "2026-03-03", to: "2026-03-05", filters: { field_1: ["P-1"] } });
    assert.deepEqual(viaClient.buckets.map((b) => b.count), [1, 1, 1]);
  } finally {
    client.close();
  }
});

test("value filters: one of the values per field, every field named", async () => {
  assert.deepEqual(await counts(`${DAYS}&f.field_1=P-1`), [1, 1, 1]);
  assert.deepEqual(await counts(`${DAYS}&f.field_1=P-1&f.field_1=P-2`), [3, 1, 1]);
  assert.deepEqual(await counts(`${DAYS}&f.field_1=P-2&f.field_2=Cork`), [1, 0, 0]);
  assert.deepEqual(await counts(`${DAYS}&f.field_1=nothing`), [0, 0, 0]);
});

test("restrictions: an `own` reader counts their records, a profile-filtered one their sites, a hidden one none", async () => {
  assert.deepEqual(await counts(DAYS, users.Bob!.token), [1, 1, 0]);
  assert.deepEqual(await counts(DAYS, users.Ann!.token), [2, 0, 1]);
  assert.deepEqual(await counts(`${DAYS}&f.field_2=Cork`, users.Ann!.token), [0, 0, 0], "a filter on a hidden value finds nothing");
  assert.deepEqual(await counts(`${DAYS}&f.field_2=Galway`, users.Ann!.token), [0, 0, 0]);
  assert.deepEqual(await counts(DAYS, users.Fay!.token), [0, 0, 0]);
});

test("refusals: 401 without read (a missing bloc alike), 400 with `error` for a bad window, unit or filter", async () => {
  const refused = await ask(DAYS, users.Eve!.token);
  assert.equal(refused.status, 401);
  assert.equal(typeof refused.json.error, "string");
  const missing = await server.call("GET", `/api/blocs/no-such-bloc/timeline?${DAYS}`, { token: users.Eve!.token });
  assert.deepEqual([missing.status, missing.json], [401, refused.json]);
  for (const [query, pattern] of [
    ["to=2026-03-05", /from is required/],
    ["from=2026-03-03&to=2026-3-5", /to must be a date/],
    ["from=2026-02-30&to=2026-03-05", /not a real date/],
    ["from=2026-03-05&to=2026-03-03", /after/],
    [`${DAYS}&unit=week`, /unit must be hour or day/],
    ["from=2026-03-01&to=2026-03-03&unit=hour", /more than 62 hours/],
    ["from=2026-01-01&to=2026-12-31", /more than 62 days/],
    [`${DAYS}&f.nope=1`, /"nope", which is not a field/],
  ] as const) {
    const reply = await ask(query);
    assert.equal(reply.status, 400, query);
    assert.match(reply.json.error, pattern, query);
  }
});

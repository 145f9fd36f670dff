import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { once } from "node:events";
import type { RecordFilter, StoredRecord } from "../src/domain/model.js";
import type { NewRecord } from "../src/domain/ports/records.js";
import { importRecords } from "../src/domain/record-writes.js";
import { countVisibleRecords, countValues, listVisibleRecords } from "../src/domain/record-queries.js";
import { readConfig } from "../src/config.js";
import { openStore } from "../src/store/open-store.js";
import { countingThreshold } from "../src/domain/counting/keys.js";
import { allRows, assertCountersEqualRecount } from "./support/recount.js";
import { addBloc, addMember, startServer, type Member, type TestServer } from "./support/server.js";
import { call } from "./support/http.js";
import { freshWorkspace, startProcess } from "./support/process.js";

/**
 * The counters (records per day and owner, values per field and owner) are kept
 * incrementally; they must always equal a full recount from the records themselves:
 * after random adds, imports, updates and restriction changes, and after a crash.
 */

/** A small deterministic generator, so that a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

const SITES = ["Dublin", "Cork", "Galway", ""];
const SHIFTS = ["day", "night", "swing"];

/** Value counts of records computed here, for comparing with what the store answers. */
function tally(records: readonly StoredRecord[], slugs: readonly string[]): Record<string, Record<string, number>> {
  const counts: Record<string, Record<string, number>> = Object.fromEntries(slugs.map((s) => [s, {}]));
  for (const record of records) {
    for (const slug of slugs) {
      const value = record.values[slug] ?? "";
      if (value !== "") counts[slug]![value] = (counts[slug]![value] ?? 0) + 1;
    }
  }
  return counts;
}

let server: TestServer;
let blocId: string;
let members: Member[];

before(async () => {
  server = await startServer({ BLOC_FIELD_COUNTS_LIMIT: "0" });
  blocId = await addBloc(server, "Counted", ["Site", "Shift", "Note"]);
  // Site is profile-filtered from the start; Shift becomes so half-way (a recount), then stops.
  await server.call("PATCH", `/api/admin/blocs/${blocId}/fields/field_1`, { json: { applyProfileFilter: true } });
  members = [];
  for (let i = 0; i < 3; i += 1) {
    const member = await addMember(server, { blocId, read: true, add: true, update: true });
    // Members may write every site and shift (profile filters govern writes too); "" admits empty values.
    await server.call("PUT", `/api/admin/users/${member.id}`, { json: { profile: [...SITES, ...SHIFTS] } });
    members.push(member);
  }
});

after(async () => { await server.close(); });

test("after random adds, imports, updates and restriction changes the counters equal a recount", async () => {
  const next = random(7);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
  const tokens = [server.adminToken, ...members.map((m) => m.token)];
  for (let round = 0; round < 6; round += 1) {
    // Adds over HTTP, many at once so that they share group commits.
    await Promise.all(Array.from({ length: 40 }, () => server.call("POST", "/api/add-data", {
      token: pick(tokens),
      json: { scanStationID: blocId, dataToAdd: { field_1: pick(SITES), field_2: pick(SHIFTS), field_3: `n${Math.floor(next() * 30)}` } },
    }).then((reply) => assert.equal(reply.status, 200, reply.text))));
    // Imports spread over many days, owned by anyone.
    const imported = Array.from({ length: 60 }, () => ({
      blocId, createdAt: `2026-0${1 + Math.floor(next() * 9)}-1${Math.floor(next() * 9)} 1${Math.floor(next() * 9)}:00:00`,
      userId: pick(["1", ...members.map((m) => m.id)]), submittedStatus: 1, jobId: null,
      values: { field_1: pick(SITES), field_2: pick(SHIFTS) },
    }));
    await server.ctx.store.transaction((tx) => importRecords(tx, imported));
    // Updates that move values between sites, clear notes, and match nothing.
    for (let u = 0; u < 5; u += 1) {
      const reply = await server.call("POST", "/api/update-records-by-matching-values", {
        json: {
          blocId,
          fieldsToUpdate: pick([{ field_1: pick(SITES) }, { field_3: "" }, { field_2: pick(SHIFTS), field_3: "edited" }]),
          searchItems: pick([{ field_2: pick(SHIFTS) }, { field_1: pick(SITES), field_2: pick(SHIFTS) }, { field_3: "no such note" }]),
        },
      });
      assert.equal(reply.status, 200, reply.text);
    }
    // A member whose restriction changes reads through the owner counters.
    const member = pick(members);
    await server.call("PUT", `/api/admin/blocs/${blocId}/restrictions/${member.id}`, { json: { mode: pick(["own", "none"]) } });
    if (round === 2 || round === 4) {
      await server.call("PATCH", `/api/admin/blocs/${blocId}/fields/field_2`, { json: { applyProfileFilter: round === 2 } });
    }
  }
  // Records that move between profile segments, after the last recount: they must leave one and enter another.
  for (const [fieldsToUpdate, searchItems] of [[{ field_1: "Galway" }, { field_2: "day" }], [{ field_1: "" }, { field_1: "Cork" }]]) {
    const moved = await server.call("POST", "/api/update-records-by-matching-values", { json: { blocId, fieldsToUpdate, searchItems } });
    assert.ok(moved.json.updated_record_ids.length > 0, `${JSON.stringify(searchItems)} matched records`);
  }
  await assertCountersEqualRecount(server.ctx.store);

  const everything = await server.ctx.store.records.listRecords({ blocId }, { order: "newest", limit: 100_000, offset: 0 });
  const slugs = ["field_1", "field_2", "field_3"];
  const filters: { filter: RecordFilter; keep: (r: StoredRecord) => boolean }[] = [
    { filter: { blocId }, keep: () => true },
    { filter: { blocId, visibility: { ownerId: members[0]!.id } }, keep: (r) => r.userId === members[0]!.id },
    { filter: { blocId, from: "2026-03-14 12:30:00", to: "2026-06-12 15:00:00" },
      keep: (r) => r.createdAt >= "2026-03-14 12:30:00" && r.createdAt <= "2026-06-12 15:00:00" },
    { filter: { blocId, visibility: { ownerId: "1" }, from: "2026-02-11 00:00:00" },
      keep: (r) => r.userId === "1" && r.createdAt >= "2026-02-11 00:00:00" },
    { filter: { blocId, visibility: { match: [{ key: "field_1", values: ["Cork"] }] } }, keep: (r) => r.values.field_1 === "Cork" },
    { filter: { blocId, visibility: { match: [{ key: "field_1", values: ["Cork", "Galway"] }] }, to: "2026-07-01 12:00:00" },
      keep: (r) => ["Cork", "Galway"].includes(r.values.field_1 ?? "") && r.createdAt <= "2026-07-01 12:00:00" },
    { filter: { blocId, visibility: { match: [{ key: "field_1", values: ["Dublin", "Cork", "Galway"] }] } },
      keep: (r) => ["Dublin", "Cork", "Galway"].includes(r.values.field_1 ?? "") },
  ];
  for (const { filter, keep } of filters) {
    const expected = everything.filter(keep);
    const what = JSON.stringify(filter);
    assert.equal(await countVisibleRecords(server.ctx.store, filter), expected.length, `count ${what}`);
    const counted = await countValues(server.ctx.store, filter, slugs, 0);
    assert.deepEqual(Object.fromEntries(slugs.map((slug) => [slug, Object.fromEntries(counted.get(slug) ?? [])])),
      tally(expected, slugs), `values ${what}`);
    // Pages found by seeking through the day counts equal slices of the full order.
    for (const offset of [0, 1, 37, Math.floor(expected.length / 2), expected.length - 3, expected.length + 5]) {
      for (const order of ["newest", "oldest"] as const) {
        const sorted = order === "newest" ? expected : [...expected].reverse();
        const page = await listVisibleRecords(server.ctx.store, filter, { order, limit: 7, offset: Math.max(0, offset) });
        assert.deepEqual(page.map((r) => r.id), sorted.slice(Math.max(0, offset), Math.max(0, offset) + 7).map((r) => r.id),
          `page at ${offset} ${order} ${what}`);
      }
    }
  }
});

test("one transaction giving 150 values their second record counts every one of them, as a recount does", async () => {
  const threshold = countingThreshold();
  assert.ok(threshold <= 200, `BLOC_COUNTED_ABOVE is small in tests (${threshold})`);
  const bloc = await addBloc(server, "Second holders", ["Line", "Serial"]);
  const made = (i: number, day: string): NewRecord =>
    ({ blocId: bloc, createdAt: `2026-04-${day} 08:00:00`, userId: "1", submittedStatus: 1, jobId: null, values: { field_1: `L${i % 3}`, field_2: `SN-${i}` } });
  // Past the threshold first, so that the bloc's scopes count values; each serial held once, so none is counted.
  const serials = 150;
  await server.ctx.store.transaction((tx) => importRecords(tx, Array.from({ length: threshold + serials }, (_, i) => made(i, "10"))));
  const counted = async (filter: RecordFilter): Promise<Map<string | null, number>> =>
    new Map((await countValues(server.ctx.store, filter, ["field_2"], 0)).get("field_2") ?? []);
  assert.equal((await counted({ blocId: bloc })).get("SN-0"), 1);
  // Then one transaction gives 150 of them a second record, on another day: more values than one batch of holders reads.
  await server.ctx.store.transaction((tx) => importRecords(tx, Array.from({ length: serials }, (_, i) => made(i, "11"))));
  const after = await counted({ blocId: bloc });
  for (let i = 0; i < serials; i += 1) assert.equal(after.get(`SN-${i}`), 2, `SN-${i}`);
  assert.equal(after.get(`SN-${serials}`), 1);
  assert.equal((await counted({ blocId: bloc, from: "2026-04-10 00:00:00", to: "2026-04-10 23:59:59" })).get("SN-149"), 1);
  await assertCountersEqualRecount(server.ctx.store);
});

/** An owner's scopes in a bloc: how many, how many count values or are hours, and the value rows they hold. */
interface OwnedScopes {
  readonly scopes: number;
  readonly counted: number;
  readonly hours: number;
  readonly values: number;
}

const NO_SCOPES: OwnedScopes = { scopes: 0, counted: 0, hours: 0, values: 0 };

async function ownedScopes(bloc: string, m: Member): Promise<OwnedScopes> {
  const store = server.ctx.store;
  const scopes = (await allRows(store, "counter_scopes")).filter((r) => r.bloc_id === bloc && r.segment === `u:${m.id}`);
  const ids = new Set(scopes.map((r) => Number(r.id)));
  return {
    scopes: scopes.length,
    counted: scopes.filter((r) => Number(r.counted) === 1).length,
    hours: scopes.filter((r) => String(r.period).startsWith("h:")).length,
    values: (await allRows(store, "value_counts")).filter((r) => ids.has(Number(r.scope_id))).length,
  };
}

/** An own reader's get-data counts exactly their records, and their values of field_1. */
async function assertOwnAnswer(bloc: string, m: Member): Promise<void> {
  const reply = await server.call("GET", "/api/get-data", { token: m.token, json: { blocId: bloc } });
  assert.equal(reply.status, 200, reply.text);
  const mine = await server.ctx.store.records.listRecords({ blocId: bloc, visibility: { ownerId: m.id } }, { order: "newest", limit: 10_000, offset: 0 });
  assert.equal(reply.json.data.count, mine.length, "an own reader counts their records");
  assert.deepEqual(reply.json.data.fieldCounts.field_1, tally(mine, ["field_1"]).field_1!, "and their values");
}

test("an owner has scopes, and counts their values, only while a reader sees that owner's records as their own", async () => {
  const store = server.ctx.store;
  const threshold = countingThreshold();
  assert.ok(threshold <= 200, `BLOC_COUNTED_ABOVE is small in tests (${threshold})`);
  const bloc = await addBloc(server, "Owners", ["Line", "Note"]);
  const [a, b] = [await addMember(server, { blocId: bloc, read: true, add: true }), await addMember(server, { blocId: bloc, read: true, add: true })];
  const add = (m: Member, n: number): Promise<void> => Promise.all(Array.from({ length: n }, (_, i) => server.call("POST", "/api/add-data", {
    token: m.token, json: { scanStationID: bloc, dataToAdd: { field_1: `L${i % 3}`, field_2: i % 2 === 0 ? "ok" : "" } },
  }).then((reply) => assert.equal(reply.status, 200, reply.text)))).then(() => undefined);
  const owned = (m: Member): Promise<OwnedScopes> => ownedScopes(bloc, m);
  const restrict = async (m: Member, mode: "own" | undefined): Promise<void> => {
    const reply = mode === undefined ? await server.call("DELETE", `/api/admin/blocs/${bloc}/restrictions/${m.id}`)
      : await server.call("PUT", `/api/admin/blocs/${bloc}/restrictions/${m.id}`, { json: { mode } });
    assert.ok(reply.status < 300, reply.text);
  };
  const blocRestriction = async (restriction: "own" | "none"): Promise<void> => {
    const reply = await server.call("PATCH", `/api/admin/blocs/${bloc}`, { json: { restriction } });
    assert.equal(reply.status, 200, reply.text);
  };
  const ownAnswer = (m: Member): Promise<void> => assertOwnAnswer(bloc, m);

  const none = NO_SCOPES;
  // Each owner passes the threshold in every period of today: no one reads them as own, so they have no scopes.
  await add(a, threshold + 4);
  await add(b, threshold + 4);
  for (const m of [a, b]) assert.deepEqual(await owned(m), none, "no scopes");
  await assertCountersEqualRecount(store);
  // Counted from their records all the same, for whoever asks for an owner's records.
  const aRecords = await store.records.listRecords({ blocId: bloc, visibility: { ownerId: a.id } }, { order: "newest", limit: 10_000, offset: 0 });
  assert.equal(aRecords.length, threshold + 4);
  assert.equal(await countVisibleRecords(store, { blocId: bloc, visibility: { ownerId: a.id } }), aRecords.length, "an owner without scopes is counted");
  assert.deepEqual(Object.fromEntries((await countValues(store, { blocId: bloc, visibility: { ownerId: a.id } }, ["field_1"], 0)).get("field_1") ?? []),
    tally(aRecords, ["field_1"]).field_1, "and their values");

  // Restricted to own: the owner's scopes are counted from their records, and kept by later adds.
  await restrict(a, "own");
  const followed = await owned(a);
  assert.ok(followed.counted >= 5 && followed.values > 0 && followed.hours >= 1, `a's scopes count values: ${JSON.stringify(followed)}`);
  assert.deepEqual(await owned(b), none, "b has none");
  await add(a, 5);
  await assertCountersEqualRecount(store);
  await ownAnswer(a);
  // A reader whose access was read just before a's restriction changed may ask while a's scopes are gone or being
  // made: with no all-time scope of a's, their view is counted from its records.
  const scopesOfA = (await allRows(store, "counter_scopes")).filter((r) => r.bloc_id === bloc && r.segment === `u:${a.id}`);
  await store.transaction((tx) => tx.counters.changeScopes(bloc, scopesOfA.map((r) => ({ segment: `u:${a.id}`, period: String(r.period), n: -Number(r.n) }))));
  assert.deepEqual(await owned(a), none, "a's scopes taken away by hand");
  await ownAnswer(a);
  await restrict(a, "own");

  // Lifted: a's scopes go.
  await restrict(a, undefined);
  assert.deepEqual(await owned(a), none, "a's scopes are gone");
  await assertCountersEqualRecount(store);

  // `own` for the whole bloc: every owner's scopes count values; and back.
  await blocRestriction("own");
  for (const m of [a, b]) assert.ok((await owned(m)).values > 0, "every owner counts values");
  await add(b, 3);
  await assertCountersEqualRecount(store);
  await ownAnswer(b);
  await blocRestriction("none");
  for (const m of [a, b]) assert.deepEqual(await owned(m), none, "no owner has scopes");
  await assertCountersEqualRecount(store);
});

test("a restriction to own made by another server process is followed by this one's adds and reads", { timeout: 60_000 }, async () => {
  const store = server.ctx.store;
  const threshold = countingThreshold();
  const bloc = await addBloc(server, "Elsewhere", ["Line", "Note"]);
  const [a, b] = [await addMember(server, { blocId: bloc, read: true, add: true }), await addMember(server, { blocId: bloc, read: true, add: true })];
  const add = async (m: Member, n: number): Promise<void> => {
    for (let i = 0; i < n; i += 1) {
      const reply = await server.call("POST", "/api/add-data", { token: m.token, json: { scanStationID: bloc, dataToAdd: { field_1: `L${i % 2}`, field_2: `${m.id}-${i}` } } });
      assert.equal(reply.status, 200, reply.text);
    }
  };
  await add(a, threshold + 2);
  await add(b, 3);
  // This process has read a's access (their adds and this read), and caches it; the other process changes it.
  assert.equal((await server.call("GET", "/api/get-data", { token: a.token, json: { blocId: bloc } })).json.data.count, threshold + 5, "a sees every record");
  const other = await startProcess({ DATABASE_URL: server.databaseUrl, BLOC_ADMIN_TOKEN: server.adminToken }, server.dir);
  try {
    const restricted = await call(other.url, "PUT", `/api/admin/blocs/${bloc}/restrictions/${a.id}`, { token: server.adminToken, json: { mode: "own" } });
    assert.ok(restricted.status < 300, restricted.text);
    // The other process counted a's scopes; this one's adds for a must go on keeping them, and its reads use them.
    assert.ok((await ownedScopes(bloc, a)).scopes > 0, "a's scopes were counted by the other process");
    await add(a, 4);
    await add(b, 2);
    await assertCountersEqualRecount(store);
    await assertOwnAnswer(bloc, a);
    const lifted = await call(other.url, "DELETE", `/api/admin/blocs/${bloc}/restrictions/${a.id}`, { token: server.adminToken });
    assert.ok(lifted.status < 300, lifted.text);
  } finally {
    await other.stop();
  }
  // Lifted there: a's scopes are gone, and this process's adds for a do not bring them back.
  await add(a, 3);
  assert.deepEqual(await ownedScopes(bloc, a), NO_SCOPES, "a has no scopes once the restriction is lifted");
  await assertCountersEqualRecount(store);
  assert.equal((await server.call("GET", "/api/get-data", { token: a.token, json: { blocId: bloc } })).json.data.count, threshold + 14, "a sees every record again");
});

test("fieldCounts lists the most frequent values first, at most BLOC_FIELD_COUNTS_LIMIT per field", async () => {
  const limited = await startServer({ BLOC_FIELD_COUNTS_LIMIT: "2" });
  try {
    const bloc = await addBloc(limited, "Limited", ["Colour"]);
    const colours = ["red", "red", "red", "blue", "blue", "green", "amber", "amber", "amber", "amber"];
    for (const colour of colours) {
      await limited.call("POST", "/api/add-data", { json: { scanStationID: bloc, dataToAdd: { field_1: colour } } });
    }
    for (const json of [{ blocId: bloc }, { blocId: bloc, fromDate: "2000-01-01" }]) {
      const reply = await limited.call("GET", "/api/get-data", { json });
      assert.equal(reply.json.data.count, 10);
      assert.deepEqual(Object.entries(reply.json.data.fieldCounts.field_1), [["amber", 4], ["red", 3]], JSON.stringify(json));
    }
  } finally {
    await limited.close();
  }
});

test("a server killed in the middle of adds and updates leaves counters equal to a recount", async () => {
  const { cwd, databaseUrl, remove } = await freshWorkspace("crash", "./data");
  const admin = "crash-test-admin-token-0123456789";
  const env = { BLOC_ADMIN_TOKEN: admin, DATABASE_URL: databaseUrl };
  try {
    const first = await startProcess(env, cwd);
    const bloc = await call(first.url, "POST", "/api/admin/blocs", { token: admin, json: { name: "Crash", fields: [{ name: "A" }, { name: "B" }] } });
    const traffic: Promise<unknown>[] = [];
    let acknowledged = (): void => undefined;
    const firstAdd = new Promise<void>((resolve) => { acknowledged = resolve; });
    for (let i = 0; i < 400; i += 1) {
      const body = i % 5 === 4
        ? { path: "/api/update-records-by-matching-values", json: { blocId: bloc.json.id, fieldsToUpdate: { field_2: `u${i}` }, searchItems: { field_1: `a${i % 7}` } } }
        : { path: "/api/add-data", json: { scanStationID: bloc.json.id, dataToAdd: { field_1: `a${i % 7}`, field_2: `b${i % 3}` } } };
      traffic.push(call(first.url, "POST", body.path, { token: admin, json: body.json })
        .then((reply) => { if (reply.status === 200 && body.path === "/api/add-data") acknowledged(); })
        .catch(() => undefined));
    }
    // Killed mid-traffic, once some add has been answered (how soon depends on the engine and the machine's load).
    await firstAdd;
    first.child.kill("SIGKILL");
    await Promise.all(traffic);
    if (first.child.exitCode === null && first.child.signalCode === null) await once(first.child, "exit");

    // Opening the store again recovers the write-ahead log; counters must match what survived.
    // The child ran in `cwd`, where a relative SQLite path points.
    const reopened = await openStore(readConfig({ ...env, DATABASE_URL: databaseUrl.replace(/^sqlite:\.\//, `sqlite:${cwd}/`) }));
    try {
      assert.ok(await reopened.records.countRecords({ blocId: bloc.json.id }) > 0, "some adds were committed before the kill");
      await assertCountersEqualRecount(reopened);
    } finally {
      await reopened.close();
    }
  } finally {
    await remove();
  }
});

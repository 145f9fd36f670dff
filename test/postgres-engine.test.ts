import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { ConflictError, InvalidInputError, NotFoundError } from "../src/domain/errors.js";
import type { Bloc, Field } from "../src/domain/model.js";
import { PostgresStore } from "../src/store/postgres/postgres-store.js";
import { SCHEMA_VERSION } from "../src/store/postgres/schema.js";
import { TABLES, type NewRecord, type Row, type Store, type Tx } from "../src/domain/ports/store.js";
import { freshDatabaseUrl, testEngine, type TestDatabase } from "./support/database.js";
import { countVisibleRecords, countValues } from "../src/domain/record-queries.js";
import { layoutOf, profileSegment } from "../src/domain/counting/keys.js";
import { lockBloc } from "../src/domain/capabilities.js";

/*
 * The PostgreSQL engine's own primitives, straight through the Store interface:
 * migrations, transactions, savepoints and group commit, counters, long values,
 * copying. Runs in the suite's PostgreSQL run (BLOC_TEST_ENGINE=postgres), on fresh
 * databases made on BLOC_TEST_PG_URL's server and dropped at the end.
 */

const skip = testEngine() === "postgres" ? false : "runs with BLOC_TEST_ENGINE=postgres";

const databases: TestDatabase[] = [];

async function freshDatabase(): Promise<string> {
  const database = await freshDatabaseUrl("", "postgres-engine");
  databases.push(database);
  return database.url;
}

let store: PostgresStore;

before(async () => {
  if (skip) return;
  store = await PostgresStore.open(await freshDatabase(), 4);
});

after(async () => {
  if (skip) return;
  await store.close();
  for (const database of databases) await database.drop();
});

const TEXT: Omit<Field, "slug" | "name"> = {
  type: "text", options: null, required: false, unique: false, maxLength: null, pattern: null, format: null,
  indexed: false, applyProfileFilter: false,
};

function bloc(id: string, fields: Partial<Field>[]): Bloc {
  return {
    id, name: `Bloc ${id}`, openToAllUsers: false, acceptingData: true, restriction: "none", moduleId: null,
    requireJob: false, scanLimit: null, scanLimitPeriod: null,
    fields: fields.map((f, i) => ({ ...TEXT, slug: `field_${i + 1}`, name: `Field ${i + 1}`, ...f })),
  };
}

function record(blocId: string, createdAt: string, values: Record<string, string>, userId = "1"): NewRecord {
  return { blocId, createdAt, userId, submittedStatus: 1, jobId: null, values };
}

/** Inserts records in one transaction, counting them as the domain would. */
async function insert(s: Store, records: readonly NewRecord[], group?: string): Promise<number[]> {
  return s.transaction(async (tx) => {
    const ids: number[] = [];
    for (const r of records) {
      await lockBloc(tx, r.blocId);
      ids.push(await tx.records.insertRecord(r));
      tx.deltas.add(r, layoutOf((await tx.blocs.findBloc(r.blocId))!), 1);
    }
    return ids;
  }, { group });
}

test("several processes opening one new database migrate it once", { skip }, async () => {
  const url = await freshDatabase();
  const opened = await Promise.all([1, 2, 3].map(() => PostgresStore.open(url, 1)));
  for (const s of opened) assert.equal(s.schemaVersion, SCHEMA_VERSION);
  await Promise.all(opened.map((s) => s.close()));
});

test("config writes and reads; taken keys conflict, missing parents are not found", { skip }, async () => {
  const user = await store.accounts.createUser("ann", "member", "2026-01-01 00:00:00");
  assert.deepEqual(await store.accounts.findUser(user.id), { id: user.id, name: "ann", role: "member", profile: [], email: null, disabled: false });
  assert.equal(await store.accounts.findUser("not-a-number"), undefined);
  await store.accounts.setProfile(user.id, ["site-a"]);
  assert.deepEqual((await store.accounts.findUser(user.id))?.profile, ["site-a"]);
  await store.accounts.createRole("clerks", "2026-01-01 00:00:00");
  await assert.rejects(store.accounts.createRole("clerks", "2026-01-01 00:00:00"), ConflictError);
  const longName = "r".repeat(100_000);
  await store.accounts.createRole(longName, "2026-01-01 00:00:00");
  await assert.rejects(store.accounts.createRole(longName, "2026-01-01 00:00:00"), ConflictError);

  await store.blocs.createBloc(bloc("cfg", [{ unique: true }, {}]), "2026-01-01 00:00:00");
  await assert.rejects(store.blocs.createBloc(bloc("cfg", []), "2026-01-01 00:00:00"), ConflictError);
  const found = await store.blocs.findBloc("cfg");
  assert.deepEqual(found?.fields.map((f) => [f.slug, f.unique]), [["field_1", true], ["field_2", false]]);
  await store.blocs.addField("cfg", { ...TEXT, slug: "extra", name: "Extra", indexed: true });
  await assert.rejects(store.blocs.addField("cfg", { ...TEXT, slug: "extra", name: "Extra" }), ConflictError);
  assert.deepEqual((await store.blocs.findBloc("cfg"))?.fields.map((f) => f.slug), ["field_1", "field_2", "extra"]);
  await store.blocs.updateBlocSettings("cfg", { scanLimit: 5, scanLimitPeriod: "day" });
  const settings = await store.blocs.findBloc("cfg");
  assert.equal(settings?.scanLimit, 5);
  assert.equal(settings?.acceptingData, true);
  await store.blocs.updateBlocSettings("cfg", { scanLimit: null });
  assert.equal((await store.blocs.findBloc("cfg"))?.scanLimit, null);

  const grant = { read: true, add: false, update: false, delete: true, seeHidden: false };
  await store.access.setGrant("cfg", user.id, grant);
  assert.deepEqual(await store.access.accessFacts("cfg", user.id), { grants: [grant], restriction: undefined });
  await assert.rejects(store.access.setGrant("cfg", "999999", grant), NotFoundError);
  await assert.rejects(store.access.setGrant("no-such-bloc", user.id, grant), NotFoundError);
  assert.equal(await store.blocs.highestNumericBlocId(), 0);
  await store.blocs.createBloc(bloc("42", []), "2026-01-01 00:00:00");
  assert.equal(await store.blocs.highestNumericBlocId(), 42);
});

test("a transaction keeps everything or nothing; a group commit undoes only the failed unit", { skip }, async () => {
  await store.blocs.createBloc(bloc("tx", [{}]), "2026-01-01 00:00:00");
  await assert.rejects(store.transaction(async (tx) => {
    await tx.records.insertRecord(record("tx", "2026-01-02 10:00:00", { field_1: "lost" }));
    throw new Error("refused");
  }), /refused/);
  assert.equal(await store.records.countRecords({ blocId: "tx" }), 0);

  const outcomes = await Promise.allSettled([1, 2, 3, 4, 5].map((i) => store.transaction(async (tx) => {
    await lockBloc(tx, "tx");
    const r = record("tx", `2026-01-02 10:00:0${i}`, { field_1: `v${i % 2}` });
    const id = await tx.records.insertRecord(r);
    tx.deltas.add(r, layoutOf((await tx.blocs.findBloc("tx"))!), 1);
    assert.equal(tx.pending.recordsSince("tx", null) >= 0, true);
    // A failed statement inside a unit undoes that unit only.
    if (i === 3) await tx.records.insertRecord(record("no-such-bloc", "2026-01-02 10:00:00", {}));
    return id;
  }, { group: "tx" })));
  assert.deepEqual(outcomes.map((o) => o.status), ["fulfilled", "fulfilled", "rejected", "fulfilled", "fulfilled"]);
  assert.ok((outcomes[2] as PromiseRejectedResult).reason instanceof NotFoundError);
  assert.equal(await store.records.countRecords({ blocId: "tx" }), 4);
  assert.deepEqual(await store.counters.periodCounts("tx", [""], "d:2026-01-01", "d:2026-01-31"), [{ period: "d:2026-01-02", n: 4 }]);
  assert.equal(await countVisibleRecords(store, { blocId: "tx" }), 4);
  assert.deepEqual(await countValues(store, { blocId: "tx" }, ["field_1"], 0), new Map([["field_1", [["v0", 2], ["v1", 2]]]]));
});

test("a failed statement fails its unit even when the unit's code went on", { skip }, async () => {
  await store.blocs.createBloc(bloc("swallow", [{}]), "2026-01-01 00:00:00");
  const swallowing = (i: number) => async (tx: Tx): Promise<number> => {
    const id = await tx.records.insertRecord(record("swallow", `2026-01-05 00:00:0${i}`, { field_1: `s${i}` }));
    if (i === 2) await tx.records.insertRecord(record("no-such-bloc", "2026-01-05 00:00:00", {})).catch(() => undefined);
    return id;
  };
  await assert.rejects(store.transaction(swallowing(2)), NotFoundError);
  assert.equal(await store.records.countRecords({ blocId: "swallow" }), 0);
  const outcomes = await Promise.allSettled([1, 2, 3].map((i) => store.transaction(swallowing(i), { group: "swallow" })));
  assert.deepEqual(outcomes.map((o) => o.status), ["fulfilled", "rejected", "fulfilled"]);
  assert.equal(await store.records.countRecords({ blocId: "swallow" }), 2);
});

test("counters: counted, decreased to nothing, cleared", { skip }, async () => {
  await store.blocs.createBloc(bloc("cnt", [{}]), "2026-01-01 00:00:00");
  const layout = layoutOf((await store.blocs.findBloc("cnt"))!);
  await store.transaction(async (tx) => {
    const r = record("cnt", "2026-01-03 00:00:00", { field_1: "x" });
    await tx.records.insertRecord(r);
    tx.deltas.add(r, layout, 1);
  });
  assert.deepEqual(await store.counters.periodCounts("cnt", [""], "d:2026-01-03", "d:2026-01-03"), [{ period: "d:2026-01-03", n: 1 }]);
  const scopes = await store.counters.scopes("cnt", [{ segment: "", period: "a" }, { segment: "u:1", period: "d:2026-01-03" },
    { segment: "u:1", period: "h:2026-01-03 00" }]);
  // A day of one record keeps no hours: what a window takes of it is counted from its records.
  assert.deepEqual(scopes.map((s) => [s.segment, s.period, s.n]).sort(), [["", "a", 1], ["u:1", "d:2026-01-03", 1]]);
  await store.transaction(async (tx) => {
    tx.deltas.add({ blocId: "cnt", createdAt: "2026-01-03 00:00:00", userId: "1", values: { field_1: "x" } }, layout, -1);
  });
  assert.deepEqual(await store.counters.scopes("cnt", [{ segment: "", period: "a" }]), [], "a scope left without records goes");
  await store.transaction((tx) => tx.counters.clearCounters("cnt"));
  assert.equal(await store.records.countRecords({ blocId: "cnt" }), 1);
});

test("values of megabytes are stored, looked up, counted and tallied", { skip }, async () => {
  await store.blocs.createBloc(bloc("big", [{ unique: true }, { applyProfileFilter: true }]), "2026-01-01 00:00:00");
  const huge = "h".repeat(3 * 1024 * 1024);
  const site = "s".repeat(10_000);
  const r = record("big", "2026-01-04 00:00:00", { field_1: huge, field_2: site });
  const [id] = await store.transaction(async (tx) => {
    const inserted = await tx.records.insertRecord(r);
    tx.deltas.add(r, layoutOf((await tx.blocs.findBloc("big"))!), 1);
    return [inserted];
  });
  assert.deepEqual(await store.records.holders("big", { slug: "field_1", value: huge }, 5), [id]);
  assert.deepEqual(await store.records.holders("big", { slug: "field_1", value: `${huge}x` }, 5), []);
  const [siteScope] = await store.counters.scopes("big", [{ segment: profileSegment("field_2", site).key, period: "a" }]);
  assert.equal(siteScope?.n, 1, "a segment named by a 10,000-character value is kept and found");
  assert.equal(await countVisibleRecords(store, { blocId: "big", visibility: { match: [{ key: "field_2", values: [site] }] } }), 1);
  const counted = await store.records.countRecords({ blocId: "big", match: [{ key: "field_1", values: [huge] }] });
  assert.equal(counted, 1);
  // Counted exactly, but a value this long is never read back whole (field-counts.ts: LISTED_VALUE_MAX).
  const tally = await store.records.tallyValues({ blocId: "big" }, ["field_1"], 0);
  assert.deepEqual(tally.get("field_1"), [[null, 1]]);
  await store.transaction(async (tx) => {
    await tx.records.saveSequence("big", "field_1", { prefix: huge, suffix: "", width: 3, group: site, groupBy: "field_2" }, 7);
    await tx.records.saveSequence("big", "field_1", { prefix: huge, suffix: "", width: 3, group: site, groupBy: "field_2" }, 3);
    assert.equal(await tx.records.lastSequence("big", "field_1", { prefix: huge, suffix: "", width: 3, group: site, groupBy: "field_2" }), 7);
  });
  await assert.rejects(store.transaction((tx) => tx.records.insertRecord(record("big", "2026-01-04 00:00:00", { field_1: "a\u0000b" }))),
    InvalidInputError);
});

test("pages, report rows, updates and prefix reads", { skip }, async () => {
  await store.blocs.createBloc(bloc("rows", [{}, {}, { type: "autogenerate", format: "A-{seq:3}" }]), "2026-01-01 00:00:00");
  const records = Array.from({ length: 2100 }, (_, i) => record("rows", `2026-02-01 10:${String(Math.floor(i / 60) % 60).padStart(2, "0")}:${String(i % 60).padStart(2, "0")}`,
    { field_1: `v${i % 3}`, field_3: `A-${String(i).padStart(3, "0")}`, ...(i % 2 === 0 ? { field_2: "two" } : {}) }));
  const ids = await insert(store, records);
  const page = await store.records.listRows({ blocId: "rows" }, { order: "oldest", limit: 2, offset: 1 }, [
    { key: "b", source: { field: "field_2" } }, { key: "a", source: "created_at" }, { key: "1", source: "time_stamp" },
    { key: "d", source: "date_stamp" },
  ]);
  assert.deepEqual(page.map((p) => p.json), [
    `{"b":"","a":"2026-02-01 10:00:01","1":"10:00:01","d":"2026-02-01"}`,
    `{"b":"two","a":"2026-02-01 10:00:02","1":"10:00:02","d":"2026-02-01"}`,
  ]);
  const next = await store.records.listRecords({ blocId: "rows" }, { order: "newest", limit: 1, offset: 0, after: page[1]! });
  assert.deepEqual(next.map((r) => r.id), [ids[1]]);
  assert.deepEqual(await store.records.tallyValues({ blocId: "rows" }, ["field_1", "field_2", "none"], 2),
    new Map([["field_1", [["v0", 700], ["v1", 700]]], ["field_2", [["two", 1050]]], ["none", []]]));
  const updated = await store.transaction((tx) => tx.records.updateValues(
    { blocId: "rows", match: [{ key: "service_entry_row_id", values: [String(ids[5]), String(ids[2]), "007"] }] },
    { field_2: "new" }, 0));
  assert.deepEqual(updated, [ids[2], ids[5]]);
  const [changed] = await store.records.listRecords({ blocId: "rows", match: [{ key: "service_entry_row_id", values: [String(ids[2])] }] },
    { order: "oldest", limit: 5, offset: 0 });
  assert.deepEqual(changed?.values, { field_1: "v2", field_2: "new", field_3: "A-002" });
  assert.equal(changed?.submittedStatus, 0);
  assert.equal(await store.records.countRecords({ blocId: "rows", match: [{ key: "field_2", values: [""] }] }), 1049);
  const template = { prefix: "A-", suffix: "", width: 3, group: "", groupBy: null };
  const prefixed: string[] = [];
  for (let after: string | null = null; ;) {
    const values = await store.records.valuesWithPrefix("rows", "field_3", template, after, 1000);
    prefixed.push(...values);
    if (values.length < 1000) break;
    after = values[values.length - 1]!;
  }
  assert.equal(prefixed.length, 2100);
  assert.deepEqual(prefixed, [...prefixed].sort());
  assert.equal(new Set(prefixed).size, 2100);
  assert.deepEqual(await store.records.valuesWithPrefix("rows", "field_3", { ...template, prefix: "A-00" }, "A-003", 3), ["A-004", "A-005", "A-006"]);
  const unordered = await store.records.findRecords({ blocId: "rows", match: [{ key: "field_3", values: ["A-007", "A-001"] }] });
  assert.deepEqual(unordered.map((r) => r.values.field_3).sort(), ["A-001", "A-007"]);
  const snapshot = await store.snapshot(async (view) => [await view.records.countRecords({ blocId: "rows" }), await view.blocs.findBloc("rows")]);
  assert.equal(snapshot[0], 2100);
});

test("text PostgreSQL cannot hold (U+0000) finds nothing when looked up and is refused when written", { skip }, async () => {
  const nul = "a\u0000b";
  assert.equal(await store.blocs.findBloc(nul), undefined);
  assert.deepEqual(await store.access.accessFacts(nul, "1"), { grants: [], restriction: undefined });
  assert.equal(await store.files.findFile(nul), undefined);
  assert.equal(await store.tokens.revokeToken(nul, "2026-01-01 00:00:00"), false);
  assert.equal(await store.records.countRecords({ blocId: "rows", match: [{ key: "field_1", values: [nul] }] }), 0);
  assert.equal(await store.records.countRecords({ blocId: "rows", visibility: { match: [{ key: "field_1", values: [nul, ""] }] } }), 0);
  assert.deepEqual(await store.records.holders("rows", { slug: "field_1", value: nul }, 1), []);
  assert.deepEqual(await store.counters.periodCounts("rows", [`p:field_1:${nul}`], "d:0000", "d:9999"), []);
  assert.deepEqual(await store.counters.countsOf([1], "field_1", [nul]), []);
  await assert.rejects(store.accounts.createRole(nul, "2026-01-01 00:00:00"), InvalidInputError);
  await assert.rejects(store.blocs.updateBlocSettings("rows", { scanLimit: 1e21 }), InvalidInputError);
});

test("content holds: the last release removes the content", { skip }, async () => {
  const sha = "ab".repeat(32);
  const first = await store.files.holdContent(sha, "2026-01-01 00:00:00");
  const second = await store.files.holdContent(sha, "2026-01-01 00:00:00");
  let removed = 0;
  await store.files.releaseContent(first, sha, () => { removed += 1; });
  assert.equal(removed, 0);
  await store.files.releaseContent(second, sha, () => { removed += 1; });
  assert.equal(removed, 1);
});

test("an instance copied table by table reads the same, and new IDs come after the copied ones", { skip }, async () => {
  const target = await PostgresStore.open(await freshDatabase(), 4);
  try {
    for (const table of TABLES) {
      let last: Row | undefined;
      for (;;) {
        const rows = await store.maintenance.exportRows(table, last, 500);
        if (rows.length === 0) break;
        await target.maintenance.importRows(table, rows);
        last = rows[rows.length - 1];
      }
    }
    assert.deepEqual(await target.maintenance.tableSizes(), await store.maintenance.tableSizes());
    for (const table of TABLES) {
      assert.deepEqual(await target.maintenance.exportRows(table, undefined, 100_000), await store.maintenance.exportRows(table, undefined, 100_000), table);
    }
    const users = await store.maintenance.exportRows("users", undefined, 1000);
    const next = await target.accounts.createUser("next", "member", "2026-01-01 00:00:00");
    assert.equal(Number(next.id), Number(users[users.length - 1]!.id) + 1);
    assert.equal((await target.blocs.findBloc("big"))?.fields.length, 2);
  } finally {
    await target.close();
  }
});

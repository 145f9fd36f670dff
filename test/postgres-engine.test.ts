import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import postgres from "postgres";
import { InvalidInputError, NotFoundError } from "../src/domain/errors.js";
import { PostgresStore } from "../src/store/postgres/postgres-store.js";
import { SCHEMA_VERSION } from "../src/store/postgres/schema.js";
import type { Tx } from "../src/domain/ports/store.js";
import { freshDatabaseUrl, testEngine, type TestDatabase } from "./support/database.js";
import { bloc, record } from "./support/store-fixtures.js";

/*
 * What only the PostgreSQL engine does, beside the contract both engines keep
 * (test/store-contract.test.ts): several processes migrating one database, a failed
 * statement aborting its unit, text PostgreSQL cannot hold. Runs in the suite's
 * PostgreSQL run (BLOC_TEST_ENGINE=postgres), on fresh databases made on
 * BLOC_TEST_PG_URL's server and dropped at the end.
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


test("several processes opening one new database migrate it once", { skip }, async () => {
  const url = await freshDatabase();
  const opened = await Promise.all([1, 2, 3].map(() => PostgresStore.open(url, 1)));
  for (const s of opened) assert.equal(s.schemaVersion, SCHEMA_VERSION);
  await Promise.all(opened.map((s) => s.close()));
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

test("a group commit's records keep their own IDs; an insert PostgreSQL refuses after its unit went on runs the group again, one unit at a time", { skip }, async () => {
  await store.blocs.createBloc(bloc("ahead", [{}]), "2026-01-01 00:00:00");
  const adding = (i: number, blocId = "ahead") => (tx: Tx): Promise<number> =>
    tx.records.insertRecord(record(blocId, `2026-01-06 00:00:0${i}`, { field_1: `v${i}` }));
  const kept = async (ids: readonly number[]): Promise<string[]> => {
    const found = await store.records.findRecords({ blocId: "ahead", match: [{ key: "service_entry_row_id", values: ids.map(String) }] });
    return found.sort((a, b) => a.id - b.id).map((r) => `${r.id}:${r.values.field_1}`);
  };
  // Issued in one turn, so they share one transaction: IDs in the order the units ran, each on its own record.
  const ids = await Promise.all([1, 2, 3, 4].map((i) => store.transaction(adding(i), { group: "ahead" })));
  assert.deepEqual([...ids].sort((a, b) => a - b), ids);
  assert.deepEqual(await kept(ids), ids.map((id, i) => `${id}:v${i + 1}`));
  // The third refused by PostgreSQL (no such bloc) after the units after it had sent theirs: the others are kept, with their IDs.
  const outcomes = await Promise.allSettled([1, 2, 3, 4, 5].map((i) => store.transaction(adding(i, i === 3 ? "no-such-bloc" : "ahead"), { group: "ahead" })));
  assert.deepEqual(outcomes.map((o) => o.status), ["fulfilled", "fulfilled", "rejected", "fulfilled", "fulfilled"]);
  assert.ok((outcomes[2] as PromiseRejectedResult).reason instanceof NotFoundError);
  const answered = outcomes.flatMap((o, i) => (o.status === "fulfilled" ? [[o.value, i + 1] as const] : []));
  assert.equal(new Set(answered.map(([id]) => id)).size, 4);
  assert.deepEqual(await kept(answered.map(([id]) => id)), [...answered].sort((a, b) => a[0] - b[0]).map(([id, i]) => `${id}:v${i}`));
  assert.equal(await store.records.countRecords({ blocId: "ahead" }), 8);
});

test("a group commit inserts its units' records in one statement and their events in another; a unit that throws after writing leaves none of its rows", { skip }, async () => {
  await store.blocs.createBloc(bloc("held", [{}, {}, {}, {}]), "2026-01-01 00:00:00");
  const values: Record<string, string>[] = [
    { field_1: 'quote " backslash \\ brace { comma ,', field_2: "NULL" },
    {},
    { field_1: "dropped with its unit" },
    { field_1: "", field_3: "é 漢 😀", field_4: "{a,b}" },
    { field_2: "a\tb\nc" },
  ];
  const adding = (i: number) => async (tx: Tx): Promise<number> => {
    const id = await tx.records.insertRecord(record("held", `2026-01-07 00:00:0${i}`, values[i]!));
    await tx.events.appendEvents("held", [{ id: `event-${i}`, type: "record.added", at: "2026-01-07 00:00:00", atMs: 0, recordId: id, data: "{}" }]);
    if (i === 2) throw new Error("changed its mind after writing");
    return id;
  };
  // Issued in one turn, so they share one transaction.
  const outcomes = await Promise.allSettled(values.map((_, i) => store.transaction(adding(i), { group: "held" })));
  assert.deepEqual(outcomes.map((o) => o.status), ["fulfilled", "fulfilled", "rejected", "fulfilled", "fulfilled"]);
  const ids = outcomes.flatMap((o) => (o.status === "fulfilled" ? [o.value] : []));
  const found = await store.records.findRecords({ blocId: "held", match: [{ key: "service_entry_row_id", values: ids.map(String) }] });
  assert.deepEqual(found.sort((a, b) => a.id - b.id).map((r) => [r.id, r.values]),
    ids.map((id, k) => [id, values[[0, 1, 3, 4][k]!]]), "each record holds its own values, as given");
  assert.equal(await store.records.countRecords({ blocId: "held" }), 4, "the unit that threw left no record");
  // Rows one statement wrote share its transaction (xmin) and its command number (cmin).
  const sql = postgres(databases[0]!.url, { max: 1, onnotice: () => undefined });
  try {
    const [recordRows] = await sql`SELECT count(DISTINCT (xmin::text, cmin::text))::int AS statements FROM records WHERE bloc_id = 'held'`;
    assert.equal(recordRows!.statements, 1, "the group's records were inserted by one statement");
    const events = await sql`SELECT seq::int, id, record_id::int, xmin::text || '/' || cmin::text AS statement FROM events WHERE bloc_id = 'held' ORDER BY seq`;
    assert.deepEqual(events.map((e) => [e.seq, e.id, e.record_id]), [[1, "event-0", ids[0]], [2, "event-1", ids[1]], [3, "event-3", ids[2]], [4, "event-4", ids[3]]],
      "the kept units' events, numbered in the order the units ran, with no gap for the one dropped");
    assert.equal(new Set(events.map((e) => e.statement)).size, 1, "the group's events were appended by one statement");
  } finally {
    await sql.end();
  }
});

test("text PostgreSQL cannot hold (U+0000) finds nothing when looked up and is refused when written", { skip }, async () => {
  await store.blocs.createBloc(bloc("rows", [{}]), "2026-01-01 00:00:00");
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
  await assert.rejects(store.transaction((tx) => tx.records.insertRecord(record("rows", "2026-01-04 00:00:00", { field_1: nul }))),
    InvalidInputError);
});


import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { bulkImportRecords } from "../src/domain/bulk-import.js";
import { claimIdempotencyKey, lockBloc } from "../src/domain/capabilities.js";
import { countingThreshold, layoutOf } from "../src/domain/counting/keys.js";
import { ConflictError, NotFoundError } from "../src/domain/errors.js";
import { TABLES, type NewEvent, type NewRecord, type Row, type Store } from "../src/domain/ports/store.js";
import { countVisibleRecords, countValues } from "../src/domain/record-queries.js";
import { PostgresStore } from "../src/store/postgres/postgres-store.js";
import { SqliteStore } from "../src/store/sqlite/sqlite-store.js";
import { freshPostgresDatabase, testEngine, testFileLabel, type TestDatabase } from "./support/database.js";
import { assertCountersEqualRecount } from "./support/recount.js";
import { bloc, record, TEXT } from "./support/store-fixtures.js";

/*
 * The Store's contract (src/domain/ports), run on every engine this run can reach, as
 * Kysely runs its tests over each dialect: SQLite always; PostgreSQL when
 * BLOC_TEST_PG_URL names a server that answers (and always when BLOC_TEST_ENGINE=postgres,
 * which then fails rather than skip). Everything here goes through the Store's views, a
 * unit of work or a snapshot, never an engine's own methods: what one engine does, the
 * other must. Each engine gets fresh databases, removed at the end.
 */

interface Engine {
  readonly name: "sqlite" | "postgres";
  /** A new, empty store of this engine; closed and removed by `cleanUp`. */
  open(): Promise<Store>;
  cleanUp(): Promise<void>;
}

function sqliteEngine(): Engine {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bloc-store-contract-"));
  const opened: Store[] = [];
  return {
    name: "sqlite",
    open: async () => {
      const store = new SqliteStore(path.join(dir, `${crypto.randomUUID()}.db`));
      opened.push(store);
      return store;
    },
    cleanUp: async () => {
      for (const store of opened) await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

function postgresEngine(serverUrl: string): Engine {
  const databases: TestDatabase[] = [];
  const opened: Store[] = [];
  return {
    name: "postgres",
    open: async () => {
      const database = await freshPostgresDatabase(serverUrl, testFileLabel());
      databases.push(database);
      const store = await PostgresStore.open(database.url, 4);
      opened.push(store);
      return store;
    },
    cleanUp: async () => {
      for (const store of opened) await store.close();
      for (const database of databases) await database.drop();
    },
  };
}

/** PostgreSQL when this run can reach it: a database made and dropped there, or why not. */
async function postgresReachable(serverUrl: string): Promise<string | undefined> {
  try {
    const database = await freshPostgresDatabase(serverUrl, "contract_probe");
    await database.drop();
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

const engines: Engine[] = [sqliteEngine()];
const pgUrl = process.env.BLOC_TEST_PG_URL ?? "";
let pgSkipped: string | undefined;
if (testEngine() === "postgres") {
  if (pgUrl === "") throw new Error("BLOC_TEST_ENGINE=postgres needs BLOC_TEST_PG_URL");
  // The PostgreSQL run must run the contract on PostgreSQL: no skipping there.
  engines.push(postgresEngine(pgUrl));
} else if (pgUrl === "") {
  pgSkipped = "BLOC_TEST_PG_URL is not set";
} else {
  const unreachable = await postgresReachable(pgUrl);
  if (unreachable === undefined) engines.push(postgresEngine(pgUrl));
  else pgSkipped = `the server at BLOC_TEST_PG_URL cannot make a database: ${unreachable}`;
}
if (pgSkipped !== undefined) test("store contract: postgres", { skip: pgSkipped }, () => {});

const AT = "2026-01-01 00:00:00";


/** Inserts records in one unit of work, counting them as the domain does. */
async function insert(store: Store, records: readonly NewRecord[], group?: string): Promise<number[]> {
  return store.transaction(async (tx) => {
    const ids: number[] = [];
    for (const r of records) {
      await lockBloc(tx, r.blocId);
      ids.push(await tx.records.insertRecord(r));
      tx.deltas.add(r, layoutOf((await tx.blocs.findBloc(r.blocId))!), 1);
    }
    return ids;
  }, { group });
}

function event(n: number, recordId: number | null = null): NewEvent {
  return { id: crypto.randomUUID(), type: "record.added", at: AT, atMs: 1_767_225_600_000 + n, recordId, data: JSON.stringify({ n }) };
}

for (const engine of engines) {
  describe(`store contract: ${engine.name}`, () => {
    let store: Store;

    before(async () => {
      store = await engine.open();
      // The user most records below name as their owner.
      await store.accounts.createUser("owner", "member", AT);
    });

    after(async () => {
      await engine.cleanUp();
    });

    test("declares its capabilities, and has exactly the methods they promise", async () => {
      const { capabilities } = store;
      assert.deepEqual(Object.keys(capabilities).sort(),
        ["claimsIdempotencyKeys", "durableOnCommit", "perBlocLocks", "plannerStatistics", "rateLimitScope"]);
      assert.ok(["process", "shared"].includes(capabilities.rateLimitScope));
      assert.equal(typeof store.maintenance.refreshStatistics === "function", capabilities.plannerStatistics);
      assert.equal(typeof store.tokens.countRequest === "function", capabilities.rateLimitScope === "shared");
      await store.transaction(async (tx) => {
        assert.deepEqual(tx.capabilities, capabilities);
        assert.equal(typeof tx.records.lockBloc === "function", capabilities.perBlocLocks);
        assert.equal(typeof tx.idempotency.claimIdempotencyKey === "function", capabilities.claimsIdempotencyKeys);
      });
      // The engines differ where their capabilities say, and only there.
      assert.deepEqual(capabilities, engine.name === "postgres"
        ? { perBlocLocks: true, claimsIdempotencyKeys: true, durableOnCommit: true, rateLimitScope: "shared", plannerStatistics: true }
        : { perBlocLocks: false, claimsIdempotencyKeys: false, durableOnCommit: false, rateLimitScope: "process", plannerStatistics: false });
    });

    test("config writes and reads; taken keys conflict, missing parents are not found", async () => {
      const user = await store.accounts.createUser("ann", "member", AT);
      assert.deepEqual(await store.accounts.findUser(user.id), { id: user.id, name: "ann", role: "member", profile: [], email: null, disabled: false });
      assert.equal(await store.accounts.findUser("not-a-number"), undefined);
      await store.accounts.setProfile(user.id, ["site-a"]);
      assert.deepEqual((await store.accounts.findUser(user.id))?.profile, ["site-a"]);
      await store.accounts.createRole("clerks", AT);
      await assert.rejects(store.accounts.createRole("clerks", AT), ConflictError);
      const longName = "r".repeat(100_000);
      await store.accounts.createRole(longName, AT);
      await assert.rejects(store.accounts.createRole(longName, AT), ConflictError);

      await store.blocs.createBloc(bloc("cfg", [{ unique: true }, {}]), AT);
      await assert.rejects(store.blocs.createBloc(bloc("cfg", []), AT), ConflictError);
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
      await store.blocs.createBloc(bloc("42", []), AT);
      assert.equal(await store.blocs.highestNumericBlocId(), 42);
    });

    test("a config write outside a unit of work is a transaction of its own; inside one, it commits with the unit", async () => {
      await assert.rejects(store.transaction(async (tx) => {
        await tx.accounts.createUser("never", "member", AT);
        await tx.blocs.createBloc(bloc("never", []), AT);
        throw new Error("refused");
      }), /refused/);
      assert.equal((await store.accounts.listUsers()).some((u) => u.name === "never"), false);
      assert.equal(await store.blocs.findBloc("never"), undefined);
      // A failed write on the store leaves nothing of itself behind, and what came before stays.
      await store.blocs.createBloc(bloc("alone", [{}]), AT);
      await assert.rejects(store.blocs.createBloc(bloc("alone", [{}, {}]), AT), ConflictError);
      assert.equal((await store.blocs.findBloc("alone"))?.fields.length, 1);
      // What a unit wrote, it reads back before it commits.
      await store.transaction(async (tx) => {
        const role = await tx.accounts.createRole("in-unit", AT);
        assert.equal((await tx.accounts.findRole(role.id))?.name, "in-unit");
      });
    });

    test("a transaction keeps everything or nothing; a group commit undoes only the failed unit", async () => {
      await store.blocs.createBloc(bloc("tx", [{}]), AT);
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
        // A unit that fails undoes itself only.
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

    test("counters: counted, decreased to nothing, cleared", async () => {
      await store.blocs.createBloc(bloc("cnt", [{}]), AT);
      const layout = layoutOf((await store.blocs.findBloc("cnt"))!);
      await store.transaction(async (tx) => {
        const r = record("cnt", "2026-01-03 00:00:00", { field_1: "x" });
        await tx.records.insertRecord(r);
        tx.deltas.add(r, layout, 1);
      });
      assert.deepEqual(await store.counters.periodCounts("cnt", [""], "d:2026-01-03", "d:2026-01-03"), [{ period: "d:2026-01-03", n: 1 }]);
      const scopes = await store.counters.scopes("cnt", [{ segment: "", period: "a" }, { segment: "", period: "d:2026-01-03" },
        { segment: "", period: "h:2026-01-03 00" }, { segment: "u:1", period: "d:2026-01-03" }]);
      // A day of one record keeps no hours: what a window takes of it is counted from its records. An owner no one
      // reads as `own` has no scopes (keys.ts, keepsScopes).
      assert.deepEqual(scopes.map((s) => [s.segment, s.period, s.n]).sort(), [["", "a", 1], ["", "d:2026-01-03", 1]]);
      await store.transaction(async (tx) => {
        tx.deltas.add({ blocId: "cnt", createdAt: "2026-01-03 00:00:00", userId: "1", values: { field_1: "x" } }, layout, -1);
      });
      assert.deepEqual(await store.counters.scopes("cnt", [{ segment: "", period: "a" }]), [], "a scope left without records goes");
      await store.transaction((tx) => tx.counters.clearCounters("cnt"));
      assert.equal(await store.records.countRecords({ blocId: "cnt" }), 1);
      assert.deepEqual(await store.counters.periodCounts("cnt", [""], "d:2026-01-03", "d:2026-01-03"), []);
      // Gone with its records: what is left agrees with a recount again (the tests below check).
      await store.blocs.deleteBloc("cnt");
    });

    test("values of megabytes are stored, looked up, counted and tallied", async () => {
      await store.blocs.createBloc(bloc("big", [{ unique: true }, { applyProfileFilter: true }]), AT);
      const huge = "h".repeat(3 * 1024 * 1024);
      const site = "s".repeat(10_000);
      const [id] = await insert(store, [record("big", "2026-01-04 00:00:00", { field_1: huge, field_2: site })]);
      assert.deepEqual(await store.records.holders("big", { slug: "field_1", value: huge }, 5), [id]);
      assert.deepEqual(await store.records.holders("big", { slug: "field_1", value: `${huge}x` }, 5), []);
      assert.equal(await countVisibleRecords(store, { blocId: "big", visibility: { match: [{ key: "field_2", values: [site] }] } }), 1);
      assert.equal(await store.records.countRecords({ blocId: "big", match: [{ key: "field_1", values: [huge] }] }), 1);
      // Counted exactly, but a value this long is never read back whole (field-counts.ts: LISTED_VALUE_MAX).
      assert.deepEqual((await store.records.tallyValues({ blocId: "big" }, ["field_1"], 0)).get("field_1"), [[null, 1]]);
      const template = { prefix: huge, suffix: "", width: 3, group: site, groupBy: "field_2" };
      await store.transaction(async (tx) => {
        await tx.records.saveSequence("big", "field_1", template, 7);
        await tx.records.saveSequence("big", "field_1", template, 3);
        assert.equal(await tx.records.lastSequence("big", "field_1", template), 7);
      });
      assert.equal(await store.records.lastSequence("big", "field_1", template), 7);
    });

    test("pages, report rows, updates, history, deletes and prefix reads", async () => {
      await store.blocs.createBloc(bloc("rows", [{}, {}, { type: "autogenerate", format: "A-{seq:3}" }]), AT);
      const records = Array.from({ length: 2100 }, (_, i) => record("rows",
        `2026-02-01 10:${String(Math.floor(i / 60) % 60).padStart(2, "0")}:${String(i % 60).padStart(2, "0")}`,
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

      // History, deletion and restore of one record.
      const entry = { recordId: ids[2]!, action: "updated" as const, at: AT, userId: "1", tokenId: null, changes: { field_2: { from: "two", to: "new" } } };
      await store.transaction(async (tx) => {
        await tx.records.insertHistory("rows", [entry]);
        assert.equal(await tx.records.moveToDeleted("rows", [ids[2]!], AT, "1"), 1);
        assert.deepEqual((await tx.records.findDeletedRecord("rows", ids[2]!))?.values, changed?.values);
      });
      assert.deepEqual(await store.records.recordHistory("rows", ids[2]!), [entry]);
      assert.equal(await store.records.recordHistory("rows", 999_999), undefined);
      assert.equal(await store.records.countRecords({ blocId: "rows" }), 2099);
      assert.equal(await store.transaction((tx) => tx.records.moveFromDeleted("rows", ids[2]!)), true);
      assert.equal(await store.transaction((tx) => tx.records.moveFromDeleted("rows", ids[2]!)), false);
      assert.equal(await store.records.countRecords({ blocId: "rows" }), 2100);
      // Its records were updated here without their counters: the bloc goes, with all it holds.
      assert.deepEqual(await store.blocs.deleteBloc("rows"), []);
      assert.equal(await store.records.countRecords({ blocId: "rows" }), 0);
      assert.equal(await store.records.recordHistory("rows", ids[2]!), undefined);
      assert.deepEqual(await store.counters.periodCounts("rows", [""], "d:2026-02-01", "d:2026-02-01"), []);
    });

    test("a snapshot reads one state while writers commit", async () => {
      await store.blocs.createBloc(bloc("snap", [{}]), AT);
      await insert(store, [record("snap", "2026-03-01 00:00:00", { field_1: "a" })]);
      let write: Promise<unknown> | undefined;
      const seen = await store.snapshot(async (view) => {
        const first = await view.records.countRecords({ blocId: "snap" });
        // Not awaited here: on an engine with one connection it waits for the snapshot to end.
        write = insert(store, [record("snap", "2026-03-01 00:00:01", { field_1: "b" })]);
        await new Promise((resolve) => setTimeout(resolve, 100));
        return [first, await view.records.countRecords({ blocId: "snap" }), (await view.blocs.findBloc("snap"))?.id];
      });
      await write;
      assert.deepEqual(seen, [1, 1, "snap"]);
      assert.equal(await store.records.countRecords({ blocId: "snap" }), 2);
    });

    test("files: a record takes an upload's content; the last release removes unused content", async () => {
      const sha = "ab".repeat(32);
      const first = await store.files.holdContent(sha, AT);
      const second = await store.files.holdContent(sha, AT);
      let removed = 0;
      await store.files.releaseContent(first, sha, () => { removed += 1; });
      assert.equal(removed, 0);
      await store.files.releaseContent(second, sha, () => { removed += 1; });
      assert.equal(removed, 1);

      await store.blocs.createBloc(bloc("files", [{ type: "file" }]), AT);
      const kept = "cd".repeat(32);
      const hold = await store.files.holdContent(kept, AT);
      const ref = crypto.randomUUID();
      const id = await store.transaction(async (tx) => {
        const inserted = await tx.records.insertRecord(record("files", AT, { field_1: ref }));
        await tx.files.insertFile({ ref, slug: "field_1", sha256: kept, name: "a.txt", type: "text/plain", size: 3, hold }, "files", inserted, AT);
        return inserted;
      });
      assert.deepEqual(await store.files.findFile(ref),
        { ref, blocId: "files", recordId: id, slug: "field_1", sha256: kept, name: "a.txt", type: "text/plain", size: 3 });
      // The record's file keeps the content: a later upload's release does not remove it.
      const later = await store.files.holdContent(kept, AT);
      await store.files.releaseContent(later, kept, () => { removed += 1; });
      assert.equal(removed, 1);
      assert.deepEqual(await store.blocs.deleteBloc("files"), [kept]);
      assert.equal(await store.files.findFile(ref), undefined);
    });

    test("accounts and tokens: listings, sign-in attempts, token use", async () => {
      const user = await store.accounts.createUser("tok", "member", AT);
      await store.tokens.createToken({ id: "tok-1", userId: user.id, name: "one", hash: "h".repeat(64), expiresAt: null, createdAt: AT,
        scope: { permissions: null, blocs: null } });
      await assert.rejects(store.tokens.createToken({ id: "tok-1", userId: user.id, name: "again", hash: "i".repeat(64), expiresAt: null,
        createdAt: AT, scope: { permissions: null, blocs: null } }), ConflictError);
      assert.equal((await store.tokens.findTokenByHash("h".repeat(64)))?.user.id, user.id);
      assert.equal(await store.tokens.findTokenByHash("x".repeat(64)), undefined);
      await store.tokens.noteTokenUse("tok-1", "2026-01-02 00:00:00");
      await store.tokens.noteTokenUse("tok-1", "2026-01-01 12:00:00");
      const [listed] = await store.tokens.listTokens(user.id);
      assert.equal(listed?.lastUsedAt, "2026-01-02 00:00:00", "a use never moves the last use back");
      assert.equal(await store.tokens.revokeToken("tok-1", AT), true);
      assert.equal(await store.tokens.revokeToken("no-such-token", AT), false);
      assert.ok((await store.accounts.listUsers()).some((u) => u.id === user.id));

      const email = "e".repeat(64);
      assert.deepEqual(await store.accounts.countSignInAttempt(email, 1000, 60_000), { count: 1, sinceMs: 1000 });
      assert.deepEqual(await store.accounts.countSignInAttempt(email, 2000, 60_000), { count: 2, sinceMs: 1000 });
      assert.deepEqual(await store.accounts.countSignInAttempt(email, 70_000, 60_000), { count: 1, sinceMs: 70_000 }, "a new window");
      await store.accounts.clearSignInAttempts(email);
      assert.deepEqual(await store.accounts.countSignInAttempt(email, 70_001, 60_000), { count: 1, sinceMs: 70_001 });

      if (store.tokens.countRequest) {
        assert.deepEqual([await store.tokens.countRequest("tok-1", 5), await store.tokens.countRequest("tok-1", 5),
          await store.tokens.countRequest("tok-1", 6)], [1, 2, 1]);
      }
    });

    test("events: appended in a unit, numbered per bloc in commit order, read and pruned outside it; webhooks and their lanes", async () => {
      await store.blocs.createBloc(bloc("ev", []), AT);
      assert.equal(await store.events.lastEventSeq("ev"), 0);
      await store.transaction((tx) => tx.events.appendEvents("ev", [event(1), event(2)]));
      await store.transaction((tx) => tx.events.appendEvents("ev", [event(3)]));
      assert.equal(await store.events.lastEventSeq("ev"), 3);
      const read = await store.events.eventsAfter("ev", 1, 10, 1_000_000);
      assert.deepEqual(read.map((e) => [e.seq, JSON.parse(e.data)]), [[2, { n: 2 }], [3, { n: 3 }]]);
      assert.equal((await store.events.findEvent("ev", 3))?.id, read[1]?.id);
      assert.match(await store.events.eventIdKey(), /^[0-9a-f]{16,}$/);

      const webhook = { id: crypto.randomUUID(), url: "http://127.0.0.1:9/hook", blocs: ["ev"], events: ["record.added" as const], secret: "s", createdAt: AT };
      await store.transaction((tx) => tx.events.createWebhook(webhook));
      assert.deepEqual((await store.events.findWebhook(webhook.id))?.blocs, ["ev"]);
      // Its lane starts after the bloc's last event: nothing is due until a new one.
      assert.deepEqual(await store.events.claimLanes("owner-a", 10, 1000, 10, []), []);
      await store.transaction((tx) => tx.events.appendEvents("ev", [event(4)]));
      const [lane] = await store.events.claimLanes("owner-a", 10, 1000, 10, []);
      assert.deepEqual([lane?.webhookId, lane?.blocId, lane?.deliveredSeq], [webhook.id, "ev", 3]);
      const delivery = { webhookId: webhook.id, blocId: "ev", seq: 4, eventId: "e4", type: "record.added" as const, attempt: 1, at: AT,
        statusCode: 200, error: null, durationMs: 5, outcome: "delivered" as const };
      assert.equal(await store.events.saveLane("owner-b", webhook.id, "ev",
        { deliveredSeq: 4, attempts: 0, firstFailedMs: null, nextAttemptMs: 0, release: true }, [delivery], 1000), false, "only the holder saves");
      assert.equal(await store.events.saveLane("owner-a", webhook.id, "ev",
        { deliveredSeq: 4, attempts: 0, firstFailedMs: null, nextAttemptMs: 0, release: true }, [delivery], 1000), true);
      const [logged] = await store.events.listDeliveries(webhook.id, 10);
      assert.equal(logged?.outcome, "delivered");
      assert.equal((await store.events.findDelivery(webhook.id, logged.id))?.seq, 4);
      assert.equal(await store.events.deleteWebhook(webhook.id), true);
      assert.equal(await store.events.findWebhook(webhook.id), undefined);
      // Every lane is gone with the webhook: the events are past all of them, and go.
      assert.equal(await store.events.pruneEvents(Number.MAX_SAFE_INTEGER, 100), 4);
      assert.equal(await store.events.lastEventSeq("ev"), 4, "numbering goes on after a prune");
    });

    test("idempotency keys: kept in a unit, found unless expired, purged; claimed where the engine claims them", async () => {
      const entry = { userId: "1", keyHash: "k".repeat(64), requestHash: "r".repeat(64), recordId: 1, replacements: "{}", createdMs: 1000 };
      await store.transaction((tx) => tx.idempotency.saveIdempotencyKey(entry));
      assert.deepEqual(await store.transaction((tx) => tx.idempotency.findIdempotencyKey("1", entry.keyHash, 500)), entry);
      assert.equal(await store.transaction((tx) => tx.idempotency.findIdempotencyKey("1", entry.keyHash, 1001)), undefined);
      assert.equal(await store.idempotency.purgeIdempotencyKeys(1001), 1);
      assert.equal(await store.transaction((tx) => tx.idempotency.findIdempotencyKey("1", entry.keyHash, 0)), undefined);
      if (!store.capabilities.claimsIdempotencyKeys) {
        // One writer at a time: a claim always succeeds.
        assert.equal(await store.transaction((tx) => claimIdempotencyKey(tx, "1", entry.keyHash)), true);
        return;
      }
      let release!: () => void;
      const held = new Promise<void>((resolve) => { release = resolve; });
      let claimed!: () => void;
      const firstClaimed = new Promise<void>((resolve) => { claimed = resolve; });
      const first = store.transaction(async (tx) => {
        assert.equal(await claimIdempotencyKey(tx, "1", entry.keyHash), true);
        claimed();
        await held;
      });
      await firstClaimed;
      const second = await store.transaction((tx) => claimIdempotencyKey(tx, "1", entry.keyHash));
      release();
      await first;
      assert.equal(second, false, "a key another transaction holds is not claimed");
      assert.equal(await store.transaction((tx) => claimIdempotencyKey(tx, "1", entry.keyHash)), true, "free once it committed");
    });

    test("a bulk import loads every record and counts them as single writes would", async () => {
      await store.blocs.createBloc(bloc("bulk", [{}, { applyProfileFilter: true }]), AT);
      const records = Array.from({ length: 250 }, (_, i) => record("bulk", `2026-04-0${1 + (i % 3)} 0${i % 10}:00:00`,
        { field_1: `v${i % 4}`, field_2: ["north", "south"][i % 2]! }));
      const loaded = await bulkImportRecords(store, "bulk", records, 100);
      assert.equal(loaded.count, 250);
      assert.equal(await store.records.countRecords({ blocId: "bulk" }), 250);
      assert.ok(loaded.lastId > 0);
      // Every bloc left holds counters its writes kept: they equal a recount at this process's threshold.
      await assertCountersEqualRecount(store, countingThreshold());
    });

    test("maintenance: sizes, a consistent export, durability, ping; an instance copied table by table reads the same", async () => {
      await store.maintenance.ping();
      const durability = await store.maintenance.durability();
      assert.ok(Object.keys(durability.settings).length > 0);
      assert.ok(Array.isArray(durability.warnings));
      const sizes = await store.maintenance.tableSizes();
      assert.deepEqual(Object.keys(sizes).sort(), [...TABLES].sort());
      const exported = await store.maintenance.exportSnapshot(async (rows) => rows.exportRows("blocs", undefined, 100_000));
      assert.equal(exported.length, sizes.blocs);

      const target = await engine.open();
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
        assert.deepEqual(await target.maintenance.exportRows(table, undefined, 100_000),
          await store.maintenance.exportRows(table, undefined, 100_000), table);
      }
      const users = await store.maintenance.exportRows("users", undefined, 1000);
      const next = await target.accounts.createUser("next", "member", AT);
      assert.equal(Number(next.id), Number(users[users.length - 1]!.id) + 1);
      assert.equal((await target.blocs.findBloc("big"))?.fields.length, 2);
    });
  });
}

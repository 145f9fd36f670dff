import { test } from "node:test";
import assert from "node:assert/strict";
import crypto from "node:crypto";
import Database from "better-sqlite3";
import { openStoreAt } from "../src/cli/copy.js";
import { sqlitePath } from "../src/config.js";
import { connect } from "../src/store/postgres/driver.js";
import { migrate as migratePostgres, SCHEMA_VERSION as POSTGRES_VERSION } from "../src/store/postgres/schema.js";
import { migrate as migrateSqlite, SCHEMA_VERSION as SQLITE_VERSION } from "../src/store/sqlite/schema.js";
import { call } from "./support/http.js";
import { testEngine } from "./support/database.js";
import { CLI_ENTRY, freshWorkspace, runToEnd, startProcess } from "./support/process.js";
import { allRows, assertCountersEqualRecount } from "./support/recount.js";

/**
 * A database made before safe retries and record history (and before values were
 * counted per calendar period) is brought up to date when it is opened: its records are
 * kept, its period counters are filled from them, and history and idempotency keys work
 * on it at once.
 */

/** The last schema version without record history, per engine. */
const BEFORE_HISTORY = { sqlite: 5, postgres: 2 } as const;

/** A bloc with one record and its counters, as the previous version would have written them; valid SQL on both engines. */
const SEED = `
  INSERT INTO blocs (id, name, created_at) VALUES ('old', 'Made before', '2026-01-01 08:00:00');
  INSERT INTO fields (bloc_id, slug, name, position) VALUES ('old', 'field_1', 'Part', 1);
  INSERT INTO records (bloc_id, created_at, user_id, submitted_status, job_id, data)
    VALUES ('old', '2026-01-01 08:00:00', '7', 1, NULL, '{"field_1":"A-1"}');
  INSERT INTO day_counts (bloc_id, segment, day, n) VALUES ('old', '', '2026-01-01', 1), ('old', 'u:7', '2026-01-01', 1);
  INSERT INTO value_totals (bloc_id, segment, slug, value, n)
    VALUES ('old', '', 'field_1', 'A-1', 1), ('old', 'u:7', 'field_1', 'A-1', 1);
`;

/** Builds the database at the version before record history, with the seed in it. */
async function previousVersion(url: string): Promise<number> {
  if (testEngine() === "sqlite") {
    const db = new Database(sqlitePath(url));
    try {
      migrateSqlite(db, BEFORE_HISTORY.sqlite);
      db.exec(SEED);
      const history = db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'record_history'").get() as { n: number };
      assert.equal(history.n, 0, "no history table yet");
      return db.pragma("user_version", { simple: true }) as number;
    } finally {
      db.close();
    }
  }
  const pool = connect(url, 1);
  try {
    const version = await migratePostgres(pool, BEFORE_HISTORY.postgres);
    await pool.unsafe(SEED).simple();
    const [row] = await pool.unsafe<{ absent: boolean }[]>("SELECT to_regclass('record_history') IS NULL AS absent");
    assert.equal(row!.absent, true, "no history table yet");
    return version;
  } finally {
    await pool.end();
  }
}

test(`a database made before record history (${testEngine()}) is upgraded, its records kept`, { timeout: 120_000 }, async () => {
  const workspace = await freshWorkspace("upgrade");
  const latest = testEngine() === "sqlite" ? SQLITE_VERSION : POSTGRES_VERSION;
  try {
    assert.equal(await previousVersion(workspace.databaseUrl), BEFORE_HISTORY[testEngine()]);
    const env = { DATABASE_URL: workspace.databaseUrl };
    const migrated = await runToEnd(CLI_ENTRY, ["migrate"], env, workspace.cwd);
    assert.equal(migrated.code, 0, migrated.stderr);
    assert.deepEqual(JSON.parse(migrated.stdout), { schemaVersion: latest });

    const admin = `upgrade-admin-${crypto.randomBytes(12).toString("hex")}`;
    const server = await startProcess({ ...env, BLOC_ADMIN_TOKEN: admin }, workspace.cwd);
    try {
      const read = await call(server.url, "GET", "/api/get-data", { token: admin, json: { blocId: "old" } });
      assert.equal(read.status, 200, read.text);
      assert.equal(read.json.data.count, 1);
      assert.equal(read.json.data["0"].field_1, "A-1");
      const updated = await call(server.url, "POST", "/api/update-records-by-matching-values", {
        token: admin, json: { blocId: "old", fieldsToUpdate: { field_1: "A-2" }, searchItems: { field_1: "A-1" } },
      });
      assert.deepEqual(updated.json, { updated_record_ids: [1] });
      const history = await call(server.url, "GET", "/api/admin/blocs/old/records/1/history", { token: admin });
      assert.deepEqual(history.json.history.map((e: { changes: unknown }) => e.changes), [{ field_1: { from: "A-1", to: "A-2" } }]);
      const body = { scanStationID: "old", dataToAdd: { field_1: "B-1" } };
      const headers = { "idempotency-key": "upgrade-1" };
      const first = await call(server.url, "POST", "/api/add-data", { token: admin, json: body, headers });
      const again = await call(server.url, "POST", "/api/add-data", { token: admin, json: body, headers });
      assert.equal(first.status, 200, first.text);
      assert.equal(again.text, first.text);
    } finally {
      await server.stop();
    }
    const store = await openStoreAt(workspace.databaseUrl);
    try {
      assert.equal((await allRows(store, "records")).length, 2);
      await assertCountersEqualRecount(store);
    } finally {
      await store.close();
    }
  } finally {
    await workspace.remove();
  }
});

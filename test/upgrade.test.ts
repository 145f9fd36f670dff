import { test } from "node:test";
import assert from "node:assert/strict";
import crypto from "node:crypto";
import Database from "better-sqlite3";
import { openStoreAt } from "../src/cli/copy.js";
import { sqlitePath } from "../src/config.js";
import { connect } from "../src/store/postgres/driver.js";
import {
  migrate as migratePostgres, SCHEMA_VERSION as POSTGRES_VERSION, VALUE_INDEXES_VERSION as POSTGRES_VALUE_INDEXES,
} from "../src/store/postgres/schema.js";
import {
  migrate as migrateSqlite, SCHEMA_VERSION as SQLITE_VERSION, VALUE_INDEXES_VERSION as SQLITE_VALUE_INDEXES,
} from "../src/store/sqlite/schema.js";
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

/** The versions before safe retries and record history (released steps never change). */
const BEFORE_HISTORY = { sqlite: 5, postgres: 2 } as const;

/** Builds the database at the version before safe retries and record history, with the seed in it. */
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

/*
 * A database made before every field had a value index: one field marked `indexed`
 * (with the full index the service made for it then) and two unmarked. The upgrade
 * replaces the old index and gives every field slug its value index, and searches on
 * the unmarked fields then find exactly the right records, long values included.
 */
const LONG = "L".repeat(250);
const BEFORE_VALUE_INDEXES_SEED = `
  INSERT INTO blocs (id, name, created_at) VALUES ('shop', 'Made before', '2026-01-01 08:00:00');
  INSERT INTO fields (bloc_id, slug, name, position, indexed) VALUES
    ('shop', 'field_1', 'Serial', 1, 1), ('shop', 'field_2', 'Order ref', 2, 0), ('shop', 'field_3', 'Note', 3, 0);
  INSERT INTO records (bloc_id, created_at, user_id, submitted_status, job_id, data) VALUES
    ('shop', '2026-01-01 08:00:00', '7', 1, NULL, '{"field_1":"S-1","field_2":"ORD-1","field_3":"${LONG}-a"}'),
    ('shop', '2026-01-01 08:00:01', '7', 1, NULL, '{"field_1":"S-2","field_2":"ORD-2","field_3":"${LONG}-b"}'),
    ('shop', '2026-01-01 08:00:02', '7', 1, NULL, '{"field_1":"S-3","field_2":"ORD-1"}');
  INSERT INTO day_counts (bloc_id, segment, day, n) VALUES ('shop', '', '2026-01-01', 3), ('shop', 'u:7', '2026-01-01', 3);
  INSERT INTO value_totals (bloc_id, segment, slug, value, n)
    SELECT 'shop', s.segment, v.slug, v.value, v.n FROM (SELECT '' AS segment UNION ALL SELECT 'u:7') s,
      (SELECT 'field_1' AS slug, 'S-1' AS value, 1 AS n UNION ALL SELECT 'field_1', 'S-2', 1 UNION ALL SELECT 'field_1', 'S-3', 1
       UNION ALL SELECT 'field_2', 'ORD-1', 2 UNION ALL SELECT 'field_2', 'ORD-2', 1
       UNION ALL SELECT 'field_3', '${LONG}-a', 1 UNION ALL SELECT 'field_3', '${LONG}-b', 1) v;
`;

/** The indexes on records whose names say they are field value indexes, old or new. */
async function valueIndexNames(url: string): Promise<string[]> {
  if (testEngine() === "sqlite") {
    const db = new Database(sqlitePath(url));
    try {
      return (db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'records' AND (name GLOB 'records_value_*' OR name GLOB 'records_by_value_*') ORDER BY name")
        .pluck().all() as string[]);
    } finally {
      db.close();
    }
  }
  const pool = connect(url, 1);
  try {
    const rows = await pool.unsafe<{ name: string }[]>(`SELECT indexname AS name FROM pg_indexes
      WHERE schemaname = current_schema() AND tablename = 'records' AND (indexname LIKE 'records\\_field\\_%' OR indexname LIKE 'records\\_by\\_value\\_%') ORDER BY 1`);
    return rows.map((row) => row.name);
  } finally {
    await pool.end();
  }
}

const md5 = (text: string): string => crypto.createHash("md5").update(text).digest("hex");

test(`a database made before every field had a value index (${testEngine()}) gets one per field slug on upgrade`, { timeout: 120_000 }, async () => {
  const workspace = await freshWorkspace("upgrade-values");
  const sqlite = testEngine() === "sqlite";
  const latest = sqlite ? SQLITE_VERSION : POSTGRES_VERSION;
  const before = (sqlite ? SQLITE_VALUE_INDEXES : POSTGRES_VALUE_INDEXES) - 1;
  try {
    const url = workspace.databaseUrl;
    if (sqlite) {
      const db = new Database(sqlitePath(url));
      try {
        migrateSqlite(db, before);
        db.exec(BEFORE_VALUE_INDEXES_SEED);
        // The index the service made then for a field marked indexed.
        db.exec(`CREATE INDEX "records_value_field_1" ON records (bloc_id, json_extract(data, '$."field_1"'))`);
      } finally {
        db.close();
      }
    } else {
      const pool = connect(url, 1);
      try {
        assert.equal(await migratePostgres(pool, before), before);
        await pool.unsafe(BEFORE_VALUE_INDEXES_SEED).simple();
        await pool.unsafe(`CREATE INDEX records_field_${md5("field_1")} ON records (bloc_id, (left((data ->> 'field_1'), 200) COLLATE "C"), bloc_key_tail((data ->> 'field_1'), 200))`);
      } finally {
        await pool.end();
      }
    }
    assert.deepEqual(await valueIndexNames(url), [sqlite ? "records_value_field_1" : `records_field_${md5("field_1")}`]);

    const env = { DATABASE_URL: url };
    const migrated = await runToEnd(CLI_ENTRY, ["migrate"], env, workspace.cwd);
    assert.equal(migrated.code, 0, migrated.stderr);
    assert.deepEqual(JSON.parse(migrated.stdout), { schemaVersion: latest });
    const slugs = ["field_1", "field_2", "field_3"];
    assert.deepEqual(await valueIndexNames(url),
      slugs.map((slug) => (sqlite ? `records_by_value_${slug}` : `records_by_value_${md5(slug)}`)).sort());

    const admin = `upgrade-admin-${crypto.randomBytes(12).toString("hex")}`;
    const server = await startProcess({ ...env, BLOC_ADMIN_TOKEN: admin }, workspace.cwd);
    try {
      const update = async (searchItems: Record<string, string>): Promise<number[]> => {
        const reply = await call(server.url, "POST", "/api/update-records-by-matching-values", {
          token: admin, json: { blocId: "shop", fieldsToUpdate: { field_1: "seen" }, searchItems },
        });
        assert.equal(reply.status, 200, reply.text);
        return reply.json.updated_record_ids as number[];
      };
      assert.deepEqual(await update({ field_2: "ORD-1" }), [1, 3]);
      assert.deepEqual(await update({ field_3: `${LONG}-b` }), [2]);
      assert.deepEqual(await update({ field_3: LONG }), []);
      const report = await call(server.url, "GET", "/api/get-data-report", {
        token: admin,
        json: {
          stationID: "shop", fieldsToReport: "all", responseType: "json",
          dataFilteringData: JSON.stringify({ filterDataToQuery: { field_2: ["ORD-2"], field_3: [`${LONG}-a`, `${LONG}-b`] } }),
        },
      });
      assert.equal(report.status, 200, report.text);
      assert.deepEqual((report.json.data as Record<string, string>[]).map((row) => row.field_2), ["ORD-2"]);
    } finally {
      await server.stop();
    }
    const store = await openStoreAt(url);
    try {
      await assertCountersEqualRecount(store);
    } finally {
      await store.close();
    }
  } finally {
    await workspace.remove();
  }
});

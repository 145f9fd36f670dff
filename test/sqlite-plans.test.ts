import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type Database from "better-sqlite3";
import type { RecordFilter } from "../src/domain/model.js";
import { SqliteConnection } from "../src/store/sqlite/connection.js";
import { repeatedValues } from "../src/store/sqlite/counters.js";
import { OWNER_TIME_INDEX, SqliteRecords } from "../src/store/sqlite/record-queries.js";
import { Statements } from "../src/store/sqlite/statements.js";
import { testEngine } from "./support/database.js";

/*
 * SQLite keeps no statistics the service relies on, so its planner decides by the query's
 * shape alone: the plans that shape must give are checked here, on the store's own queries.
 */

const sqliteOnly = testEngine() === "sqlite" ? false : "SQLite only";

/** Statements that remember every query text prepared through them. */
class Recorded extends Statements {
  readonly texts: string[] = [];

  override get(sql: string): Database.Statement {
    this.texts.push(sql);
    return super.get(sql);
  }
}

/** The plan SQLite makes for `sql`, every parameter bound to null (without statistics the values do not change it). */
function plan(db: Database.Database, sql: string): string {
  const params = (sql.match(/\?/g) ?? []).map(() => null);
  const rows = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[];
  return rows.map((row) => row.detail).join("; ");
}

/** Runs `use` on the connection of a new, empty store, with Statements that record every query text. */
async function onNewStore<T>(use: (db: Database.Database, sql: Recorded) => T | Promise<T>): Promise<T> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "bloc-sqlite-plans-"));
  const connection = new SqliteConnection(path.join(dir, "bloc.db"));
  try {
    return await use(connection.db, new Recorded(connection.db));
  } finally {
    connection.db.close();
    await fs.rm(dir, { recursive: true, force: true });
  }
}

/** The plan of the page query `listRecords` and `listRows` run for `filter` (newest first, after a cursor). */
function pagePlans(filter: RecordFilter): Promise<string[]> {
  return onNewStore(async (db, sql) => {
    const records = new SqliteRecords(sql);
    const page = { order: "newest" as const, limit: 500, offset: 0, after: { createdAt: "2026-11-19 12:00:00", id: 7 } };
    await records.listRecords(filter, page);
    await records.listRows(filter, page, [{ key: "0", source: { field: "field_1" } }]);
    const pages = sql.texts.filter((text) => /ORDER BY/.test(text) && /FROM records r/.test(text));
    assert.equal(pages.length, 2, `two page queries: ${sql.texts.join(" | ")}`);
    return pages.map((text) => plan(db, text));
  });
}

const SHIFT = { blocId: "b1", from: "2026-11-19 06:00:00", to: "2026-11-19 13:59:59" };

test("an own reader's page in a window reads the owner's index, not every owner's records in the range", { skip: sqliteOnly }, async () => {
  // (A query a value index drives, value-driver.ts, is planned on that index instead.)
  for (const filter of [{ ...SHIFT, visibility: { ownerId: "u1" } }, { blocId: "b1", visibility: { ownerId: "u1" } }]) {
    for (const detail of await pagePlans(filter)) {
      assert.match(detail, new RegExp(`USING (COVERING )?INDEX ${OWNER_TIME_INDEX} \\(bloc_id=\\? AND user_id=\\?`), `${JSON.stringify(filter)}: ${detail}`);
      assert.doesNotMatch(detail, /TEMP B-TREE/, `${JSON.stringify(filter)}: the index gives the order, no sort: ${detail}`);
    }
  }
});

test("a page of every owner's records in a window reads the bloc's time index, in order", { skip: sqliteOnly }, async () => {
  for (const detail of await pagePlans(SHIFT)) {
    assert.match(detail, /USING (COVERING )?INDEX records_by_bloc_time \(bloc_id=\? AND created_at>\? AND created_at<\?\)/, detail);
    assert.doesNotMatch(detail, /TEMP B-TREE/, detail);
  }
});

test("one scope's top values are read by value_counts' key and sorted: no index keeps them by count, to move on every add", { skip: sqliteOnly }, async () => {
  await onNewStore((db, sql) => {
    repeatedValues(sql, [7], "field_1", 10);
    assert.equal(sql.texts.length, 1);
    const detail = plan(db, sql.texts[0]!);
    assert.match(detail, /SEARCH value_counts USING PRIMARY KEY \(scope_id=\? AND slug=\?\)/, detail);
    const indexes = db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'value_counts'").pluck().all();
    assert.deepEqual(indexes, []);
  });
});

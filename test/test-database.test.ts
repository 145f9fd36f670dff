import { test } from "node:test";
import assert from "node:assert/strict";
import postgres from "postgres";
import { databaseName, freshDatabaseUrl, postgresServerUrl, testEngine } from "./support/database.js";

/**
 * The helper every other suite gets its database from, checked against the real
 * PostgreSQL server: a fresh database can be connected to, and drop() removes it.
 */

const postgresOnly = testEngine() === "postgres" ? false : "needs BLOC_TEST_ENGINE=postgres and a server at BLOC_TEST_PG_URL";

test("database names keep to [a-z0-9_], fit PostgreSQL's 63 bytes and differ each time", () => {
  const long = databaseName("Ünïcode, spaces & dashes-".repeat(10));
  assert.match(long, /^bloc_[a-z0-9_]+_[0-9a-f]{16}$/);
  assert.ok(Buffer.byteLength(long) <= 63, `${long} is ${Buffer.byteLength(long)} bytes`);
  assert.match(databaseName("add-data"), /^bloc_add_data_[0-9a-f]{16}$/);
  assert.match(databaseName(""), /^bloc_test_[0-9a-f]{16}$/);
  assert.notEqual(databaseName("same"), databaseName("same"));
});

test("an unknown engine, or postgres without a server URL, stops the run with a clear error", async () => {
  const saved = { engine: process.env.BLOC_TEST_ENGINE, url: process.env.BLOC_TEST_PG_URL };
  try {
    process.env.BLOC_TEST_ENGINE = "postgresql";
    assert.throws(() => testEngine(), /BLOC_TEST_ENGINE must be "sqlite" or "postgres", got "postgresql"/);
    process.env.BLOC_TEST_ENGINE = "postgres";
    delete process.env.BLOC_TEST_PG_URL;
    await assert.rejects(freshDatabaseUrl("/tmp", "x"), /BLOC_TEST_ENGINE=postgres needs BLOC_TEST_PG_URL/);
  } finally {
    restore("BLOC_TEST_ENGINE", saved.engine);
    restore("BLOC_TEST_PG_URL", saved.url);
  }
});

function restore(name: string, value: string | undefined): void {
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
}

test("a fresh PostgreSQL database answers SELECT 1, and drop() removes it", { skip: postgresOnly }, async () => {
  const database = await freshDatabaseUrl("/unused-on-postgres", "helper self-test");
  const name = new URL(database.url).pathname.slice(1);
  assert.match(name, /^bloc_helper_self_test_[0-9a-f]{16}$/);
  const server = postgres(postgresServerUrl(), { max: 1, onnotice: () => {} });
  try {
    const fresh = postgres(database.url, { max: 1, onnotice: () => {} });
    try {
      const [row] = await fresh<{ one: number }[]>`SELECT 1 AS one`;
      assert.equal(row?.one, 1);
      const [where] = await fresh<{ db: string }[]>`SELECT current_database() AS db`;
      assert.equal(where?.db, name, "the URL names the new database");
      // An open connection must not keep drop() from working: a killed server can leave one behind.
      await database.drop();
    } finally {
      await fresh.end({ timeout: 1 });
    }
    const left = await server<{ n: number }[]>`SELECT count(*)::int AS n FROM pg_database WHERE datname = ${name}`;
    assert.equal(left[0]?.n, 0, `${name} is gone`);
    // A second drop is harmless, so cleanup after a half-failed start may run it again.
    await database.drop();
  } finally {
    await server.end({ timeout: 5 });
  }
});

import crypto from "node:crypto";
import path from "node:path";
import postgres from "postgres";

/**
 * The database engine the HTTP-level tests run on, and a fresh, empty database of
 * that engine for each server a test starts, so that test files never share state.
 *
 *   BLOC_TEST_ENGINE=sqlite (default)  a file in the test's temporary folder
 *   BLOC_TEST_ENGINE=postgres          a new database on the server BLOC_TEST_PG_URL names
 */

export type TestEngine = "sqlite" | "postgres";

export interface TestDatabase {
  /** The DATABASE_URL that selects this database. */
  readonly url: string;
  /** Removes the database; the servers using it should have closed first. */
  drop(): Promise<void>;
}

export function testEngine(): TestEngine {
  const raw = process.env.BLOC_TEST_ENGINE ?? "";
  if (raw === "" || raw === "sqlite") return "sqlite";
  if (raw === "postgres") return "postgres";
  // A typo must not quietly run the suite on SQLite and report it green for PostgreSQL.
  throw new Error(`BLOC_TEST_ENGINE must be "sqlite" or "postgres", got "${raw}"`);
}

/** The server URL fresh PostgreSQL databases are made on; only asked for when the engine is postgres. */
export function postgresServerUrl(): string {
  const url = process.env.BLOC_TEST_PG_URL ?? "";
  if (url === "") {
    throw new Error(
      "BLOC_TEST_ENGINE=postgres needs BLOC_TEST_PG_URL, the server to create test databases on " +
      "(e.g. postgres://postgres@127.0.0.1:5432/test); its user must be allowed to CREATE DATABASE",
    );
  }
  return url;
}

/**
 * A fresh database for one server (or one group of processes sharing it).
 * For SQLite, `dir` is the folder its file goes in; a relative `dir` stays relative,
 * so that tests of how a relative URL resolves against a process's cwd keep testing that.
 * `label` names the PostgreSQL database, so that a leftover one tells which test made it.
 */
export async function freshDatabaseUrl(dir: string, label: string): Promise<TestDatabase> {
  if (testEngine() === "sqlite") {
    // The folder is removed by the test with its other files.
    return { url: `sqlite:${dir}/bloc.db`, drop: async () => {} };
  }
  return freshPostgresDatabase(postgresServerUrl(), label);
}

/** The label of the running test file ("add-data" for dist/test/add-data.test.js): node --test runs each file as its own process. */
export function testFileLabel(): string {
  return path.basename(process.argv[1] ?? "test").replace(/\.test\.[cm]?js$/, "");
}

/** PostgreSQL truncates identifiers longer than this many bytes, which would make two names collide. */
const MAX_IDENTIFIER_BYTES = 63;

/** `bloc_<label>_<16 hex>`, only [a-z0-9_], so it needs no quoting beyond double quotes and fits 63 bytes. */
export function databaseName(label: string): string {
  const suffix = crypto.randomBytes(8).toString("hex");
  const room = MAX_IDENTIFIER_BYTES - "bloc_".length - "_".length - suffix.length;
  const clean = label.toLowerCase().replace(/[^a-z0-9_]+/g, "_").slice(0, room) || "test";
  return `bloc_${clean}_${suffix}`;
}

/** A new database on the PostgreSQL server `serverUrl` names, whatever engine the run is on (test/store-contract.test.ts). */
export async function freshPostgresDatabase(serverUrl: string, label: string): Promise<TestDatabase> {
  const name = databaseName(label);
  await onServer(serverUrl, (sql) => sql.unsafe(`CREATE DATABASE "${name}"`));
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    // FORCE ends connections a killed or stuck server process left behind; IF EXISTS makes a second drop harmless.
    drop: () => onServer(serverUrl, (sql) => sql.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)),
  };
}

/** Runs one statement on its own short connection: CREATE and DROP DATABASE cannot run inside a transaction or pool. */
async function onServer(serverUrl: string, statement: (sql: postgres.Sql) => Promise<unknown>): Promise<void> {
  const sql = postgres(serverUrl, { max: 1, connect_timeout: 10, onnotice: () => {} });
  try {
    await statement(sql);
  } finally {
    await sql.end({ timeout: 5 });
  }
}

import crypto from "node:crypto";
import postgres from "postgres";

/**
 * A fresh PostgreSQL database on the server BLOC_TEST_PG_URL names, for the tests that
 * compare engines; undefined (with the reason) when that variable is not set.
 * Stands in until test/support/database.ts offers fresh databases for every engine.
 */
export interface PgDatabase {
  readonly url: string;
  drop(): Promise<void>;
}

export function pgServerUrl(): string | undefined {
  const url = process.env.BLOC_TEST_PG_URL ?? "";
  return url === "" ? undefined : url;
}

export const NO_PG_REASON = "BLOC_TEST_PG_URL is not set (e.g. postgres://postgres@127.0.0.1:5432/test)";

async function onServer(serverUrl: string, statement: string): Promise<void> {
  // CREATE and DROP DATABASE run outside any transaction, on a connection of their own.
  const sql = postgres(serverUrl, { max: 1, connect_timeout: 10, onnotice: () => {} });
  try {
    await sql.unsafe(statement);
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** `bloc_<label>_<hex>`: only [a-z0-9_], so that it needs no quoting beyond double quotes. */
export async function freshPgDatabase(serverUrl: string, label: string): Promise<PgDatabase> {
  const name = `bloc_${label.replace(/[^a-z0-9_]/g, "_")}_${crypto.randomBytes(6).toString("hex")}`;
  await onServer(serverUrl, `CREATE DATABASE "${name}"`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    // FORCE ends connections a killed server left behind.
    drop: () => onServer(serverUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`),
  };
}

import { isPostgresUrl, sqlitePath, type Config } from "../config.js";
import type { Store } from "../domain/ports/store.js";
import { SqliteStore } from "./sqlite/sqlite-store.js";
import { SCHEMA_VERSION as SQLITE_SCHEMA_VERSION } from "./sqlite/schema.js";
import { unopenable } from "./sqlite/unopenable.js";
import { PostgresStore } from "./postgres/postgres-store.js";

/**
 * The engine a DATABASE_URL names, opened and migrated. A new engine adds one branch
 * here and a folder beside this file.
 */
export async function openStore(config: Config): Promise<Store> {
  const url = config.databaseUrl;
  if (url.startsWith("sqlite:")) return openSqlite(sqlitePath(url));
  if (isPostgresUrl(url)) return PostgresStore.open(url, config.pgPool, config.storeTimeoutMs);
  throw new Error(`No store engine for DATABASE_URL "${url}"`);
}

function openSqlite(file: string): Store {
  try {
    return new SqliteStore(file);
  } catch (error) {
    throw unopenable(error, file) ?? error;
  }
}

/** The schema version an opened store is at (opening migrates). */
export function schemaVersion(store: Store): number {
  return store instanceof PostgresStore ? store.schemaVersion : SQLITE_SCHEMA_VERSION;
}

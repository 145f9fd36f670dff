import { sqlitePath } from "../config.js";
import type { Store } from "./store.js";
import { SqliteStore } from "./sqlite/sqlite-store.js";

/** The engine a DATABASE_URL names. A new engine adds one branch here and one file beside this one. */
export function openStore(databaseUrl: string): Store {
  if (databaseUrl.startsWith("sqlite:")) return new SqliteStore(sqlitePath(databaseUrl));
  throw new Error(`No store engine for DATABASE_URL "${databaseUrl}"`);
}

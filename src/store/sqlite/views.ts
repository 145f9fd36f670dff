import type { Capabilities, TxViews } from "../../domain/ports/store.js";
import type { GenerationCache } from "../generation-cache.js";
import { merge, onConnection } from "../views.js";
import { SqliteAccess } from "./access.js";
import { SqliteAccounts } from "./accounts.js";
import { SqliteBlocs } from "./blocs.js";
import * as counters from "./counters.js";
import * as deleted from "./deleted-records.js";
import { appendEvents, createWebhook } from "./events.js";
import { SqliteFiles } from "./files.js";
import * as history from "./history.js";
import { findIdempotencyKey, saveIdempotencyKey } from "./idempotency.js";
import { SqliteRecords } from "./record-queries.js";
import type { Statements } from "./statements.js";
import { SqliteTokens } from "./tokens.js";

/**
 * Every view of the SQLite engine on its one connection: what a unit of work, a snapshot
 * and (under the connection's lock) the Store itself read and write through. Made once:
 * the connection, and so the views, are the same for every transaction.
 */
export function sqliteViews(sql: Statements, cache: GenerationCache, capabilities: Capabilities) {
  return {
    capabilities,
    records: merge(new SqliteRecords(sql), onConnection(sql, history), onConnection(sql, deleted)),
    files: new SqliteFiles(sql),
    counters: onConnection(sql, counters),
    accounts: new SqliteAccounts(sql, cache),
    tokens: new SqliteTokens(sql, cache),
    blocs: new SqliteBlocs(sql, cache),
    access: new SqliteAccess(sql, cache),
    events: onConnection(sql, { appendEvents, createWebhook }),
    idempotency: onConnection(sql, { findIdempotencyKey, saveIdempotencyKey }),
  } satisfies TxViews;
}

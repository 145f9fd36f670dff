import type { Capabilities, StoreReads, TxViews } from "../../domain/ports/store.js";
import { merge, onConnection } from "../views.js";
import { PgAccess } from "./access.js";
import { PgAccounts } from "./accounts.js";
import { PgBlocs } from "./blocs.js";
import { PgConfigCache, type CachedConfig } from "./config-cache.js";
import * as counters from "./counters.js";
import * as deleted from "./deleted-records.js";
import type { Db } from "./driver.js";
import { appendEvents, createWebhook } from "./events.js";
import { insertHistory, recordHistory } from "./history.js";
import { claimIdempotencyKey, findIdempotencyKey, saveIdempotencyKey } from "./idempotency.js";
import {
  countRecords, findFile, findRecords, holders, lastSequence, listRecords, listRows, tallyValues, valuesWithPrefix,
} from "./record-reads.js";
import { insertFile, insertRecord, saveSequence, updateValues } from "./record-writes.js";
import type { WriteTransaction } from "./write-transaction.js";
import { PgTokens } from "./tokens.js";

/*
 * The views of the PostgreSQL engine (domain/ports/views.ts): on the pool or a snapshot,
 * reads; on a transaction's session, reads and writes.
 */

const RECORD_READS = { countRecords, listRecords, findRecords, listRows, tallyValues, holders, lastSequence, valuesWithPrefix, recordHistory };

/** Config is written only in transactions: a Store's config writes are each one (store/views.ts committed). */
function noWrites(): never {
  throw new Error("a config write outside a transaction");
}

/** Every read, on a pool or a snapshot (`db`). */
export function pgReadViews(db: Db, config: CachedConfig) {
  const cache = new PgConfigCache(db, config);
  return {
    records: onConnection(db, RECORD_READS),
    files: onConnection(db, { findFile }),
    counters: onConnection(db, counters),
    accounts: new PgAccounts(db, noWrites),
    tokens: new PgTokens(db, cache, noWrites),
    blocs: new PgBlocs(db, cache, noWrites),
    access: new PgAccess(db, cache, noWrites),
  } satisfies StoreReads;
}

/**
 * Every view on one transaction's connection. A config write marks the transaction (it
 * then reads config uncached: `bypass`) and tells other readers to look at the
 * generation afresh.
 */
export function pgViews(session: WriteTransaction, shared: Omit<CachedConfig, "bypass">, capabilities: Capabilities): TxViews {
  const db = session.db;
  const cache = new PgConfigCache(db, { ...shared, bypass: () => session.wroteConfig });
  const changing = (): void => {
    session.wroteConfig = true;
    shared.cache.changed();
  };
  return {
    capabilities,
    records: merge(
      onConnection(db, RECORD_READS), onConnection(db, { insertRecord, updateValues, saveSequence, insertHistory }), onConnection(db, deleted),
      { lockBloc: (blocId: string) => session.lockBloc(blocId) },
    ),
    files: onConnection(db, { findFile, insertFile }),
    counters: onConnection(db, counters),
    accounts: new PgAccounts(db, changing),
    tokens: new PgTokens(db, cache, changing),
    blocs: new PgBlocs(db, cache, changing),
    access: new PgAccess(db, cache, changing),
    events: onConnection(db, { appendEvents, createWebhook }),
    idempotency: onConnection(db, { claimIdempotencyKey, findIdempotencyKey, saveIdempotencyKey }),
  };
}

import type { CounterDeltas } from "../../domain/counting/deltas.js";
import type { Scope, ScopeCountChange, ScopeKey, ValueCountChange } from "../../domain/ports/counters.js";
import type { GenerationCache } from "../generation-cache.js";
import type { HistoryEntry, IdempotencyEntry, NewEvent, Tx, ValueCount, Webhook } from "../../domain/ports/store.js";
import * as counters from "./counters.js";
import type { StoredRecord } from "../../domain/model.js";
import * as deleted from "./deleted-records.js";
import * as events from "./events.js";
import * as history from "./history.js";
import * as idempotency from "./idempotency.js";
import { SqliteRecords } from "./record-queries.js";
import type { Statements } from "./statements.js";

/**
 * The SQLite engine's view of its one connection: every read and write of the Store
 * interface, and, inside a transaction, a unit's counter changes. Locking a bloc costs
 * nothing here: a write transaction (BEGIN IMMEDIATE) already holds the database's one
 * write lock, across processes.
 */
export class SqliteSession extends SqliteRecords implements Tx {
  constructor(sql: Statements, cache: GenerationCache, readonly counters: CounterDeltas, readonly pending: CounterDeltas) {
    super(sql, cache);
  }

  async lockBloc(): Promise<void> {}

  async scopes(blocId: string, keys: readonly ScopeKey[]): Promise<Scope[]> {
    return counters.scopes(this.sql, blocId, keys);
  }

  async periodCounts(blocId: string, segments: readonly string[], from: string, to: string): Promise<{ period: string; n: number }[]> {
    return counters.periodCounts(this.sql, blocId, segments, from, to);
  }

  async repeatedValues(scopes: readonly number[], slug: string, limit: number): Promise<ValueCount[]> {
    return counters.repeatedValues(this.sql, scopes, slug, limit);
  }

  async countsOf(scopes: readonly number[], slug: string, values: readonly string[]): Promise<[string, number][]> {
    return counters.countsOf(this.sql, scopes, slug, values);
  }

  async countsOfPairs(scope: number, pairs: readonly { readonly slug: string; readonly value: string }[]): Promise<[string, string, number][]> {
    return counters.countsOfPairs(this.sql, scope, pairs);
  }

  async valuesHeldTwice(blocId: string, slug: string, after: string | null, limit: number): Promise<[string, number][]> {
    return counters.valuesHeldTwice(this.sql, blocId, slug, after, limit);
  }

  async holderCounts(blocId: string, keys: readonly { readonly slug: string; readonly value: string }[], cap: number): Promise<number[]> {
    return counters.holderCounts(this.sql, blocId, keys, cap);
  }

  async blocsWithoutScope(key: ScopeKey): Promise<string[]> {
    return counters.blocsWithoutScope(this.sql, key);
  }

  async changeScopes(blocId: string, changes: readonly ScopeCountChange[]): Promise<Scope[]> {
    return counters.changeScopes(this.sql, blocId, changes);
  }

  async markCounted(scopes: readonly number[]): Promise<void> {
    counters.markCounted(this.sql, scopes);
  }

  async changeValues(changes: readonly ValueCountChange[]): Promise<void> {
    counters.changeValues(this.sql, changes);
  }

  async removeValue(scopes: readonly number[], slug: string, value: string): Promise<void> {
    counters.removeValue(this.sql, scopes, slug, value);
  }

  async clearCounters(blocId: string): Promise<void> {
    counters.clearCounters(this.sql, blocId);
  }

  async recordHistory(blocId: string, recordId: number): Promise<HistoryEntry[] | undefined> {
    return history.recordHistory(this.sql, blocId, recordId);
  }

  async insertHistory(blocId: string, entries: readonly HistoryEntry[]): Promise<void> {
    history.insertHistory(this.sql, blocId, entries);
  }

  async moveToDeleted(blocId: string, ids: readonly number[], deletedAt: string, deletedBy: string): Promise<number> {
    return deleted.moveToDeleted(this.sql, blocId, ids, deletedAt, deletedBy);
  }

  async findDeletedRecord(blocId: string, id: number): Promise<StoredRecord | undefined> {
    return deleted.findDeletedRecord(this.sql, blocId, id);
  }

  async moveFromDeleted(blocId: string, id: number): Promise<boolean> {
    return deleted.moveFromDeleted(this.sql, blocId, id);
  }

  /** Always free: this transaction holds the database's one write lock. */
  async claimIdempotencyKey(): Promise<boolean> {
    return true;
  }

  async findIdempotencyKey(userId: string, keyHash: string, notBefore: number): Promise<IdempotencyEntry | undefined> {
    return idempotency.findIdempotencyKey(this.sql, userId, keyHash, notBefore);
  }

  async saveIdempotencyKey(entry: IdempotencyEntry): Promise<void> {
    idempotency.saveIdempotencyKey(this.sql, entry);
  }

  async appendEvents(blocId: string, list: readonly NewEvent[]): Promise<void> {
    events.appendEvents(this.sql, blocId, list);
  }

  async createWebhook(webhook: Webhook): Promise<void> {
    events.createWebhook(this.sql, webhook);
  }
}

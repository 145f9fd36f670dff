import type { IdempotencyEntry } from "../../domain/ports/store.js";
import { IDEMPOTENCY_COLUMNS, toIdempotencyEntry, type IdempotencyRow } from "../record-rows.js";
import type { Statements } from "./statements.js";

/*
 * Idempotency keys in the SQLite engine. No lock of their own: every write transaction
 * holds the file's one write lock (BEGIN IMMEDIATE), across processes, so two requests
 * with one key never check it at the same time.
 */

export function findIdempotencyKey(sql: Statements, userId: string, keyHash: string, notBefore: number): IdempotencyEntry | undefined {
  const row = sql.get(`SELECT ${IDEMPOTENCY_COLUMNS} FROM idempotency_keys
    WHERE user_id = ? AND key_hash = ? AND created_ms >= ?`).get(userId, keyHash, notBefore) as IdempotencyRow | undefined;
  return row && toIdempotencyEntry(row);
}

export function saveIdempotencyKey(sql: Statements, entry: IdempotencyEntry): void {
  sql.get(`INSERT INTO idempotency_keys (user_id, key_hash, request_hash, record_id, replacements, created_ms)
    VALUES (?, ?, ?, ?, ?, ?)
    ON CONFLICT (user_id, key_hash) DO UPDATE SET request_hash = excluded.request_hash, record_id = excluded.record_id,
      replacements = excluded.replacements, created_ms = excluded.created_ms`)
    .run(entry.userId, entry.keyHash, entry.requestHash, entry.recordId, entry.replacements, entry.createdMs);
}

export function purgeIdempotencyKeys(sql: Statements, before: number): number {
  return sql.get("DELETE FROM idempotency_keys WHERE created_ms < ?").run(before).changes;
}

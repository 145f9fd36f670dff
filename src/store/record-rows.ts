import type { Changes, HistoryAction, HistoryEntry, IdempotencyEntry } from "../domain/ports/store.js";

/*
 * Idempotency keys and history entries as rows of their tables (tables.ts), and back:
 * the same for every engine. Changes travel as JSON text.
 */

export interface IdempotencyRow {
  user_id: string;
  key_hash: string;
  request_hash: string;
  record_id: number;
  replacements: string;
  created_ms: number;
}

export const IDEMPOTENCY_COLUMNS = "user_id, key_hash, request_hash, record_id, replacements, created_ms";

export function toIdempotencyEntry(row: IdempotencyRow): IdempotencyEntry {
  return {
    userId: row.user_id, keyHash: row.key_hash, requestHash: row.request_hash, recordId: row.record_id,
    replacements: row.replacements, createdMs: row.created_ms,
  };
}

export interface HistoryRow {
  record_id: number;
  changed_at: string;
  user_id: string;
  token_id: string | null;
  changes: string;
  action: HistoryAction;
}

export const HISTORY_COLUMNS = "record_id, changed_at, user_id, token_id, changes, action";

export function toHistoryEntry(row: HistoryRow): HistoryEntry {
  return {
    recordId: row.record_id, action: row.action, at: row.changed_at, userId: row.user_id, tokenId: row.token_id,
    changes: JSON.parse(row.changes) as Changes,
  };
}

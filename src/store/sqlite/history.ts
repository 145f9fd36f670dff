import type { HistoryEntry } from "../../domain/ports/store.js";
import { HISTORY_COLUMNS, toHistoryEntry, type HistoryRow } from "../record-rows.js";
import type { Statements } from "./statements.js";

/* Record history in the SQLite engine: one row per update of one record, changes as JSON text. */

export function insertHistory(sql: Statements, blocId: string, entries: readonly HistoryEntry[]): void {
  const insert = sql.get(`INSERT INTO record_history (bloc_id, record_id, changed_at, user_id, token_id, changes, action)
    VALUES (?, ?, ?, ?, ?, ?, ?)`);
  for (const entry of entries) {
    insert.run(blocId, entry.recordId, entry.at, entry.userId, entry.tokenId, JSON.stringify(entry.changes), entry.action);
  }
}

export function recordHistory(sql: Statements, blocId: string, recordId: number): HistoryEntry[] | undefined {
  const held = sql.get(`SELECT 1 FROM records WHERE id = ? AND bloc_id = ?
    UNION ALL SELECT 1 FROM deleted_records WHERE id = ? AND bloc_id = ?`).get(recordId, blocId, recordId, blocId);
  if (held === undefined) return undefined;
  const rows = sql.get(`SELECT ${HISTORY_COLUMNS} FROM record_history
    WHERE record_id = ? AND bloc_id = ? ORDER BY id`).all(recordId, blocId) as HistoryRow[];
  return rows.map(toHistoryEntry);
}

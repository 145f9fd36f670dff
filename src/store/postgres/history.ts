import type { HistoryEntry } from "../../domain/ports/store.js";
import { HISTORY_COLUMNS, toHistoryEntry, type HistoryRow } from "../record-rows.js";
import { storable, type Db } from "./driver.js";

/* Record history in the PostgreSQL engine: one row per update of one record, changes as JSON text. */

/** One statement for the whole update: its entries travel as parallel arrays. */
export async function insertHistory(db: Db, blocId: string, entries: readonly HistoryEntry[]): Promise<void> {
  if (entries.length === 0) return;
  await db.run(`INSERT INTO record_history (bloc_id, record_id, changed_at, user_id, token_id, changes, action)
    SELECT $1::text, x.record_id, x.changed_at, x.user_id, x.token_id, x.changes, x.action
    FROM unnest($2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[])
      AS x(record_id, changed_at, user_id, token_id, changes, action)`,
  [blocId, entries.map((e) => e.recordId), entries.map((e) => e.at), entries.map((e) => e.userId),
    entries.map((e) => e.tokenId), entries.map((e) => JSON.stringify(e.changes)), entries.map((e) => e.action)]);
}

export async function recordHistory(db: Db, blocId: string, recordId: number): Promise<HistoryEntry[] | undefined> {
  if (!storable(blocId)) return undefined;
  const [found] = await db.run(`SELECT 1 FROM records WHERE id = $1::bigint AND bloc_id = $2::text
    UNION ALL SELECT 1 FROM deleted_records WHERE id = $1::bigint AND bloc_id = $2::text`, [recordId, blocId]);
  if (!found) return undefined;
  const rows = await db.run<HistoryRow>(`SELECT ${HISTORY_COLUMNS} FROM record_history
    WHERE record_id = $1::bigint AND bloc_id = $2::text ORDER BY id`, [recordId, blocId]);
  return rows.map(toHistoryEntry);
}

import type { StoredRecord } from "../../domain/model.js";
import { toRecord, type RecordRow } from "./sql.js";
import type { Statements } from "./statements.js";

/* Deleted records in the SQLite engine: rows moved whole between records and deleted_records. */

const COLUMNS = "id, bloc_id, created_at, user_id, submitted_status, job_id, data";

export function moveToDeleted(sql: Statements, blocId: string, ids: readonly number[], deletedAt: string, deletedBy: string): number {
  const copy = sql.get(`INSERT INTO deleted_records (${COLUMNS}, deleted_at, deleted_by)
    SELECT ${COLUMNS}, ?, ? FROM records WHERE id = ? AND bloc_id = ?`);
  const remove = sql.get("DELETE FROM records WHERE id = ? AND bloc_id = ?");
  let moved = 0;
  for (const id of ids) {
    copy.run(deletedAt, deletedBy, id, blocId);
    moved += remove.run(id, blocId).changes;
  }
  return moved;
}

export function findDeletedRecord(sql: Statements, blocId: string, id: number): StoredRecord | undefined {
  const row = sql.get(`SELECT id, created_at, user_id, submitted_status, job_id, data FROM deleted_records
    WHERE id = ? AND bloc_id = ?`).get(id, blocId) as RecordRow | undefined;
  return row && toRecord(row);
}

export function moveFromDeleted(sql: Statements, blocId: string, id: number): boolean {
  sql.get(`INSERT INTO records (${COLUMNS}) SELECT ${COLUMNS} FROM deleted_records WHERE id = ? AND bloc_id = ?`).run(id, blocId);
  return sql.get("DELETE FROM deleted_records WHERE id = ? AND bloc_id = ?").run(id, blocId).changes > 0;
}

import type { StoredRecord } from "../../domain/model.js";
import type { Db } from "./driver.js";
import { toRecord, type RecordRow } from "./record-reads.js";

/* Deleted records in the PostgreSQL engine: rows moved whole between records and deleted_records. */

const COLUMNS = "id, bloc_id, created_at, user_id, submitted_status, job_id, data";

export async function moveToDeleted(db: Db, blocId: string, ids: readonly number[], deletedAt: string, deletedBy: string): Promise<number> {
  if (ids.length === 0) return 0;
  const rows = await db.run<{ id: number }>(`
    WITH moved AS (DELETE FROM records WHERE bloc_id = $1::text AND id = ANY($2::bigint[]) RETURNING ${COLUMNS})
    INSERT INTO deleted_records (${COLUMNS}, deleted_at, deleted_by)
    SELECT ${COLUMNS}, $3::text, $4::text FROM moved RETURNING id`, [blocId, [...ids], deletedAt, deletedBy]);
  return rows.length;
}

export async function findDeletedRecord(db: Db, blocId: string, id: number): Promise<StoredRecord | undefined> {
  const [row] = await db.run<RecordRow>(`SELECT id, created_at, user_id, submitted_status, job_id, data FROM deleted_records r
    WHERE id = $1::bigint AND bloc_id = $2::text`, [id, blocId]);
  return row && toRecord(row);
}

export async function moveFromDeleted(db: Db, blocId: string, id: number): Promise<boolean> {
  const rows = await db.run<{ id: number }>(`
    WITH moved AS (DELETE FROM deleted_records WHERE id = $1::bigint AND bloc_id = $2::text RETURNING ${COLUMNS})
    INSERT INTO records (${COLUMNS}) SELECT ${COLUMNS} FROM moved RETURNING id`, [id, blocId]);
  return rows.length > 0;
}

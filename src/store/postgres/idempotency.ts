import type { IdempotencyEntry } from "../../domain/ports/store.js";
import { IDEMPOTENCY_COLUMNS, toIdempotencyEntry, type IdempotencyRow } from "../record-rows.js";
import { LOCK, type Db } from "./driver.js";

/*
 * Idempotency keys in the PostgreSQL engine. Two requests with one key, in two processes,
 * are serialised by a transaction advisory lock on the key, held until the first one's
 * record and key commit together; the second then reads the key (READ COMMITTED reads
 * what committed before each statement). The lock is only tried, never waited for: a
 * group commit already holds its bloc's lock, and waiting for a key held by a transaction
 * that waits for that bloc would deadlock.
 */

export async function claimIdempotencyKey(db: Db, userId: string, keyHash: string): Promise<boolean> {
  const [row] = await db.run<{ ok: boolean }>("SELECT pg_try_advisory_xact_lock($1::integer, hashtext($2::text)) AS ok",
    [LOCK.idempotency, `${userId}:${keyHash}`]);
  return row!.ok;
}

export async function findIdempotencyKey(db: Db, userId: string, keyHash: string, notBefore: number): Promise<IdempotencyEntry | undefined> {
  const [row] = await db.run<IdempotencyRow>(`SELECT ${IDEMPOTENCY_COLUMNS}
    FROM idempotency_keys WHERE user_id = $1::text AND key_hash = $2::text AND created_ms >= $3::bigint`, [userId, keyHash, notBefore]);
  return row && toIdempotencyEntry(row);
}

export async function saveIdempotencyKey(db: Db, entry: IdempotencyEntry): Promise<void> {
  await db.run(`INSERT INTO idempotency_keys (user_id, key_hash, request_hash, record_id, replacements, created_ms)
    VALUES ($1::text, $2::text, $3::text, $4::bigint, $5::text, $6::bigint)
    ON CONFLICT (user_id, key_hash) DO UPDATE SET request_hash = excluded.request_hash, record_id = excluded.record_id,
      replacements = excluded.replacements, created_ms = excluded.created_ms`,
  [entry.userId, entry.keyHash, entry.requestHash, entry.recordId, entry.replacements, entry.createdMs]);
}

/** Skips rows a running transaction holds (one replacing an expired key): a purge never waits. */
export async function purgeIdempotencyKeys(db: Db, before: number): Promise<number> {
  const [row] = await db.run<{ n: number }>(`WITH gone AS (
      DELETE FROM idempotency_keys WHERE ctid IN (
        SELECT ctid FROM idempotency_keys WHERE created_ms < $1::bigint FOR UPDATE SKIP LOCKED)
      RETURNING 1)
    SELECT count(*)::bigint AS n FROM gone`, [before]);
  return row!.n;
}

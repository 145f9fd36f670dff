import type { SignInAttempts } from "../../domain/ports/store.js";
import type { Db } from "./driver.js";

/** How often a process deletes the rows of windows that have passed. */
const PRUNE_EVERY_MS = 60_000;

/**
 * Sign-in attempts per email in the database, so that every process shares one count
 * (Store.accounts.countSignInAttempt): one upsert, atomic under concurrent callers, adds the
 * attempt or begins a new window when the row's has passed (SET reads the old row).
 */
export class PgSignInAttempts {
  private prunedAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly db: Db) {}

  async countSignInAttempt(emailHash: string, nowMs: number, windowMs: number): Promise<SignInAttempts> {
    const passed = nowMs - windowMs;
    if (nowMs >= this.prunedAt + PRUNE_EVERY_MS) {
      this.prunedAt = nowMs;
      await this.db.run("DELETE FROM sign_in_attempts WHERE since_ms <= $1::bigint", [passed]);
    }
    const [row] = await this.db.run<{ n: number; since_ms: string | number }>(`
      INSERT INTO sign_in_attempts AS a (email_hash, since_ms, n) VALUES ($1::text, $2::bigint, 1)
      ON CONFLICT (email_hash) DO UPDATE SET
        n = CASE WHEN a.since_ms <= $3::bigint THEN 1 ELSE a.n + 1 END,
        since_ms = CASE WHEN a.since_ms <= $3::bigint THEN excluded.since_ms ELSE a.since_ms END
      RETURNING n, since_ms`, [emailHash, nowMs, passed]);
    return { count: Number(row!.n), sinceMs: Number(row!.since_ms) };
  }

  async clearSignInAttempts(emailHash: string): Promise<void> {
    await this.db.run("DELETE FROM sign_in_attempts WHERE email_hash = $1::text", [emailHash]);
  }
}

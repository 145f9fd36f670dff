import type { SignInAttempts } from "../../domain/ports/store.js";
import type { SqliteConnection } from "./connection.js";

/** How often a process deletes the rows of windows that have passed. */
const PRUNE_EVERY_MS = 60_000;

/**
 * Sign-in attempts per email in the database file, so that every process on it shares
 * one count (Store.accounts.countSignInAttempt), each a write transaction of its own. One
 * upsert adds the attempt, or begins a new window when the row's has passed; SQLite
 * evaluates every SET expression on the old row.
 */
export class SqliteSignInAttempts {
  private prunedAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly connection: SqliteConnection) {}

  private get sql(): SqliteConnection["sql"] {
    return this.connection.sql;
  }

  countSignInAttempt(emailHash: string, nowMs: number, windowMs: number): Promise<SignInAttempts> {
    return this.connection.write(async () => this.count(emailHash, nowMs, windowMs));
  }

  /** Forgets an email's attempts (after a sign-in that succeeded). */
  clearSignInAttempts(emailHash: string): Promise<void> {
    return this.connection.write(async () => this.clear(emailHash));
  }

  private count(emailHash: string, nowMs: number, windowMs: number): SignInAttempts {
    const passed = nowMs - windowMs;
    if (nowMs >= this.prunedAt + PRUNE_EVERY_MS) {
      this.prunedAt = nowMs;
      this.sql.get("DELETE FROM sign_in_attempts WHERE since_ms <= ?").run(passed);
    }
    const row = this.sql.get(`INSERT INTO sign_in_attempts (email_hash, since_ms, n) VALUES (?, ?, 1)
      ON CONFLICT (email_hash) DO UPDATE SET
        n = CASE WHEN since_ms <= ? THEN 1 ELSE n + 1 END,
        since_ms = CASE WHEN since_ms <= ? THEN excluded.since_ms ELSE since_ms END
      RETURNING n, since_ms`).get(emailHash, nowMs, passed, passed) as { n: number; since_ms: number };
    return { count: row.n, sinceMs: row.since_ms };
  }

  private clear(emailHash: string): void {
    this.sql.get("DELETE FROM sign_in_attempts WHERE email_hash = ?").run(emailHash);
  }
}

import type { Db } from "./driver.js";

/** Windows kept behind the current one before they are deleted. */
const KEPT_WINDOWS = 10;

/**
 * Requests per token and time window, counted in the database so that every process
 * shares one count: an upsert that adds one and answers the total, atomic under
 * concurrent callers. The table is UNLOGGED (schema.ts): counting writes no log and
 * waits for no disk. Each process deletes old windows now and then.
 */
export class RateWindows {
  private prunedAt = -1;

  constructor(private readonly db: Db) {}

  /** Store.tokens.countRequest. */
  async countRequest(tokenId: string, window: number): Promise<number> {
    if (window >= this.prunedAt + KEPT_WINDOWS) {
      this.prunedAt = window;
      await this.db.run("DELETE FROM rate_windows WHERE win < $1::bigint", [window - KEPT_WINDOWS]);
    }
    const [row] = await this.db.run<{ n: number }>(`INSERT INTO rate_windows AS w (token_id, win, n) VALUES ($1::text, $2::bigint, 1)
      ON CONFLICT (token_id, win) DO UPDATE SET n = w.n + 1 RETURNING n`, [tokenId, window]);
    return row!.n;
  }
}

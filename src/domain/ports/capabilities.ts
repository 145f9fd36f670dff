/**
 * How an engine differs from another, declared once by each engine (store/<engine>/) and
 * read where behaviour differs (domain/capabilities.ts, domain/transactions.ts,
 * http/rate-limit.ts), rather than hidden in methods that do nothing on one engine.
 * A method that only some engines have is optional in its port and present exactly when
 * the capability it belongs to says so.
 */
export interface Capabilities {
  /**
   * Writers run side by side, so a unit locks the blocs whose records it reads before it
   * writes (Tx.records.lockBloc). False where a write transaction already holds every
   * other writer off (SQLite's one write lock, across processes): there is nothing to lock.
   */
  readonly perBlocLocks: boolean;
  /**
   * Two transactions may handle the same Idempotency-Key at once, so a unit claims the
   * key before it looks it up (Tx.idempotency.claimIdempotencyKey). False for the same
   * reason as perBlocLocks.
   */
  readonly claimsIdempotencyKeys: boolean;
  /**
   * A commit is on disk once it returns. False where the engine makes commits durable
   * after they return (SQLite's WAL flushed off the event loop, store/sqlite/wal-sync.ts):
   * nothing is answered before its engine says it is durable (domain/transactions.ts).
   */
  readonly durableOnCommit: boolean;
  /**
   * Where BLOC_RATE_LIMIT counts a token's requests: "shared" in the database, for every
   * process (Store.tokens.countRequest); "process" in each process's memory, where a count
   * per request would cost a write that waits for the database's one write lock.
   */
  readonly rateLimitScope: "process" | "shared";
  /**
   * The engine's query planner keeps statistics that a large load leaves stale
   * (Store.maintenance.refreshStatistics). False where none are kept: SQLite's plans are
   * chosen from the counters (store/value-plan.ts).
   */
  readonly plannerStatistics: boolean;
}

/* What add-data keeps to answer the repeats of a request sent with an Idempotency-Key (domain/idempotency.ts). */

/** An add-data that succeeded under an Idempotency-Key, kept to answer its repeats. */
export interface IdempotencyEntry {
  readonly userId: string;
  /** SHA-256 of the key, hex: the key itself is never stored. */
  readonly keyHash: string;
  /** SHA-256 of the canonical request, hex (domain/idempotency.ts). */
  readonly requestHash: string;
  readonly recordId: number;
  /** The answer's `autogenerateReplacements`, as JSON text. */
  readonly replacements: string;
  /** When it was kept, in milliseconds since the epoch. */
  readonly createdMs: number;
}

/** Idempotency keys inside a unit of work (Tx.idempotency). */
export interface IdempotencyKeys {
  /**
   * Holds a user's idempotency key until the transaction ends, across processes. False
   * when another transaction holds it: the caller ends this one and tries again, rather
   * than wait while holding other locks (a group commit holds a bloc's). Present exactly
   * when the engine's capabilities say `claimsIdempotencyKeys` (domain/capabilities.ts).
   */
  claimIdempotencyKey?(userId: string, keyHash: string): Promise<boolean>;
  /** The entry kept for a user's key, unless it was kept before `notBefore` (ms since the epoch). */
  findIdempotencyKey(userId: string, keyHash: string, notBefore: number): Promise<IdempotencyEntry | undefined>;
  /** Keeps an entry, replacing an expired one of the same user and key. */
  saveIdempotencyKey(entry: IdempotencyEntry): Promise<void>;
}

/** Idempotency keys outside any unit of work (Store.idempotency). */
export interface IdempotencyPurge {
  /** Deletes idempotency entries kept before `before` (ms since the epoch); returns how many. */
  purgeIdempotencyKeys(before: number): Promise<number>;
}

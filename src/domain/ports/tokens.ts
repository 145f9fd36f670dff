import type { Token, TokenInfo, TokenScope, User } from "../model.js";

/* API tokens: what authenticates a request, and what is counted of their use. */

export interface NewToken {
  readonly id: string;
  readonly userId: string;
  readonly name: string | null;
  /** SHA-256 of the secret, hex. The secret itself never reaches the store. */
  readonly hash: string;
  readonly expiresAt: string | null;
  readonly createdAt: string;
  readonly scope: TokenScope;
}

export interface TokenReads {
  findTokenByHash(hash: string): Promise<{ token: Token; hash: string; user: User } | undefined>;
}

/** Each atomic on its own: outside a unit of work, each is a transaction of its own. */
export interface TokenWrites {
  createToken(token: NewToken): Promise<void>;
  /** False when no such token exists. Revoking twice keeps the first time. */
  revokeToken(id: string, revokedAt: string): Promise<boolean>;
}

/** Tokens outside any unit of work (Store.tokens). */
export interface TokenStore extends TokenReads, TokenWrites {
  /** A user's tokens, revoked ones included, oldest first (those of the same second by ID). */
  listTokens(userId: string): Promise<TokenInfo[]>;
  /**
   * Records that a token was used at `at` (never moving it back). Changes nothing a cache
   * holds: the schema keeps it from bumping the generation.
   */
  noteTokenUse(tokenId: string, at: string): Promise<void>;
  /**
   * Counts one request of a token in a time window (a window number: milliseconds since
   * the epoch divided by the window's length) and returns the window's count so far,
   * this one included, for every process. Present exactly when the engine's capabilities
   * say `rateLimitScope: "shared"`; elsewhere each process counts its own (http/rate-limit.ts).
   */
  countRequest?(tokenId: string, window: number): Promise<number>;
}

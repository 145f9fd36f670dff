import { ConflictError } from "../../domain/errors.js";
import type { Token, TokenInfo, User } from "../../domain/model.js";
import type { NewToken, TokenReads, TokenWrites } from "../../domain/ports/store.js";
import { TOKEN_INFO_COLUMNS, internalId, toTokenInfo, type TokenInfoRow } from "../config-rows.js";
import type { PgConfigCache } from "./config-cache.js";
import { loadToken } from "./config-rows.js";
import { storable, type Db } from "./driver.js";

/**
 * API tokens in the PostgreSQL engine, read through the generation cache. Each write
 * calls `changing` before its first statement (the transaction then reads config
 * uncached, and other readers look at the generation afresh). Inserts that may meet a
 * taken key say ON CONFLICT DO NOTHING and report the conflict themselves: a failed
 * statement would abort the whole transaction in PostgreSQL, where the caller may still
 * want to go on.
 */
export class PgTokens implements TokenReads, TokenWrites {
  constructor(private readonly db: Db, private readonly config: PgConfigCache, private readonly changing: () => void) {}

  findTokenByHash(hash: string): Promise<{ token: Token; hash: string; user: User } | undefined> {
    // Unknown hashes are not kept: guessing tokens must not fill the cache.
    return this.config.cached(`token:${hash}`, (db) => loadToken(db, hash), (found) => found !== undefined);
  }

  async createToken(token: NewToken): Promise<void> {
    this.changing();
    const rows = await this.db.run(`
      INSERT INTO tokens (id, user_id, name, hash, expires_at, created_at, scope_permissions, scope_blocs)
      VALUES ($1::text, $2::bigint, $3::text, $4::text, $5::text, $6::text, $7::text, $8::text)
      ON CONFLICT DO NOTHING RETURNING id`,
    [token.id, internalId(token.userId), token.name, token.hash, token.expiresAt, token.createdAt,
      token.scope.permissions && JSON.stringify(token.scope.permissions),
      token.scope.blocs && JSON.stringify(token.scope.blocs)]);
    if (rows.length === 0) throw new ConflictError("already exists");
  }

  async revokeToken(id: string, revokedAt: string): Promise<boolean> {
    this.changing();
    if (!storable(id)) return false;
    const rows = await this.db.run(
      "UPDATE tokens SET revoked_at = COALESCE(revoked_at, $1::text) WHERE id = $2::text RETURNING id", [revokedAt, id]);
    return rows.length > 0;
  }

  async listTokens(userId: string): Promise<TokenInfo[]> {
    const rows = await this.db.run<TokenInfoRow>(
      `SELECT ${TOKEN_INFO_COLUMNS} FROM tokens WHERE user_id = $1::bigint ORDER BY created_at, id`, [internalId(userId)]);
    return rows.map(toTokenInfo);
  }

  async noteTokenUse(tokenId: string, at: string): Promise<void> {
    await this.db.run(
      "UPDATE tokens SET last_used_at = $1::text WHERE id = $2::text AND (last_used_at IS NULL OR last_used_at < $1::text)", [at, tokenId]);
  }
}

import type { Token, TokenInfo, User } from "../../domain/model.js";
import { TOKEN_COLUMNS, TOKEN_INFO_COLUMNS, internalId, toToken, toTokenInfo, type TokenInfoRow, type TokenRow } from "../config-rows.js";
import type { NewToken, TokenReads, TokenWrites } from "../../domain/ports/store.js";
import type { GenerationCache } from "../generation-cache.js";
import type { Statements } from "./statements.js";

/** API tokens in the SQLite engine, read through the generation cache. */
export class SqliteTokens implements TokenReads, TokenWrites {
  constructor(private readonly sql: Statements, private readonly cache: GenerationCache) {}

  async createToken(token: NewToken): Promise<void> {
    this.cache.changed();
    this.sql.get(
      `INSERT INTO tokens (id, user_id, name, hash, expires_at, created_at, scope_permissions, scope_blocs)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(token.id, internalId(token.userId), token.name, token.hash, token.expiresAt, token.createdAt,
      token.scope.permissions && JSON.stringify(token.scope.permissions),
      token.scope.blocs && JSON.stringify(token.scope.blocs));
  }

  async findTokenByHash(hash: string): Promise<{ token: Token; hash: string; user: User } | undefined> {
    // Unknown hashes are not kept: guessing tokens must not fill the cache.
    return this.cache.get(`token:${hash}`, async () => this.loadToken(hash), (found) => found !== undefined);
  }

  private loadToken(hash: string): { token: Token; hash: string; user: User } | undefined {
    const row = this.sql.get(`SELECT ${TOKEN_COLUMNS} FROM tokens t JOIN users u ON u.id = t.user_id WHERE t.hash = ?`)
      .get(hash) as TokenRow | undefined;
    return row && toToken(row);
  }

  async revokeToken(id: string, revokedAt: string): Promise<boolean> {
    this.cache.changed();
    return this.sql.get("UPDATE tokens SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?").run(revokedAt, id).changes > 0;
  }

  async listTokens(userId: string): Promise<TokenInfo[]> {
    return (this.sql.get(`SELECT ${TOKEN_INFO_COLUMNS} FROM tokens WHERE user_id = ? ORDER BY created_at, id`)
      .all(internalId(userId)) as TokenInfoRow[]).map(toTokenInfo);
  }
}

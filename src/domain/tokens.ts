import crypto from "node:crypto";
import { InvalidInputError, NotFoundError, UnauthenticatedError } from "./errors.js";
import type { ConfigContext, Context } from "./context.js";
import type { Timestamp } from "./clock.js";
import { PERMISSIONS, type Permission, type TokenScope } from "./model.js";
import type { Principal } from "./access.js";
import { noteTokenUse } from "./token-use.js";
import { MAX_SECRET_LENGTH } from "../config.js";

const PREFIX = "bds_";

/** 32 random bytes; the prefix lets secret scanners recognise a leaked token. */
function generateSecret(): string {
  return PREFIX + crypto.randomBytes(32).toString("base64url");
}

export function hashSecret(secret: string): string {
  return crypto.createHash("sha256").update(secret, "utf8").digest("hex");
}

/** Whether the clock has read `stamp`, as an instant: text comparison would revive a token for the hour the clocks go back. */
function hasPassed(ctx: ConfigContext, stamp: Timestamp): boolean {
  return ctx.now.reaches(stamp) <= ctx.now.instant();
}

export interface IssuedToken {
  readonly id: string;
  readonly token: string;
}

export const UNSCOPED: TokenScope = { permissions: null, blocs: null };

async function checkScope(ctx: ConfigContext, scope: TokenScope): Promise<TokenScope> {
  if (scope.permissions) {
    if (scope.permissions.length === 0) throw new InvalidInputError("permissions must name at least one of read, add, update");
    for (const p of scope.permissions) {
      if (!PERMISSIONS.includes(p)) throw new InvalidInputError(`permissions: "${p}" is not one of read, add, update`);
    }
  }
  if (scope.blocs) {
    if (scope.blocs.length === 0) throw new InvalidInputError("blocs must name at least one bloc");
    for (const blocId of scope.blocs) {
      if (!(await ctx.store.blocs.findBloc(blocId))) throw new NotFoundError(`Bloc "${blocId}" does not exist`);
    }
  }
  return {
    permissions: scope.permissions && [...new Set(scope.permissions)] as Permission[],
    blocs: scope.blocs && [...new Set(scope.blocs)],
  };
}

/**
 * Creates a token for a user; the secret is returned here and never again. A scope
 * narrows the token below its user's rights: some permissions only, some blocs only.
 */
export async function issueToken(
  ctx: ConfigContext, userId: string,
  options: { name?: string | null; expiresAt?: Timestamp | null; secret?: string; scope?: TokenScope },
): Promise<IssuedToken> {
  const user = await ctx.store.accounts.findUser(userId);
  if (!user) throw new NotFoundError(`User "${userId}" does not exist`);
  const scope = await checkScope(ctx, options.scope ?? UNSCOPED);
  const expiresAt = options.expiresAt ?? null;
  if (expiresAt !== null && hasPassed(ctx, expiresAt)) {
    throw new InvalidInputError(`expiresAt ${expiresAt} is not in the future: it is ${ctx.now()} now (BLOC_TIMEZONE)`);
  }
  const secret = options.secret ?? generateSecret();
  const id = crypto.randomUUID();
  await ctx.store.tokens.createToken({
    id, userId: user.id, name: options.name ?? null, hash: hashSecret(secret),
    expiresAt, createdAt: ctx.now(), scope,
  });
  return { id, token: secret };
}

export async function revokeToken(ctx: Context, tokenId: string): Promise<void> {
  if (!(await ctx.store.tokens.revokeToken(tokenId, ctx.now()))) {
    throw new NotFoundError(`Token "${tokenId}" does not exist`);
  }
}

/** Who a bearer secret acts for; every failure reads the same to the caller. */
export async function authenticate(ctx: Context, secret: string | undefined): Promise<Principal> {
  if (!secret) throw new UnauthenticatedError("An Authorization header with a Bearer token is required");
  if (secret.length > MAX_SECRET_LENGTH) throw new UnauthenticatedError("The access token is invalid, expired or revoked");
  const hash = hashSecret(secret);
  const found = await ctx.store.tokens.findTokenByHash(hash);
  // The lookup is by hash, so an attacker learns nothing from its timing; the
  // constant-time comparison guards against an engine that matched loosely.
  const matches = found !== undefined &&
    crypto.timingSafeEqual(Buffer.from(found.hash, "hex"), Buffer.from(hash, "hex"));
  // A disabled user's tokens stay as they were (enabling the user again restores them) but authenticate no one.
  if (!found || !matches || found.token.revokedAt !== null || found.user.disabled ||
    (found.token.expiresAt !== null && hasPassed(ctx, found.token.expiresAt))) {
    throw new UnauthenticatedError("The access token is invalid, expired or revoked");
  }
  noteTokenUse(ctx, found.token.id);
  return { user: found.user, scope: found.token.scope, tokenId: found.token.id };
}

import crypto from "node:crypto";
import { NotFoundError, UnauthenticatedError } from "./errors.js";
import type { Context } from "./context.js";
import type { Timestamp } from "./clock.js";
import type { User } from "./model.js";

const PREFIX = "bds_";

/** 32 random bytes; the prefix lets secret scanners recognise a leaked token. */
export function generateSecret(): string {
  return PREFIX + crypto.randomBytes(32).toString("base64url");
}

export function hashSecret(secret: string): string {
  return crypto.createHash("sha256").update(secret, "utf8").digest("hex");
}

export interface IssuedToken {
  readonly id: string;
  readonly token: string;
}

/** Creates a token for a user; the secret is returned here and never again. */
export async function issueToken(
  ctx: Context, userId: string, options: { name?: string | null; expiresAt?: Timestamp | null; secret?: string },
): Promise<IssuedToken> {
  const user = await ctx.store.findUser(userId);
  if (!user) throw new NotFoundError(`User "${userId}" does not exist`);
  const secret = options.secret ?? generateSecret();
  const id = crypto.randomUUID();
  await ctx.store.createToken({
    id, userId: user.id, name: options.name ?? null, hash: hashSecret(secret),
    expiresAt: options.expiresAt ?? null, createdAt: ctx.now(),
  });
  return { id, token: secret };
}

export async function revokeToken(ctx: Context, tokenId: string): Promise<void> {
  if (!(await ctx.store.revokeToken(tokenId, ctx.now()))) {
    throw new NotFoundError(`Token "${tokenId}" does not exist`);
  }
}

/** The user a bearer secret belongs to; every failure reads the same to the caller. */
export async function authenticate(ctx: Context, secret: string | undefined): Promise<User> {
  if (!secret) throw new UnauthenticatedError("An Authorization header with a Bearer token is required");
  const hash = hashSecret(secret);
  const found = await ctx.store.findTokenByHash(hash);
  // The lookup is by hash, so an attacker learns nothing from its timing; the
  // constant-time comparison guards against an engine that matched loosely.
  const matches = found !== undefined &&
    crypto.timingSafeEqual(Buffer.from(found.hash, "hex"), Buffer.from(hash, "hex"));
  if (!found || !matches || found.token.revokedAt !== null ||
    (found.token.expiresAt !== null && found.token.expiresAt <= ctx.now())) {
    throw new UnauthenticatedError("The access token is invalid, expired or revoked");
  }
  return found.user;
}

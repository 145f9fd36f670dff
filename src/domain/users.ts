import { InvalidInputError } from "./errors.js";
import { ROLES, type Role, type User } from "./model.js";
import type { Context } from "./context.js";
import { hashSecret, issueToken } from "./tokens.js";

export async function createUser(ctx: Context, name: string, role: Role = "member"): Promise<User> {
  const trimmed = name.trim();
  if (trimmed === "") throw new InvalidInputError("name must not be empty");
  if (!ROLES.includes(role)) throw new InvalidInputError(`role must be one of ${ROLES.join(", ")}`);
  return ctx.store.createUser(trimmed, role, ctx.now());
}

/**
 * Makes sure an admin holding exactly `secret` exists, so that a deployment can
 * configure its first admin token; running it again with the same secret does nothing.
 */
export async function ensureAdminToken(ctx: Context, secret: string): Promise<void> {
  const found = await ctx.store.findTokenByHash(hashSecret(secret));
  if (found && found.user.role === "admin" && found.token.revokedAt === null) return;
  if (found) {
    throw new InvalidInputError("BLOC_ADMIN_TOKEN belongs to a revoked token or a non-admin user; choose another");
  }
  const admin = await createUser(ctx, "admin", "admin");
  await issueToken(ctx, admin.id, { name: "BLOC_ADMIN_TOKEN", secret });
}

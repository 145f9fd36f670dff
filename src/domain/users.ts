import { ConflictError, InvalidInputError, NotFoundError } from "./errors.js";
import { USER_ROLES, type Role, type UserRole, type User } from "./model.js";
import type { ConfigContext, Context } from "./context.js";
import { hashSecret, issueToken } from "./tokens.js";

export async function createUser(ctx: ConfigContext, name: string, role: UserRole = "member"): Promise<User> {
  const trimmed = name.trim();
  if (trimmed === "") throw new InvalidInputError("name must not be empty");
  if (!USER_ROLES.includes(role)) throw new InvalidInputError(`role must be one of ${USER_ROLES.join(", ")}`);
  return ctx.store.accounts.createUser(trimmed, role, ctx.now());
}

/**
 * Makes sure an admin holding exactly `secret` exists, so that a deployment can
 * configure its first admin token; running it again with the same secret does nothing.
 */
export async function ensureAdminToken(ctx: Context, secret: string): Promise<void> {
  // Processes starting together may race to create it: the loser's insert of the same
  // token hash conflicts, and its second look finds the winner's admin.
  for (let attempt = 0; ; attempt += 1) {
    const found = await ctx.store.tokens.findTokenByHash(hashSecret(secret));
    if (found && found.user.role === "admin" && found.token.revokedAt === null) return;
    if (found) {
      throw new InvalidInputError("BLOC_ADMIN_TOKEN belongs to a revoked token or a non-admin user; choose another");
    }
    try {
      // One transaction: a failure cannot leave an admin without the token.
      await ctx.store.transaction(async (tx) => {
        const scoped = { ...ctx, store: tx };
        const admin = await createUser(scoped, "admin", "admin");
        await issueToken(scoped, admin.id, { name: "BLOC_ADMIN_TOKEN", secret });
      });
      return;
    } catch (error) {
      if (!(error instanceof ConflictError) || attempt > 0) throw error;
    }
  }
}

export async function describeUser(ctx: Context, userId: string): Promise<User & { roles: Role[] }> {
  const user = await ctx.store.accounts.findUser(userId);
  if (!user) throw new NotFoundError(`User "${userId}" does not exist`);
  return { ...user, roles: await ctx.store.accounts.rolesOf(user.id) };
}

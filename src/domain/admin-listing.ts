import { NotFoundError } from "./errors.js";
import type { Context } from "./context.js";
import type { TokenInfo, User } from "./model.js";

/** Every user, by ID: what describeUser gives of each, but for roles. */
export function listUsers(ctx: Context): Promise<User[]> {
  return ctx.store.accounts.listUsers();
}

/** A user's tokens (revoked ones too), oldest first: IDs, names, scopes, times; never a secret or hash. */
export async function listTokens(ctx: Context, userId: string): Promise<TokenInfo[]> {
  if (!(await ctx.store.accounts.findUser(userId))) throw new NotFoundError(`User "${userId}" does not exist`);
  return ctx.store.tokens.listTokens(userId);
}

import { AccessDeniedError, NotFoundError } from "./errors.js";
import type { Bloc, Grant, Permission, User } from "./model.js";
import type { Context } from "./context.js";
import { getBloc } from "./blocs.js";

/**
 * The bloc, if `user` may do `permission` on it. Admins may do everything; to them a
 * missing bloc is named as such. To anyone else a missing bloc and a forbidden one
 * are the same refusal, so bloc IDs cannot be probed.
 */
export async function requireAccess(ctx: Context, user: User, blocId: string, permission: Permission): Promise<Bloc> {
  const bloc = await ctx.store.findBloc(blocId);
  if (user.role === "admin") {
    if (!bloc) throw new NotFoundError(`Bloc "${blocId}" does not exist`);
    return bloc;
  }
  if (!bloc) throw new AccessDeniedError();
  const grant = await ctx.store.findGrant(blocId, user.id);
  if (!grant || !grant[permission]) throw new AccessDeniedError();
  return bloc;
}

export async function setGrant(ctx: Context, blocId: string, userId: string, grant: Grant): Promise<Grant> {
  await getBloc(ctx, blocId);
  if (!(await ctx.store.findUser(userId))) throw new NotFoundError(`User "${userId}" does not exist`);
  await ctx.store.setGrant(blocId, userId, grant);
  return grant;
}

export async function removeGrant(ctx: Context, blocId: string, userId: string): Promise<void> {
  await getBloc(ctx, blocId);
  if (!(await ctx.store.findUser(userId))) throw new NotFoundError(`User "${userId}" does not exist`);
  await ctx.store.removeGrant(blocId, userId);
}

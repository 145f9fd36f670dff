import { PERMISSIONS, type Permission, type RestrictionMode, type Role, type TokenScope, type User } from "./model.js";
import type { Context } from "./context.js";
import { effectiveAccess, type Principal } from "./access.js";

export interface UsableBloc {
  readonly id: string;
  readonly name: string;
  readonly permissions: readonly Permission[];
  readonly restriction: RestrictionMode;
  readonly seeHidden: boolean;
}

export interface Me {
  readonly user: User;
  readonly roles: readonly Role[];
  readonly token: TokenScope;
  readonly blocs: readonly UsableBloc[];
}

/** The principal as the access rules see them: what /api/me answers. */
export async function describePrincipal(ctx: Context, principal: Principal): Promise<Me> {
  const blocs: UsableBloc[] = [];
  for (const bloc of await ctx.store.blocs.listBlocs()) {
    const access = effectiveAccess(principal, bloc, await ctx.store.access.accessFacts(bloc.id, principal.user.id));
    if (access.permissions.size === 0) continue;
    blocs.push({
      id: bloc.id, name: bloc.name,
      permissions: PERMISSIONS.filter((p) => access.permissions.has(p)),
      restriction: access.restriction, seeHidden: access.seeHidden,
    });
  }
  return { user: principal.user, roles: await ctx.store.accounts.rolesOf(principal.user.id), token: principal.scope, blocs };
}

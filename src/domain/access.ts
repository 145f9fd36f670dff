import { AccessDeniedError, ConflictError, InvalidInputError, NotFoundError, ProfileViolationError } from "./errors.js";
import {
  PERMISSIONS, profileSlugs,
  type Bloc, type Grant, type Permission, type RestrictionMode, type TokenScope, type User, type Visibility,
} from "./model.js";
import type { AccessFacts, TransactionOptions, Tx } from "./ports/store.js";
import type { Context } from "./context.js";
import { getBloc } from "./blocs.js";
import { ownValue } from "./values.js";
import { changeWithEvent, configChanged } from "./events.js";
import { followOwner } from "./counting/settle.js";

/** Who a request acts for: the token's user, narrowed by the token's scope. */
export interface Principal {
  readonly user: User;
  readonly scope: TokenScope;
  /** The token the request came with: record history names it, the rate limit counts by it. */
  readonly tokenId: string;
}

/**
 * Whether the principal may use the admin API: an admin, with an unscoped token (a scoped
 * token is for the data endpoints). What only that API tells (a record's history, who made
 * a change) is told elsewhere, such as in the live stream, on the same terms.
 */
export function usesAdminApi(principal: Principal): boolean {
  return principal.user.role === "admin" && principal.scope.permissions === null && principal.scope.blocs === null;
}

/** What a principal may do on one bloc and which of its records they see. */
export interface BlocAccess {
  readonly bloc: Bloc;
  readonly permissions: ReadonlySet<Permission>;
  readonly restriction: RestrictionMode;
  readonly seeHidden: boolean;
  readonly visibility: Visibility;
}

function profileVisibility(bloc: Bloc, user: User): Visibility["match"] {
  return profileSlugs(bloc).map((slug) => ({ key: slug, values: user.profile }));
}

/**
 * The rules, in one function: admins may do everything and see everything; anyone
 * else has the union of their own grant, their roles' grants and (on a bloc open to
 * all) read and add; a bloc not accepting data takes add away; the user's restriction
 * (else the bloc's) and the bloc's profile-filtered fields decide which records are
 * visible. A token's scope then narrows whatever results.
 */
export function effectiveAccess(principal: Principal, bloc: Bloc, facts: AccessFacts): BlocAccess {
  const { user, scope } = principal;
  let permissions: Set<Permission>;
  let access: Omit<BlocAccess, "permissions">;
  if (user.role === "admin") {
    permissions = new Set(PERMISSIONS);
    access = { bloc, restriction: "none", seeHidden: true, visibility: {} };
  } else {
    const granted = (p: keyof Grant): boolean => facts.grants.some((g) => g[p]);
    permissions = new Set(PERMISSIONS.filter((p) => granted(p)));
    if (bloc.openToAllUsers) { permissions.add("read"); permissions.add("add"); }
    if (!bloc.acceptingData) permissions.delete("add");
    const restriction = facts.restriction ?? bloc.restriction;
    const seeHidden = granted("seeHidden");
    const match = profileVisibility(bloc, user);
    const visibility: Visibility = restriction === "hidden" && !seeHidden ? { none: true }
      : restriction === "own" ? { ownerId: user.id, match } : { match };
    access = { bloc, restriction, seeHidden, visibility };
  }
  if (scope.blocs && !scope.blocs.includes(bloc.id)) permissions.clear();
  if (scope.permissions) {
    for (const p of PERMISSIONS) if (!scope.permissions.includes(p)) permissions.delete(p);
  }
  return { ...access, permissions };
}

/**
 * The principal's access to a bloc, if they may do `permission` there. To admins a
 * missing bloc is named as such; to anyone else a missing bloc and a forbidden one
 * are the same refusal, so bloc IDs cannot be probed.
 */
export async function requireAccess(
  ctx: Context, principal: Principal, blocId: string, permission: Permission,
): Promise<BlocAccess> {
  const access = await accessTo(ctx, principal, blocId);
  if (!access.permissions.has(permission)) throw new AccessDeniedError();
  return access;
}

/** The principal's access to a bloc, whatever it allows; a missing bloc refused as requireAccess says. */
export async function accessTo(ctx: Context, principal: Principal, blocId: string): Promise<BlocAccess> {
  const bloc = await ctx.store.blocs.findBloc(blocId);
  if (!bloc) {
    if (principal.user.role === "admin" && principal.scope.blocs === null) {
      throw new NotFoundError(`Bloc "${blocId}" does not exist`);
    }
    throw new AccessDeniedError();
  }
  return effectiveAccess(principal, bloc, await ctx.store.access.accessFacts(bloc.id, principal.user.id));
}

/**
 * Refuses a write that would put a record outside the writer's own profile filter,
 * where they could no longer see it. `values` are the fields being written; with
 * `whole`, a profile-filtered field left out counts as written empty.
 */
export function checkProfileWrite(
  access: BlocAccess, principal: Principal, values: Readonly<Record<string, string>>, whole: boolean,
): void {
  if (principal.user.role === "admin") return;
  for (const field of access.bloc.fields) {
    if (!field.applyProfileFilter) continue;
    const value = ownValue(values, field.slug) ?? (whole ? "" : undefined);
    if (value !== undefined && !principal.user.profile.includes(value)) {
      throw new ProfileViolationError(
        `${field.slug} may only hold one of your profile values; "${value}" is not one of them`,
      );
    }
  }
}

export function grantOf(input: Partial<Grant>): Grant {
  return {
    read: input.read ?? false, add: input.add ?? false, update: input.update ?? false, delete: input.delete ?? false,
    seeHidden: input.seeHidden ?? false,
  };
}

async function requireUser(ctx: Context, userId: string): Promise<User> {
  const user = await ctx.store.accounts.findUser(userId);
  if (!user) throw new NotFoundError(`User "${userId}" does not exist`);
  return user;
}

async function requireRole(ctx: Context, roleId: string): Promise<void> {
  if (!(await ctx.store.accounts.findRole(roleId))) throw new NotFoundError(`Role "${roleId}" does not exist`);
}

/** Both must exist: grants and restrictions name a bloc and a user (or role). */
async function requireBlocAndUser(ctx: Context, blocId: string, userId: string): Promise<void> {
  await getBloc(ctx, blocId);
  await requireUser(ctx, userId);
}

async function requireBlocAndRole(ctx: Context, blocId: string, roleId: string): Promise<void> {
  await getBloc(ctx, blocId);
  await requireRole(ctx, roleId);
}

/** A change of who may do what on a bloc, with its access.updated event, in one transaction. */
function accessChange(ctx: Context, blocId: string, change: (tx: Tx) => Promise<void>,
  detail: { readonly kind: string } & Readonly<Record<string, unknown>>, options?: Pick<TransactionOptions, "recount">): Promise<void> {
  const now = ctx.now();
  return changeWithEvent(ctx, blocId, change, () => configChanged("access.updated", now, detail), options);
}

export async function setGrant(ctx: Context, blocId: string, userId: string, grant: Grant): Promise<Grant> {
  await requireBlocAndUser(ctx, blocId, userId);
  await accessChange(ctx, blocId, (tx) => tx.access.setGrant(blocId, userId, grant), { kind: "grant.set", userId, grant });
  return grant;
}

export async function removeGrant(ctx: Context, blocId: string, userId: string): Promise<void> {
  await requireBlocAndUser(ctx, blocId, userId);
  await accessChange(ctx, blocId, (tx) => tx.access.removeGrant(blocId, userId), { kind: "grant.removed", userId });
}

export async function setRoleGrant(ctx: Context, blocId: string, roleId: string, grant: Grant): Promise<Grant> {
  await requireBlocAndRole(ctx, blocId, roleId);
  await accessChange(ctx, blocId, (tx) => tx.access.setRoleGrant(blocId, roleId, grant), { kind: "role-grant.set", roleId, grant });
  return grant;
}

export async function removeRoleGrant(ctx: Context, blocId: string, roleId: string): Promise<void> {
  await requireBlocAndRole(ctx, blocId, roleId);
  await accessChange(ctx, blocId, (tx) => tx.access.removeRoleGrant(blocId, roleId), { kind: "role-grant.removed", roleId });
}

export async function setRestriction(ctx: Context, blocId: string, userId: string, mode: RestrictionMode): Promise<void> {
  await requireBlocAndUser(ctx, blocId, userId);
  await accessChange(ctx, blocId, async (tx) => {
    await tx.access.setRestriction(blocId, userId, mode);
    await followOwner(tx, blocId, userId);
  }, { kind: "restriction.set", userId, mode }, { recount: true });
}

export async function removeRestriction(ctx: Context, blocId: string, userId: string): Promise<void> {
  await requireBlocAndUser(ctx, blocId, userId);
  await accessChange(ctx, blocId, async (tx) => {
    await tx.access.removeRestriction(blocId, userId);
    await followOwner(tx, blocId, userId);
  }, { kind: "restriction.removed", userId }, { recount: true });
}

export async function setRoleMember(ctx: Context, userId: string, roleId: string, member: boolean): Promise<void> {
  await requireUser(ctx, userId);
  await requireRole(ctx, roleId);
  await ctx.store.accounts.setRoleMember(userId, roleId, member);
}

export async function createRole(ctx: Context, name: string): Promise<{ id: string; name: string }> {
  const trimmed = name.trim();
  if (trimmed === "") throw new InvalidInputError("name must not be empty");
  try {
    return await ctx.store.accounts.createRole(trimmed, ctx.now());
  } catch (error) {
    if (error instanceof ConflictError) throw new ConflictError(`A role named "${trimmed}" already exists`);
    throw error;
  }
}

export async function setProfile(ctx: Context, userId: string, profile: readonly string[]): Promise<User> {
  await requireUser(ctx, userId);
  await ctx.store.accounts.setProfile(userId, [...new Set(profile)]);
  return requireUser(ctx, userId);
}

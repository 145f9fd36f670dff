import { ConflictError, InvalidInputError, NotFoundError } from "./errors.js";
import type { ConfigContext, Context } from "./context.js";
import type { User, UserRole } from "./model.js";
import { createUser } from "./users.js";
import { checkPassword, hashPassword, verifyPassword } from "./passwords.js";
import type { AccountChanges } from "./ports/store.js";

/** RFC 5321's longest address. */
export const MAX_EMAIL_LENGTH = 254;

/**
 * An email as it is stored and looked up: trimmed and lower-cased, so that "Ann@Example.com"
 * and "ann@example.com" are one account. Only its shape is checked (something@something,
 * no spaces): whether mail reaches it is not this service's business.
 */
function normaliseEmail(email: string): string {
  const normal = email.trim().toLowerCase();
  if (normal.length > MAX_EMAIL_LENGTH) throw new InvalidInputError(`email must be at most ${MAX_EMAIL_LENGTH} characters long`);
  if (!/^[^\s@]+@[^\s@]+$/.test(normal)) throw new InvalidInputError("email must look like name@example.com");
  return normal;
}

/** What an admin may change of a user (PATCH /api/admin/users/:userId). */
export interface UserUpdate {
  readonly name?: string;
  readonly email?: string | null;
  readonly disabled?: boolean;
}

async function emailFree(ctx: ConfigContext, email: string, userId?: string): Promise<void> {
  const holder = await ctx.store.accounts.findLogin(email);
  if (holder && holder.user.id !== userId) throw new ConflictError(`email "${email}" is already another user's`);
}

/**
 * Writes account changes, turning a taken email (another writer's, in between) into the
 * same refusal as the check before.
 */
async function write(ctx: ConfigContext, userId: string, changes: AccountChanges): Promise<void> {
  try {
    if (!(await ctx.store.accounts.updateAccount(userId, changes))) throw new NotFoundError(`User "${userId}" does not exist`);
  } catch (error) {
    if (error instanceof ConflictError && changes.email) throw new ConflictError(`email "${changes.email}" is already another user's`);
    throw error;
  }
}

/**
 * A new user, with an email and a password when given. The password is hashed before the
 * transaction opens: scrypt's tens of milliseconds must not hold the store's write lock.
 */
export async function createUserWithAccount(
  ctx: Context, name: string, role: UserRole | undefined, account: { readonly email?: string | undefined; readonly password?: string | undefined },
): Promise<User> {
  const email = account.email === undefined ? undefined : normaliseEmail(account.email);
  if (account.password !== undefined) checkPassword("password", account.password);
  const passwordHash = account.password === undefined ? undefined : await hashPassword(account.password);
  if (email === undefined && passwordHash === undefined) return createUser(ctx, name, role);
  return ctx.store.transaction(async (tx) => {
    const scoped: ConfigContext = { ...ctx, store: tx };
    const user = await createUser(scoped, name, role);
    if (email !== undefined) await emailFree(scoped, email);
    await write(scoped, user.id, { ...(email === undefined ? {} : { email }), ...(passwordHash === undefined ? {} : { passwordHash }) });
    return { ...user, email: email ?? null };
  });
}

/**
 * Name, email and the disabled flag. Disabling takes effect at once in every process:
 * the change bumps the store's generation, so every cached token of the user is read
 * again, disabled, on its next request (tokens.ts). An admin cannot disable themselves,
 * which could leave no one able to undo it.
 */
export async function updateUser(ctx: Context, actorId: string, userId: string, update: UserUpdate): Promise<User> {
  const user = await ctx.store.accounts.findUser(userId);
  if (!user) throw new NotFoundError(`User "${userId}" does not exist`);
  const changes: { name?: string; email?: string | null; disabledAt?: string | null } = {};
  if (update.name !== undefined) {
    const name = update.name.trim();
    if (name === "") throw new InvalidInputError("name must not be empty");
    changes.name = name;
  }
  if (update.email !== undefined) {
    changes.email = update.email === null ? null : normaliseEmail(update.email);
    if (changes.email !== null) await emailFree(ctx, changes.email, userId);
  }
  if (update.disabled !== undefined && update.disabled !== user.disabled) {
    if (update.disabled && userId === actorId) throw new InvalidInputError("you cannot disable your own user");
    changes.disabledAt = update.disabled ? ctx.now() : null;
  }
  await write(ctx, userId, changes);
  const updated = await ctx.store.accounts.findUser(userId);
  if (!updated) throw new NotFoundError(`User "${userId}" does not exist`);
  return updated;
}

/** An admin sets (or replaces) a user's password. */
export async function setPassword(ctx: Context, userId: string, password: string): Promise<void> {
  checkPassword("password", password);
  await write(ctx, userId, { passwordHash: await hashPassword(password) });
}

/** A user changes their own password, proving they know the current one. */
export async function changeOwnPassword(ctx: Context, userId: string, currentPassword: string, newPassword: string): Promise<void> {
  checkPassword("newPassword", newPassword);
  const stored = await ctx.store.accounts.passwordOf(userId);
  if (stored === undefined) throw new NotFoundError(`User "${userId}" does not exist`);
  if (!(await verifyPassword(currentPassword, stored))) throw new InvalidInputError("currentPassword is not your current password");
  await write(ctx, userId, { passwordHash: await hashPassword(newPassword) });
}

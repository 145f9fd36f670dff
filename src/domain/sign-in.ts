import crypto from "node:crypto";
import { SignInLockedError, UnauthenticatedError } from "./errors.js";
import type { Context } from "./context.js";
import type { User } from "./model.js";
import { MAX_PASSWORD_LENGTH, verifyPassword } from "./passwords.js";
import { issueToken } from "./tokens.js";
import type { Timestamp } from "./clock.js";

/** Attempts one email may make within SIGN_IN_WINDOW_MS; the next is refused until the window passes. */
export const SIGN_IN_ATTEMPTS = 5;
export const SIGN_IN_WINDOW_MS = 15 * 60 * 1000;
/** The name of the tokens sign-in issues, as the admin token listing shows them. */
export const SIGN_IN_TOKEN_NAME = "sign-in";

/** One text for every refusal, so that it tells no one which emails exist or which users are disabled. */
const REFUSED = "Wrong email or password";

export interface SignedIn {
  readonly token: string;
  readonly expiresAt: Timestamp;
  readonly user: Pick<User, "id" | "name" | "role">;
}

/**
 * Signs a user in with email and password: an ordinary token of theirs (listed, revocable)
 * expiring after `sessionHours`. A wrong email, a wrong password, a user without a
 * password and a disabled user are refused alike, after the same scrypt work.
 *
 * Each attempt is counted before the password is checked, keyed on the email's SHA-256 in
 * the store (so every process shares the count, and the text typed there, which may be a
 * password, is never kept): past SIGN_IN_ATTEMPTS in the window, the email is refused
 * with the seconds until the window passes, even with the right password, and no password
 * is checked at all. Counting first means parallel guesses cannot slip past the limit.
 * A success forgets the email's attempts.
 */
export async function signIn(ctx: Context, email: string, password: string, sessionHours: number): Promise<SignedIn> {
  const normal = email.trim().toLowerCase();
  const key = crypto.createHash("sha256").update(normal, "utf8").digest("hex");
  const now = ctx.now.instant();
  const attempts = await ctx.store.accounts.countSignInAttempt(key, now, SIGN_IN_WINDOW_MS);
  if (attempts.count > SIGN_IN_ATTEMPTS) {
    const seconds = Math.max(1, Math.ceil((attempts.sinceMs + SIGN_IN_WINDOW_MS - now) / 1000));
    throw new SignInLockedError(`Too many failed sign-ins for this email; try again in ${seconds} seconds`, seconds);
  }
  const login = password.length <= MAX_PASSWORD_LENGTH ? await ctx.store.accounts.findLogin(normal) : undefined;
  const matches = await verifyPassword(password.slice(0, MAX_PASSWORD_LENGTH), login?.passwordHash ?? null);
  if (!login || !matches || login.user.disabled) throw new UnauthenticatedError(REFUSED);
  await ctx.store.accounts.clearSignInAttempts(key);
  const expiresAt = ctx.now.at(now + sessionHours * 60 * 60 * 1000);
  const issued = await issueToken(ctx, login.user.id, { name: SIGN_IN_TOKEN_NAME, expiresAt });
  return { token: issued.token, expiresAt, user: { id: login.user.id, name: login.user.name, role: login.user.role } };
}

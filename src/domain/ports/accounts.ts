import type { Role, User, UserRole } from "../model.js";

/* Users, their roles and their sign-in. */

/** A user found by email, with what their password is checked against (null: they have none). */
export interface Login {
  readonly user: User;
  readonly passwordHash: string | null;
}

/** Account changes of one user; absent keys stay as they are. */
export interface AccountChanges {
  readonly name?: string;
  /** Normalised (domain/accounts.ts); null removes it. A taken email throws ConflictError. */
  readonly email?: string | null;
  /** A password hash (domain/passwords.ts); null removes password sign-in. */
  readonly passwordHash?: string | null;
  /** When the user was disabled; null enables them. */
  readonly disabledAt?: string | null;
}

/** Sign-in attempts for one email in its current window (Store.accounts.countSignInAttempt). */
export interface SignInAttempts {
  /** Attempts in the window, this one included. */
  readonly count: number;
  /** When the window began, in ms since the epoch. */
  readonly sinceMs: number;
}

export interface AccountReads {
  findUser(id: string): Promise<User | undefined>;
  findRole(id: string): Promise<Role | undefined>;
  listRoles(): Promise<Role[]>;
  rolesOf(userId: string): Promise<Role[]>;
  /** The user whose (normalised) email this is, with their password hash. */
  findLogin(email: string): Promise<Login | undefined>;
  /** A user's password hash: null when they have none, undefined when there is no such user. */
  passwordOf(userId: string): Promise<string | null | undefined>;
}

/** Each atomic on its own: outside a unit of work, each is a transaction of its own. */
export interface AccountWrites {
  createUser(name: string, role: UserRole, createdAt: string): Promise<User>;
  setProfile(userId: string, profile: readonly string[]): Promise<void>;
  /** False when no such user exists. */
  updateAccount(userId: string, changes: AccountChanges): Promise<boolean>;
  createRole(name: string, createdAt: string): Promise<Role>;
  /** Makes the user a member of the role, or (member false) not. */
  setRoleMember(userId: string, roleId: string, member: boolean): Promise<void>;
  /** Deletes a role, its memberships and its grants; returns the blocs it held grants on, or undefined when no such role exists. */
  deleteRole(roleId: string): Promise<string[] | undefined>;
}

/** Accounts outside any unit of work (Store.accounts). */
export interface AccountStore extends AccountReads, AccountWrites {
  /** Every user, by ID. */
  listUsers(): Promise<User[]>;
  /**
   * Counts one sign-in attempt for an email (its SHA-256, hex) in every process's shared
   * count: a window begins at the first attempt and lasts `windowMs`; an attempt after it
   * begins a new one. Rows of windows that have passed are deleted now and then, so the
   * count holds at most the emails tried within the last window.
   */
  countSignInAttempt(emailHash: string, nowMs: number, windowMs: number): Promise<SignInAttempts>;
  /** Forgets an email's attempts (after a sign-in that succeeded). */
  clearSignInAttempts(emailHash: string): Promise<void>;
}

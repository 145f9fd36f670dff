import type {
  Bloc, Field, FieldType, Grant, Permission, RestrictionMode, ScanLimitPeriod, Token, TokenInfo, User, UserRole,
} from "../domain/model.js";
import type { AccountChanges } from "../domain/ports/store.js";

/*
 * Users, tokens, blocs, fields and grants as rows of the canonical columns (tables.ts:
 * flags 0/1, lists as JSON text), and back: the same for every engine.
 */

export interface UserRow { id: number; name: string; role: UserRole; profile: string; email: string | null; disabled_at: string | null }

/** A user as the domain sees it; the password hash is read only where a password is checked (LOGIN_COLUMNS). */
export const USER_COLUMNS = "id, name, role, profile, email, disabled_at";
/** A user and their password hash, for sign-in and password changes. */
export const LOGIN_COLUMNS = `${USER_COLUMNS}, password_hash`;
export interface LoginRow extends UserRow { password_hash: string | null }

/** A token joined with its user. */
export interface TokenRow {
  id: string; user_id: number; name: string | null; hash: string;
  expires_at: string | null; revoked_at: string | null;
  scope_permissions: string | null; scope_blocs: string | null;
  user_name: string; user_role: UserRole; user_profile: string; user_email: string | null; user_disabled_at: string | null;
}

export interface BlocRow {
  id: string; name: string; open_to_all: number; accepting_data: number; restriction: RestrictionMode;
  module_id: number | null; require_job: number; scan_limit: number | null; scan_limit_period: ScanLimitPeriod | null;
}

export interface FieldRow {
  bloc_id: string; slug: string; name: string; apply_profile_filter: number; type: FieldType; options: string | null;
  required: number; unique_values: number; max_length: number | null; pattern: string | null; format: string | null;
  indexed: number;
}

export interface GrantRow { can_read: number; can_add: number; can_update: number; can_delete: number; see_hidden: number }

export const BLOC_COLUMNS = "id, name, open_to_all, accepting_data, restriction, module_id, require_job, scan_limit, scan_limit_period";
export const FIELD_COLUMNS = "bloc_id, slug, name, apply_profile_filter, type, options, required, unique_values, max_length, pattern, format, indexed";
export const GRANT_COLUMNS = "can_read, can_add, can_update, can_delete, see_hidden";
/** A token and its user, over `tokens t JOIN users u`. */
export const TOKEN_COLUMNS = `t.id, t.user_id, t.name, t.hash, t.expires_at, t.revoked_at, t.scope_permissions, t.scope_blocs,
  u.name AS user_name, u.role AS user_role, u.profile AS user_profile, u.email AS user_email, u.disabled_at AS user_disabled_at`;

/** The columns an account change sets, with their values; `param` names the next placeholder. */
export function accountSets(changes: AccountChanges, param: () => string): { sets: string[]; values: (string | null)[] } {
  const sets: string[] = [];
  const values: (string | null)[] = [];
  const set = (column: string, value: string | null | undefined): void => {
    if (value === undefined) return;
    sets.push(`${column} = ${param()}`);
    values.push(value);
  };
  set("name", changes.name);
  set("email", changes.email);
  set("password_hash", changes.passwordHash);
  set("disabled_at", changes.disabledAt);
  return { sets, values };
}

/** Integer IDs inside, strings outside; a string that is no integer names nothing (null matches no row). */
export function internalId(id: string): number | null {
  return /^\d{1,15}$/.test(id) ? Number(id) : null;
}

export function toUser(row: UserRow): User {
  return {
    id: String(row.id), name: row.name, role: row.role, profile: JSON.parse(row.profile) as string[],
    email: row.email, disabled: row.disabled_at !== null,
  };
}

export function toToken(row: TokenRow): { token: Token; hash: string; user: User } {
  return {
    token: {
      id: row.id, userId: String(row.user_id), name: row.name,
      expiresAt: row.expires_at, revokedAt: row.revoked_at,
      scope: {
        permissions: row.scope_permissions === null ? null : JSON.parse(row.scope_permissions) as Permission[],
        blocs: row.scope_blocs === null ? null : JSON.parse(row.scope_blocs) as string[],
      },
    },
    hash: row.hash,
    user: toUser({
      id: row.user_id, name: row.user_name, role: row.user_role, profile: row.user_profile,
      email: row.user_email, disabled_at: row.user_disabled_at,
    }),
  };
}

/** A token as listed: no hash. */
export interface TokenInfoRow {
  id: string; user_id: number; name: string | null; expires_at: string | null; revoked_at: string | null;
  scope_permissions: string | null; scope_blocs: string | null; created_at: string; last_used_at: string | null;
}

export const TOKEN_INFO_COLUMNS = "id, user_id, name, expires_at, revoked_at, scope_permissions, scope_blocs, created_at, last_used_at";

export function toTokenInfo(row: TokenInfoRow): TokenInfo {
  return {
    id: row.id, userId: String(row.user_id), name: row.name,
    expiresAt: row.expires_at, revokedAt: row.revoked_at,
    scope: {
      permissions: row.scope_permissions === null ? null : JSON.parse(row.scope_permissions) as Permission[],
      blocs: row.scope_blocs === null ? null : JSON.parse(row.scope_blocs) as string[],
    },
    createdAt: row.created_at, lastUsedAt: row.last_used_at,
  };
}

export function toField(f: FieldRow): Field {
  return {
    slug: f.slug, name: f.name, applyProfileFilter: f.apply_profile_filter === 1, type: f.type,
    options: f.options === null ? null : JSON.parse(f.options) as string[], required: f.required === 1,
    unique: f.unique_values === 1, maxLength: f.max_length, pattern: f.pattern, format: f.format, indexed: f.indexed === 1,
  };
}

/** A field as the columns after bloc_id and slug take it (name … indexed, FIELD_COLUMNS' order). */
export function fieldParams(f: Field): (string | number | null)[] {
  return [f.name, Number(f.applyProfileFilter), f.type, f.options === null ? null : JSON.stringify(f.options),
    Number(f.required), Number(f.unique), f.maxLength, f.pattern, f.format, Number(f.indexed)];
}

export function toBloc(row: BlocRow, fields: readonly FieldRow[]): Bloc {
  return {
    id: row.id, name: row.name,
    openToAllUsers: row.open_to_all === 1, acceptingData: row.accepting_data === 1, restriction: row.restriction,
    moduleId: row.module_id === null ? null : String(row.module_id), requireJob: row.require_job === 1,
    scanLimit: row.scan_limit, scanLimitPeriod: row.scan_limit_period,
    fields: fields.map(toField),
  };
}

export function toGrant(row: GrantRow): Grant {
  return {
    read: row.can_read === 1, add: row.can_add === 1, update: row.can_update === 1, delete: row.can_delete === 1,
    seeHidden: row.see_hidden === 1,
  };
}

export function grantParams(grant: Grant): number[] {
  return [Number(grant.read), Number(grant.add), Number(grant.update), Number(grant.delete), Number(grant.seeHidden)];
}

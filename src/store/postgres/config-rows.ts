import type {
  Bloc, BlocSettings, Field, FieldType, Grant, Permission, RestrictionMode, ScanLimitPeriod, Token, User, UserRole,
} from "../../domain/model.js";
import type { AccessFacts } from "../store.js";
import { storable, type Db, type Param } from "./driver.js";

/*
 * Users, tokens, blocs and access as rows, and the reads that load them. The columns
 * are SQLite's (flags 0/1, JSON lists as text), so the mapping is the same.
 */

export interface UserRow { id: number; name: string; role: UserRole; profile: string }

interface TokenRow {
  id: string; user_id: number; name: string | null; hash: string;
  expires_at: string | null; revoked_at: string | null;
  scope_permissions: string | null; scope_blocs: string | null;
  user_name: string; user_role: UserRole; user_profile: string;
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

interface GrantRow { can_read: number; can_add: number; can_update: number; see_hidden: number }

export const BLOC_COLUMNS = "id, name, open_to_all, accepting_data, restriction, module_id, require_job, scan_limit, scan_limit_period";
export const FIELD_COLUMNS = "bloc_id, slug, name, apply_profile_filter, type, options, required, unique_values, max_length, pattern, format, indexed";
export const GRANT_COLUMNS = "can_read, can_add, can_update, see_hidden";

/** Integer IDs inside, strings outside; a string that is no integer names nothing (null matches no row). */
export function internalId(id: string): number | null {
  return /^\d{1,15}$/.test(id) ? Number(id) : null;
}

export function toUser(row: UserRow): User {
  return { id: String(row.id), name: row.name, role: row.role, profile: JSON.parse(row.profile) as string[] };
}

export function toField(f: FieldRow): Field {
  return {
    slug: f.slug, name: f.name, applyProfileFilter: f.apply_profile_filter === 1, type: f.type,
    options: f.options === null ? null : JSON.parse(f.options) as string[], required: f.required === 1,
    unique: f.unique_values === 1, maxLength: f.max_length, pattern: f.pattern, format: f.format, indexed: f.indexed === 1,
  };
}

/** A field as the columns after bloc_id and slug take it (name … indexed, FIELD_COLUMNS' order). */
export function fieldParams(f: Field): Param[] {
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

function toGrant(row: GrantRow): Grant {
  return { read: row.can_read === 1, add: row.can_add === 1, update: row.can_update === 1, seeHidden: row.see_hidden === 1 };
}

export function grantParams(grant: Grant): number[] {
  return [Number(grant.read), Number(grant.add), Number(grant.update), Number(grant.seeHidden)];
}

/**
 * Bloc settings as (given, value) parameter pairs in the order of SETTINGS_SQL, so that
 * one statement text updates any subset of them.
 */
export function settingParams(s: Partial<BlocSettings>): Param[] {
  const pair = (given: boolean, value: Param): Param[] => [given, given ? value : null];
  return [
    ...pair(s.openToAllUsers !== undefined, Number(s.openToAllUsers)),
    ...pair(s.acceptingData !== undefined, Number(s.acceptingData)),
    ...pair(s.restriction !== undefined, s.restriction ?? null),
    ...pair(s.moduleId !== undefined, s.moduleId === null || s.moduleId === undefined ? null : internalId(s.moduleId)),
    ...pair(s.requireJob !== undefined, Number(s.requireJob)),
    ...pair(s.scanLimit !== undefined, s.scanLimit ?? null),
    ...pair(s.scanLimitPeriod !== undefined, s.scanLimitPeriod ?? null),
  ];
}

/** SET clauses taking settingParams from placeholder `$first` on. */
export function settingsSql(first: number): string {
  const columns: [string, string][] = [
    ["open_to_all", "integer"], ["accepting_data", "integer"], ["restriction", "text"], ["module_id", "bigint"],
    ["require_job", "integer"], ["scan_limit", "bigint"], ["scan_limit_period", "text"],
  ];
  return columns.map(([column, type], i) => {
    const given = `$${first + 2 * i}::boolean`;
    const value = `$${first + 2 * i + 1}::${type}`;
    return `${column} = CASE WHEN ${given} THEN ${value} ELSE ${column} END`;
  }).join(", ");
}

export async function loadBloc(db: Db, id: string): Promise<Bloc | undefined> {
  if (!storable(id)) return undefined;
  const [row] = await db.run<BlocRow>(`SELECT ${BLOC_COLUMNS} FROM blocs WHERE id = $1::text`, [id]);
  if (!row) return undefined;
  const fields = await db.run<FieldRow>(`SELECT ${FIELD_COLUMNS} FROM fields WHERE bloc_id = $1::text ORDER BY position`, [id]);
  return toBloc(row, fields);
}

export async function loadToken(db: Db, hash: string): Promise<{ token: Token; hash: string; user: User } | undefined> {
  if (!storable(hash)) return undefined;
  const [row] = await db.run<TokenRow>(`
    SELECT t.id, t.user_id, t.name, t.hash, t.expires_at, t.revoked_at, t.scope_permissions, t.scope_blocs,
      u.name AS user_name, u.role AS user_role, u.profile AS user_profile
    FROM tokens t JOIN users u ON u.id = t.user_id WHERE t.hash = $1::text`, [hash]);
  if (!row) return undefined;
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
    user: toUser({ id: row.user_id, name: row.user_name, role: row.user_role, profile: row.user_profile }),
  };
}

export async function loadAccessFacts(db: Db, blocId: string, userId: string): Promise<AccessFacts> {
  if (!storable(blocId)) return { grants: [], restriction: undefined };
  const user = internalId(userId);
  const grants = await db.run<GrantRow>(`
    SELECT ${GRANT_COLUMNS} FROM grants WHERE bloc_id = $1::text AND user_id = $2::bigint
    UNION ALL
    SELECT g.can_read, g.can_add, g.can_update, g.see_hidden FROM role_grants g
      JOIN user_roles ur ON ur.role_id = g.role_id WHERE g.bloc_id = $1::text AND ur.user_id = $2::bigint`, [blocId, user]);
  const [restriction] = await db.run<{ mode: RestrictionMode }>(
    "SELECT mode FROM restrictions WHERE bloc_id = $1::text AND user_id = $2::bigint", [blocId, user]);
  return { grants: grants.map(toGrant), restriction: restriction?.mode };
}

import type { Bloc, BlocSettings, RestrictionMode, Token, User } from "../../domain/model.js";
import {
  BLOC_COLUMNS, FIELD_COLUMNS, GRANT_COLUMNS, TOKEN_COLUMNS, internalId, toBloc, toGrant, toToken,
  type BlocRow, type FieldRow, type GrantRow, type TokenRow,
} from "../config-rows.js";
import type { AccessFacts } from "../../domain/ports/store.js";
import { storable, type Db, type Param } from "./driver.js";

/* The reads that load users, tokens, blocs and access, and bloc settings as parameters (rows: ../config-rows.ts). */

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
  const fields = await db.run<FieldRow>(`SELECT ${FIELD_COLUMNS} FROM fields WHERE bloc_id = $1::text AND retired_at IS NULL ORDER BY position`, [id]);
  return toBloc(row, fields);
}

export async function loadToken(db: Db, hash: string): Promise<{ token: Token; hash: string; user: User } | undefined> {
  if (!storable(hash)) return undefined;
  const [row] = await db.run<TokenRow>(`SELECT ${TOKEN_COLUMNS} FROM tokens t JOIN users u ON u.id = t.user_id WHERE t.hash = $1::text`, [hash]);
  return row && toToken(row);
}

export async function loadAccessFacts(db: Db, blocId: string, userId: string): Promise<AccessFacts> {
  if (!storable(blocId)) return { grants: [], restriction: undefined };
  const user = internalId(userId);
  const grants = await db.run<GrantRow>(`
    SELECT ${GRANT_COLUMNS} FROM grants WHERE bloc_id = $1::text AND user_id = $2::bigint
    UNION ALL
    SELECT g.can_read, g.can_add, g.can_update, g.can_delete, g.see_hidden FROM role_grants g
      JOIN user_roles ur ON ur.role_id = g.role_id WHERE g.bloc_id = $1::text AND ur.user_id = $2::bigint`, [blocId, user]);
  const [restriction] = await db.run<{ mode: RestrictionMode }>(
    "SELECT mode FROM restrictions WHERE bloc_id = $1::text AND user_id = $2::bigint", [blocId, user]);
  return { grants: grants.map(toGrant), restriction: restriction?.mode };
}

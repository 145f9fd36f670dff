import type { Bloc, BlocSettings, Field, Grant, Module, RestrictionMode, Role, Token, User, UserRole } from "../../domain/model.js";
import {
  BLOC_COLUMNS, FIELD_COLUMNS, GRANT_COLUMNS, TOKEN_COLUMNS, USER_COLUMNS, fieldParams, grantParams, internalId, toBloc, toGrant, toToken, toUser,
  type BlocRow, type FieldRow, type GrantRow, type TokenRow, type UserRow,
  accountSets, LOGIN_COLUMNS, type LoginRow,
} from "../config-rows.js";
import type { AccessFacts, AccountChanges, BlocAccessList, ConfigWrites, Login, NewToken } from "../../domain/ports/store.js";
import { BLOC_ROWS } from "../bloc-rows.js";
import type { GenerationCache } from "../generation-cache.js";
import type { Statements } from "./statements.js";
import { ensureValueIndex } from "./value-indexes.js";

/** Bloc settings as columns, for the keys present. */
const SETTING_COLUMNS: { readonly [K in keyof BlocSettings]-?: [string, (v: NonNullable<BlocSettings[K]> | null) => string | number | null] } = {
  openToAllUsers: ["open_to_all", (v) => Number(v)],
  acceptingData: ["accepting_data", (v) => Number(v)],
  restriction: ["restriction", (v) => v],
  moduleId: ["module_id", (v) => (v === null ? null : internalId(v))],
  requireJob: ["require_job", (v) => Number(v)],
  scanLimit: ["scan_limit", (v) => v],
  scanLimitPeriod: ["scan_limit_period", (v) => v],
};

/**
 * Users, tokens, roles, modules, blocs, fields and access in the SQLite engine: plain
 * queries over one connection, with blocs, tokens and access facts read through the
 * generation cache.
 */
export class SqliteConfig implements ConfigWrites {
  constructor(protected readonly sql: Statements, protected readonly cache: GenerationCache) {}

  async createUser(name: string, role: UserRole, createdAt: string): Promise<User> {
    this.cache.changed();
    const row = this.sql.get(
      `INSERT INTO users (name, role, created_at) VALUES (?, ?, ?) RETURNING ${USER_COLUMNS}`,
    ).get(name, role, createdAt) as UserRow;
    return toUser(row);
  }

  async findUser(id: string): Promise<User | undefined> {
    const row = this.sql.get(`SELECT ${USER_COLUMNS} FROM users WHERE id = ?`).get(internalId(id)) as UserRow | undefined;
    return row && toUser(row);
  }

  async findLogin(email: string): Promise<Login | undefined> {
    const row = this.sql.get(`SELECT ${LOGIN_COLUMNS} FROM users WHERE email = ?`).get(email) as LoginRow | undefined;
    return row && { user: toUser(row), passwordHash: row.password_hash };
  }

  async passwordOf(userId: string): Promise<string | null | undefined> {
    const row = this.sql.get("SELECT password_hash FROM users WHERE id = ?").get(internalId(userId)) as
      { password_hash: string | null } | undefined;
    return row?.password_hash;
  }

  async updateAccount(userId: string, changes: AccountChanges): Promise<boolean> {
    this.cache.changed();
    const { sets, values } = accountSets(changes, () => "?");
    if (sets.length === 0) return (await this.findUser(userId)) !== undefined;
    return this.sql.get(`UPDATE users SET ${sets.join(", ")} WHERE id = ?`).run(...values, internalId(userId)).changes > 0;
  }

  async setProfile(userId: string, profile: readonly string[]): Promise<void> {
    this.cache.changed();
    this.sql.get("UPDATE users SET profile = ? WHERE id = ?").run(JSON.stringify(profile), internalId(userId));
  }

  async createRole(name: string, createdAt: string): Promise<Role> {
    this.cache.changed();
    const row = this.sql.get("INSERT INTO roles (name, created_at) VALUES (?, ?) RETURNING id, name")
      .get(name, createdAt) as { id: number; name: string };
    return { id: String(row.id), name: row.name };
  }

  async findRole(id: string): Promise<Role | undefined> {
    const row = this.sql.get("SELECT id, name FROM roles WHERE id = ?").get(internalId(id)) as { id: number; name: string } | undefined;
    return row && { id: String(row.id), name: row.name };
  }

  async listRoles(): Promise<Role[]> {
    const rows = this.sql.get("SELECT id, name FROM roles ORDER BY id").all() as { id: number; name: string }[];
    return rows.map((row) => ({ id: String(row.id), name: row.name }));
  }

  async rolesOf(userId: string): Promise<Role[]> {
    const rows = this.sql.get(
      "SELECT r.id, r.name FROM roles r JOIN user_roles ur ON ur.role_id = r.id WHERE ur.user_id = ? ORDER BY r.id",
    ).all(internalId(userId)) as { id: number; name: string }[];
    return rows.map((row) => ({ id: String(row.id), name: row.name }));
  }

  async setRoleMember(userId: string, roleId: string, member: boolean): Promise<void> {
    this.cache.changed();
    const statement = member
      ? "INSERT INTO user_roles (user_id, role_id) VALUES (?, ?) ON CONFLICT DO NOTHING"
      : "DELETE FROM user_roles WHERE user_id = ? AND role_id = ?";
    this.sql.get(statement).run(internalId(userId), internalId(roleId));
  }

  async createToken(token: NewToken): Promise<void> {
    this.cache.changed();
    this.sql.get(
      `INSERT INTO tokens (id, user_id, name, hash, expires_at, created_at, scope_permissions, scope_blocs)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(token.id, internalId(token.userId), token.name, token.hash, token.expiresAt, token.createdAt,
      token.scope.permissions && JSON.stringify(token.scope.permissions),
      token.scope.blocs && JSON.stringify(token.scope.blocs));
  }

  async findTokenByHash(hash: string): Promise<{ token: Token; hash: string; user: User } | undefined> {
    // Unknown hashes are not kept: guessing tokens must not fill the cache.
    return this.cache.get(`token:${hash}`, async () => this.loadToken(hash), (found) => found !== undefined);
  }

  private loadToken(hash: string): { token: Token; hash: string; user: User } | undefined {
    const row = this.sql.get(`SELECT ${TOKEN_COLUMNS} FROM tokens t JOIN users u ON u.id = t.user_id WHERE t.hash = ?`)
      .get(hash) as TokenRow | undefined;
    return row && toToken(row);
  }


  async revokeToken(id: string, revokedAt: string): Promise<boolean> {
    this.cache.changed();
    return this.sql.get("UPDATE tokens SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?").run(revokedAt, id).changes > 0;
  }

  async createModule(name: string, createdAt: string): Promise<Module> {
    this.cache.changed();
    const row = this.sql.get("INSERT INTO modules (name, created_at) VALUES (?, ?) RETURNING id, name")
      .get(name, createdAt) as { id: number; name: string };
    return { id: String(row.id), name: row.name };
  }

  async findModule(id: string): Promise<Module | undefined> {
    const row = this.sql.get("SELECT id, name FROM modules WHERE id = ?").get(internalId(id)) as { id: number; name: string } | undefined;
    return row && { id: String(row.id), name: row.name };
  }

  async listModules(): Promise<Module[]> {
    const rows = this.sql.get("SELECT id, name FROM modules ORDER BY id").all() as { id: number; name: string }[];
    return rows.map((row) => ({ id: String(row.id), name: row.name }));
  }

  /** Every field gets its slug's value index (value-indexes.ts), whether or not it is marked `indexed`. */
  private indexLookups(field: Field): void {
    ensureValueIndex(this.sql.db, field.slug);
  }

  private insertField(blocId: string, field: Field): void {
    this.sql.get(`INSERT INTO fields (bloc_id, slug, name, apply_profile_filter, type, options, required, unique_values,
        max_length, pattern, format, indexed, position)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, (SELECT COALESCE(MAX(position), 0) + 1 FROM fields WHERE bloc_id = ?))`)
      .run(blocId, field.slug, ...fieldParams(field), blocId);
    this.indexLookups(field);
  }

  async createBloc(bloc: Bloc, createdAt: string): Promise<void> {
    this.cache.changed();
    this.sql.get(`INSERT INTO blocs (id, name, created_at) VALUES (?, ?, ?)`).run(bloc.id, bloc.name, createdAt);
    this.applySettings(bloc.id, bloc);
    for (const field of bloc.fields) this.insertField(bloc.id, field);
  }

  async findBloc(id: string): Promise<Bloc | undefined> {
    // Unknown IDs are not kept: probing IDs must not fill the cache.
    return this.cache.get(`bloc:${id}`, async () => this.loadBloc(id), (bloc) => bloc !== undefined);
  }

  private loadBloc(id: string): Bloc | undefined {
    const row = this.sql.get(`SELECT ${BLOC_COLUMNS} FROM blocs WHERE id = ?`).get(id) as BlocRow | undefined;
    if (!row) return undefined;
    const fields = this.sql.get(`SELECT ${FIELD_COLUMNS} FROM fields WHERE bloc_id = ? AND retired_at IS NULL ORDER BY position`).all(id) as FieldRow[];
    return toBloc(row, fields);
  }

  async listBlocs(): Promise<Bloc[]> {
    const blocs = this.sql.get(`SELECT ${BLOC_COLUMNS} FROM blocs ORDER BY created_at, id`).all() as BlocRow[];
    const fields = this.sql.get(`SELECT ${FIELD_COLUMNS} FROM fields WHERE retired_at IS NULL ORDER BY bloc_id, position`).all() as FieldRow[];
    const byBloc = new Map<string, FieldRow[]>();
    for (const field of fields) byBloc.set(field.bloc_id, [...(byBloc.get(field.bloc_id) ?? []), field]);
    return blocs.map((bloc) => toBloc(bloc, byBloc.get(bloc.id) ?? []));
  }

  async addField(blocId: string, field: Field): Promise<void> {
    this.cache.changed();
    this.insertField(blocId, field);
  }

  private applySettings(blocId: string, settings: Partial<BlocSettings>): void {
    const sets: string[] = [];
    const params: (string | number | null)[] = [];
    for (const [key, [column, toColumn]] of Object.entries(SETTING_COLUMNS) as [keyof BlocSettings, [string, (v: unknown) => string | number | null]][]) {
      if (settings[key] === undefined) continue;
      sets.push(`${column} = ?`);
      params.push(toColumn(settings[key]));
    }
    if (sets.length > 0) this.sql.get(`UPDATE blocs SET ${sets.join(", ")} WHERE id = ?`).run(...params, blocId);
  }

  async updateBlocSettings(blocId: string, settings: Partial<BlocSettings>): Promise<void> {
    this.cache.changed();
    this.applySettings(blocId, settings);
  }

  async updateField(blocId: string, field: Field): Promise<boolean> {
    this.cache.changed();
    const result = this.sql.get(`UPDATE fields SET name = ?, apply_profile_filter = ?, type = ?, options = ?, required = ?,
        unique_values = ?, max_length = ?, pattern = ?, format = ?, indexed = ?
      WHERE bloc_id = ? AND slug = ?`).run(...fieldParams(field), blocId, field.slug);
    if (result.changes > 0) this.indexLookups(field);
    return result.changes > 0;
  }

  async highestNumericBlocId(): Promise<number> {
    const row = this.sql.get(
      "SELECT MAX(CAST(id AS INTEGER)) AS n FROM blocs WHERE id NOT GLOB '*[^0-9]*' AND id <> ''",
    ).get() as { n: number | null };
    return row.n ?? 0;
  }

  /** A user's or a role's grant on a bloc, replacing any earlier one. */
  private upsertGrant(table: "grants" | "role_grants", holder: "user_id" | "role_id", blocId: string, id: string, grant: Grant): void {
    this.sql.get(`
      INSERT INTO ${table} (bloc_id, ${holder}, ${GRANT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (bloc_id, ${holder}) DO UPDATE SET can_read = excluded.can_read, can_add = excluded.can_add,
        can_update = excluded.can_update, can_delete = excluded.can_delete, see_hidden = excluded.see_hidden`)
      .run(blocId, internalId(id), ...grantParams(grant));
  }

  async setGrant(blocId: string, userId: string, grant: Grant): Promise<void> {
    this.cache.changed();
    this.upsertGrant("grants", "user_id", blocId, userId, grant);
  }

  async removeGrant(blocId: string, userId: string): Promise<void> {
    this.cache.changed();
    this.sql.get("DELETE FROM grants WHERE bloc_id = ? AND user_id = ?").run(blocId, internalId(userId));
  }

  async setRoleGrant(blocId: string, roleId: string, grant: Grant): Promise<void> {
    this.cache.changed();
    this.upsertGrant("role_grants", "role_id", blocId, roleId, grant);
  }

  async removeRoleGrant(blocId: string, roleId: string): Promise<void> {
    this.cache.changed();
    this.sql.get("DELETE FROM role_grants WHERE bloc_id = ? AND role_id = ?").run(blocId, internalId(roleId));
  }

  async setRestriction(blocId: string, userId: string, mode: RestrictionMode): Promise<void> {
    this.cache.changed();
    this.sql.get(`INSERT INTO restrictions (bloc_id, user_id, mode) VALUES (?, ?, ?)
      ON CONFLICT (bloc_id, user_id) DO UPDATE SET mode = excluded.mode`).run(blocId, internalId(userId), mode);
  }

  async removeRestriction(blocId: string, userId: string): Promise<void> {
    this.cache.changed();
    this.sql.get("DELETE FROM restrictions WHERE bloc_id = ? AND user_id = ?").run(blocId, internalId(userId));
  }

  async retireField(blocId: string, slug: string, retiredAt: string): Promise<boolean> {
    this.cache.changed();
    const retired = this.sql.get("UPDATE fields SET retired_at = ? WHERE bloc_id = ? AND slug = ? AND retired_at IS NULL")
      .run(retiredAt, blocId, slug).changes > 0;
    if (retired) {
      this.sql.get("DELETE FROM value_counts WHERE slug = ? AND scope_id IN (SELECT id FROM counter_scopes WHERE bloc_id = ?)")
        .run(slug, blocId);
    }
    return retired;
  }

  async retiredFieldSlugs(blocId: string): Promise<string[]> {
    return this.sql.get("SELECT slug FROM fields WHERE bloc_id = ? AND retired_at IS NOT NULL ORDER BY position")
      .all(blocId).map((row) => (row as { slug: string }).slug);
  }

  async deleteBloc(blocId: string): Promise<string[]> {
    this.cache.changed();
    const contents = this.sql.get("SELECT DISTINCT sha256 FROM files WHERE bloc_id = ? ORDER BY sha256")
      .all(blocId).map((row) => (row as { sha256: string }).sha256);
    for (const { table, where } of BLOC_ROWS) {
      this.sql.get(`DELETE FROM ${table} WHERE ${where.replaceAll(":bloc", "@bloc")}`).run({ bloc: blocId });
    }
    return contents;
  }

  async deleteRole(roleId: string): Promise<string[] | undefined> {
    this.cache.changed();
    const id = internalId(roleId);
    if (this.sql.get("SELECT 1 FROM roles WHERE id = ?").get(id) === undefined) return undefined;
    const blocs = this.sql.get("SELECT bloc_id FROM role_grants WHERE role_id = ? ORDER BY bloc_id")
      .all(id).map((row) => (row as { bloc_id: string }).bloc_id);
    this.sql.get("DELETE FROM role_grants WHERE role_id = ?").run(id);
    this.sql.get("DELETE FROM user_roles WHERE role_id = ?").run(id);
    this.sql.get("DELETE FROM roles WHERE id = ?").run(id);
    return blocs;
  }

  async deleteModule(moduleId: string): Promise<boolean> {
    this.cache.changed();
    return this.sql.get("DELETE FROM modules WHERE id = ?").run(internalId(moduleId)).changes > 0;
  }

  async blocAccessList(blocId: string): Promise<BlocAccessList> {
    const grants = this.sql.get(`SELECT g.user_id AS id, u.name, ${GRANT_COLUMNS} FROM grants g JOIN users u ON u.id = g.user_id
      WHERE g.bloc_id = ? ORDER BY g.user_id`).all(blocId) as (GrantRow & { id: number; name: string })[];
    const roleGrants = this.sql.get(`SELECT g.role_id AS id, r.name, ${GRANT_COLUMNS} FROM role_grants g JOIN roles r ON r.id = g.role_id
      WHERE g.bloc_id = ? ORDER BY g.role_id`).all(blocId) as (GrantRow & { id: number; name: string })[];
    const restrictions = this.sql.get(`SELECT r.user_id AS id, u.name, r.mode FROM restrictions r JOIN users u ON u.id = r.user_id
      WHERE r.bloc_id = ? ORDER BY r.user_id`).all(blocId) as { id: number; name: string; mode: RestrictionMode }[];
    return {
      grants: grants.map((row) => ({ userId: String(row.id), userName: row.name, grant: toGrant(row) })),
      roleGrants: roleGrants.map((row) => ({ roleId: String(row.id), roleName: row.name, grant: toGrant(row) })),
      restrictions: restrictions.map((row) => ({ userId: String(row.id), userName: row.name, mode: row.mode })),
    };
  }

  async accessFacts(blocId: string, userId: string): Promise<AccessFacts> {
    return this.cache.get(`facts:${blocId}\u0000${userId}`, async () => this.loadAccessFacts(blocId, userId));
  }

  private loadAccessFacts(blocId: string, userId: string): AccessFacts {
    const user = internalId(userId);
    const grants = this.sql.get(`
      SELECT ${GRANT_COLUMNS} FROM grants WHERE bloc_id = ? AND user_id = ?
      UNION ALL
      SELECT g.can_read, g.can_add, g.can_update, g.can_delete, g.see_hidden FROM role_grants g
        JOIN user_roles ur ON ur.role_id = g.role_id WHERE g.bloc_id = ? AND ur.user_id = ?`)
      .all(blocId, user, blocId, user) as GrantRow[];
    const restriction = this.sql.get("SELECT mode FROM restrictions WHERE bloc_id = ? AND user_id = ?")
      .get(blocId, user) as { mode: RestrictionMode } | undefined;
    return { grants: grants.map(toGrant), restriction: restriction?.mode };
  }
}

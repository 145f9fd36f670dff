import { ConflictError } from "../../domain/errors.js";
import type { Bloc, BlocSettings, Field, Grant, Module, RestrictionMode, Role, User, UserRole } from "../../domain/model.js";
import type { AccountChanges, ConfigWrites, NewToken } from "../../domain/ports/store.js";
import { BLOC_ROWS } from "../bloc-rows.js";
import {
  FIELD_COLUMNS, GRANT_COLUMNS, USER_COLUMNS, accountSets, fieldParams, grantParams, internalId, toUser, type UserRow,
} from "../config-rows.js";
import { settingParams, settingsSql } from "./config-rows.js";
import { storable, type Db } from "./driver.js";
import { ensureFieldIndex } from "./field-indexes.js";

/**
 * Changes to users, tokens, blocs and access, each a few statements in the caller's
 * transaction. Inserts that may meet a taken key say ON CONFLICT DO NOTHING and report
 * the conflict themselves: a failed statement would abort the whole transaction in
 * PostgreSQL, where the caller may still want to go on.
 */
export class PgConfigWrites implements ConfigWrites {
  constructor(private readonly db: Db) {}

  async createUser(name: string, role: UserRole, createdAt: string): Promise<User> {
    const [row] = await this.db.run<UserRow>(
      `INSERT INTO users (name, role, created_at) VALUES ($1::text, $2::text, $3::text) RETURNING ${USER_COLUMNS}`,
      [name, role, createdAt]);
    return toUser(row!);
  }

  async updateAccount(userId: string, changes: AccountChanges): Promise<boolean> {
    let n = 0;
    const { sets, values } = accountSets(changes, () => `$${++n}::text`);
    const rows = sets.length === 0
      ? await this.db.run("SELECT id FROM users WHERE id = $1::bigint", [internalId(userId)])
      : await this.db.run(`UPDATE users SET ${sets.join(", ")} WHERE id = $${n + 1}::bigint RETURNING id`, [...values, internalId(userId)]);
    return rows.length > 0;
  }

  async setProfile(userId: string, profile: readonly string[]): Promise<void> {
    await this.db.run("UPDATE users SET profile = $1::text WHERE id = $2::bigint", [JSON.stringify(profile), internalId(userId)]);
  }

  async createRole(name: string, createdAt: string): Promise<Role> {
    const [row] = await this.db.run<{ id: number; name: string }>(
      "INSERT INTO roles (name, created_at) VALUES ($1::text, $2::text) ON CONFLICT DO NOTHING RETURNING id, name",
      [name, createdAt]);
    if (!row) throw new ConflictError("already exists");
    return { id: String(row.id), name: row.name };
  }

  async setRoleMember(userId: string, roleId: string, member: boolean): Promise<void> {
    await this.db.run(member
      ? "INSERT INTO user_roles (user_id, role_id) VALUES ($1::bigint, $2::bigint) ON CONFLICT DO NOTHING"
      : "DELETE FROM user_roles WHERE user_id = $1::bigint AND role_id = $2::bigint",
    [internalId(userId), internalId(roleId)]);
  }

  async createToken(token: NewToken): Promise<void> {
    const rows = await this.db.run(`
      INSERT INTO tokens (id, user_id, name, hash, expires_at, created_at, scope_permissions, scope_blocs)
      VALUES ($1::text, $2::bigint, $3::text, $4::text, $5::text, $6::text, $7::text, $8::text)
      ON CONFLICT DO NOTHING RETURNING id`,
    [token.id, internalId(token.userId), token.name, token.hash, token.expiresAt, token.createdAt,
      token.scope.permissions && JSON.stringify(token.scope.permissions),
      token.scope.blocs && JSON.stringify(token.scope.blocs)]);
    if (rows.length === 0) throw new ConflictError("already exists");
  }

  async revokeToken(id: string, revokedAt: string): Promise<boolean> {
    if (!storable(id)) return false;
    const rows = await this.db.run(
      "UPDATE tokens SET revoked_at = COALESCE(revoked_at, $1::text) WHERE id = $2::text RETURNING id", [revokedAt, id]);
    return rows.length > 0;
  }

  async createModule(name: string, createdAt: string): Promise<Module> {
    const [row] = await this.db.run<{ id: number; name: string }>(
      "INSERT INTO modules (name, created_at) VALUES ($1::text, $2::text) RETURNING id, name", [name, createdAt]);
    return { id: String(row!.id), name: row!.name };
  }

  async createBloc(bloc: Bloc, createdAt: string): Promise<void> {
    const rows = await this.db.run(
      "INSERT INTO blocs (id, name, created_at) VALUES ($1::text, $2::text, $3::text) ON CONFLICT DO NOTHING RETURNING id",
      [bloc.id, bloc.name, createdAt]);
    if (rows.length === 0) throw new ConflictError("already exists");
    await this.updateBlocSettings(bloc.id, bloc);
    for (const field of bloc.fields) await this.insertField(bloc.id, field);
  }

  async addField(blocId: string, field: Field): Promise<void> {
    await this.insertField(blocId, field);
  }

  private async insertField(blocId: string, field: Field): Promise<void> {
    const rows = await this.db.run(`
      INSERT INTO fields (${FIELD_COLUMNS}, position)
      VALUES ($1::text, $2::text, $3::text, $4::integer, $5::text, $6::text, $7::integer, $8::integer, $9::bigint,
        $10::text, $11::text, $12::integer,
        (SELECT COALESCE(MAX(position), 0) + 1 FROM fields WHERE bloc_id = $1::text))
      ON CONFLICT DO NOTHING RETURNING slug`,
    [blocId, field.slug, ...fieldParams(field)]);
    if (rows.length === 0) throw new ConflictError("already exists");
    await ensureFieldIndex(this.db, blocId, field);
  }

  async updateBlocSettings(blocId: string, settings: Partial<BlocSettings>): Promise<void> {
    await this.db.run(`UPDATE blocs SET ${settingsSql(2)} WHERE id = $1::text`, [blocId, ...settingParams(settings)]);
  }

  async updateField(blocId: string, field: Field): Promise<boolean> {
    const rows = await this.db.run(`
      UPDATE fields SET name = $3::text, apply_profile_filter = $4::integer, type = $5::text, options = $6::text,
        required = $7::integer, unique_values = $8::integer, max_length = $9::bigint, pattern = $10::text,
        format = $11::text, indexed = $12::integer
      WHERE bloc_id = $1::text AND slug = $2::text RETURNING slug`,
    [blocId, field.slug, ...fieldParams(field)]);
    if (rows.length === 0) return false;
    await ensureFieldIndex(this.db, blocId, field);
    return true;
  }

  /** A user's or a role's grant on a bloc, replacing any earlier one. */
  private async upsertGrant(table: "grants" | "role_grants", holder: "user_id" | "role_id", blocId: string, id: string, grant: Grant): Promise<void> {
    await this.db.run(`
      INSERT INTO ${table} (bloc_id, ${holder}, ${GRANT_COLUMNS})
      VALUES ($1::text, $2::bigint, $3::integer, $4::integer, $5::integer, $6::integer, $7::integer)
      ON CONFLICT (bloc_id, ${holder}) DO UPDATE SET can_read = excluded.can_read, can_add = excluded.can_add,
        can_update = excluded.can_update, can_delete = excluded.can_delete, see_hidden = excluded.see_hidden`,
    [blocId, internalId(id), ...grantParams(grant)]);
  }

  async setGrant(blocId: string, userId: string, grant: Grant): Promise<void> {
    await this.upsertGrant("grants", "user_id", blocId, userId, grant);
  }

  async removeGrant(blocId: string, userId: string): Promise<void> {
    await this.db.run("DELETE FROM grants WHERE bloc_id = $1::text AND user_id = $2::bigint", [blocId, internalId(userId)]);
  }

  async setRoleGrant(blocId: string, roleId: string, grant: Grant): Promise<void> {
    await this.upsertGrant("role_grants", "role_id", blocId, roleId, grant);
  }

  async removeRoleGrant(blocId: string, roleId: string): Promise<void> {
    await this.db.run("DELETE FROM role_grants WHERE bloc_id = $1::text AND role_id = $2::bigint", [blocId, internalId(roleId)]);
  }

  async setRestriction(blocId: string, userId: string, mode: RestrictionMode): Promise<void> {
    await this.db.run(`INSERT INTO restrictions (bloc_id, user_id, mode) VALUES ($1::text, $2::bigint, $3::text)
      ON CONFLICT (bloc_id, user_id) DO UPDATE SET mode = excluded.mode`, [blocId, internalId(userId), mode]);
  }

  async removeRestriction(blocId: string, userId: string): Promise<void> {
    await this.db.run("DELETE FROM restrictions WHERE bloc_id = $1::text AND user_id = $2::bigint", [blocId, internalId(userId)]);
  }

  async retireField(blocId: string, slug: string, retiredAt: string): Promise<boolean> {
    const rows = await this.db.run(`UPDATE fields SET retired_at = $3::text
      WHERE bloc_id = $1::text AND slug = $2::text AND retired_at IS NULL RETURNING slug`, [blocId, slug, retiredAt]);
    if (rows.length === 0) return false;
    await this.db.run(`DELETE FROM value_counts WHERE slug = $2::text
      AND scope_id IN (SELECT id FROM counter_scopes WHERE bloc_id = $1::text)`, [blocId, slug]);
    return true;
  }

  async deleteBloc(blocId: string): Promise<string[]> {
    const contents = await this.db.run<{ sha256: string }>(
      "SELECT DISTINCT sha256 FROM files WHERE bloc_id = $1::text ORDER BY sha256", [blocId]);
    for (const { table, where } of BLOC_ROWS) {
      await this.db.run(`DELETE FROM ${table} WHERE ${where.replaceAll(":bloc", "$1::text")}`, [blocId]);
    }
    return contents.map((row) => row.sha256);
  }

  async deleteRole(roleId: string): Promise<string[] | undefined> {
    const id = internalId(roleId);
    const [role] = await this.db.run("SELECT id FROM roles WHERE id = $1::bigint FOR UPDATE", [id]);
    if (!role) return undefined;
    const blocs = await this.db.run<{ bloc_id: string }>(
      "DELETE FROM role_grants WHERE role_id = $1::bigint RETURNING bloc_id", [id]);
    await this.db.run("DELETE FROM user_roles WHERE role_id = $1::bigint", [id]);
    await this.db.run("DELETE FROM roles WHERE id = $1::bigint", [id]);
    return blocs.map((row) => row.bloc_id).sort();
  }

  async deleteModule(moduleId: string): Promise<boolean> {
    const rows = await this.db.run("DELETE FROM modules WHERE id = $1::bigint RETURNING id", [internalId(moduleId)]);
    return rows.length > 0;
  }
}

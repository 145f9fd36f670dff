import type { Grant, RestrictionMode } from "../../domain/model.js";
import { GRANT_COLUMNS, grantParams, internalId, toGrant, type GrantRow } from "../config-rows.js";
import type { AccessFacts, AccessStore, BlocAccessList } from "../../domain/ports/store.js";
import type { GenerationCache } from "../generation-cache.js";
import type { Statements } from "./statements.js";

/** Grants and restrictions in the SQLite engine, access facts read through the generation cache. */
export class SqliteAccess implements AccessStore {
  constructor(private readonly sql: Statements, private readonly cache: GenerationCache) {}

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

  async ownRestricted(blocId: string): Promise<string[]> {
    return (this.sql.get("SELECT user_id FROM restrictions WHERE bloc_id = ? AND mode = 'own' ORDER BY user_id").pluck().all(blocId) as number[])
      .map(String);
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

import type { Grant, RestrictionMode } from "../../domain/model.js";
import type { AccessFacts, AccessStore, BlocAccessList } from "../../domain/ports/store.js";
import { GRANT_COLUMNS, grantParams, internalId, toGrant, type GrantRow } from "../config-rows.js";
import type { PgConfigCache } from "./config-cache.js";
import { loadAccessFacts } from "./config-rows.js";
import { storable, type Db } from "./driver.js";

/**
 * Grants and restrictions in the PostgreSQL engine, access facts read through the
 * generation cache. Each write calls `changing` before its first statement (the
 * transaction then reads config uncached, and other readers look at the generation
 * afresh). Inserts that may meet a taken key say ON CONFLICT DO NOTHING and report the
 * conflict themselves: a failed statement would abort the whole transaction in
 * PostgreSQL, where the caller may still want to go on.
 */
export class PgAccess implements AccessStore {
  constructor(private readonly db: Db, private readonly config: PgConfigCache, private readonly changing: () => void) {}

  accessFacts(blocId: string, userId: string): Promise<AccessFacts> {
    return this.config.cached(`facts:${blocId}\u0000${userId}`, (db) => loadAccessFacts(db, blocId, userId));
  }

  async ownRestricted(blocId: string): Promise<string[]> {
    if (!storable(blocId)) return [];
    const rows = await this.db.run<{ user_id: number }>(
      "SELECT user_id FROM restrictions WHERE bloc_id = $1::text AND mode = 'own' ORDER BY user_id", [blocId]);
    return rows.map((row) => String(row.user_id));
  }

  async blocAccessList(blocId: string): Promise<BlocAccessList> {
    if (!storable(blocId)) return { grants: [], roleGrants: [], restrictions: [] };
    const grants = await this.db.run<GrantRow & { id: number; name: string }>(`SELECT g.user_id AS id, u.name, ${GRANT_COLUMNS}
      FROM grants g JOIN users u ON u.id = g.user_id WHERE g.bloc_id = $1::text ORDER BY g.user_id`, [blocId]);
    const roleGrants = await this.db.run<GrantRow & { id: number; name: string }>(`SELECT g.role_id AS id, r.name, ${GRANT_COLUMNS}
      FROM role_grants g JOIN roles r ON r.id = g.role_id WHERE g.bloc_id = $1::text ORDER BY g.role_id`, [blocId]);
    const restrictions = await this.db.run<{ id: number; name: string; mode: RestrictionMode }>(`SELECT r.user_id AS id, u.name, r.mode
      FROM restrictions r JOIN users u ON u.id = r.user_id WHERE r.bloc_id = $1::text ORDER BY r.user_id`, [blocId]);
    return {
      grants: grants.map((row) => ({ userId: String(row.id), userName: row.name, grant: toGrant(row) })),
      roleGrants: roleGrants.map((row) => ({ roleId: String(row.id), roleName: row.name, grant: toGrant(row) })),
      restrictions: restrictions.map((row) => ({ userId: String(row.id), userName: row.name, mode: row.mode })),
    };
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
    this.changing();
    await this.upsertGrant("grants", "user_id", blocId, userId, grant);
  }

  async removeGrant(blocId: string, userId: string): Promise<void> {
    this.changing();
    await this.db.run("DELETE FROM grants WHERE bloc_id = $1::text AND user_id = $2::bigint", [blocId, internalId(userId)]);
  }

  async setRoleGrant(blocId: string, roleId: string, grant: Grant): Promise<void> {
    this.changing();
    await this.upsertGrant("role_grants", "role_id", blocId, roleId, grant);
  }

  async removeRoleGrant(blocId: string, roleId: string): Promise<void> {
    this.changing();
    await this.db.run("DELETE FROM role_grants WHERE bloc_id = $1::text AND role_id = $2::bigint", [blocId, internalId(roleId)]);
  }

  async setRestriction(blocId: string, userId: string, mode: RestrictionMode): Promise<void> {
    this.changing();
    await this.db.run(`INSERT INTO restrictions (bloc_id, user_id, mode) VALUES ($1::text, $2::bigint, $3::text)
      ON CONFLICT (bloc_id, user_id) DO UPDATE SET mode = excluded.mode`, [blocId, internalId(userId), mode]);
  }

  async removeRestriction(blocId: string, userId: string): Promise<void> {
    this.changing();
    await this.db.run("DELETE FROM restrictions WHERE bloc_id = $1::text AND user_id = $2::bigint", [blocId, internalId(userId)]);
  }
}

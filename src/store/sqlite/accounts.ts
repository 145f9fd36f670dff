import type { Role, User, UserRole } from "../../domain/model.js";
import { USER_COLUMNS, internalId, toUser, type UserRow, accountSets, LOGIN_COLUMNS, type LoginRow } from "../config-rows.js";
import type { AccountChanges, AccountReads, AccountWrites, Login } from "../../domain/ports/store.js";
import type { GenerationCache } from "../generation-cache.js";
import type { Statements } from "./statements.js";

/** Users, their roles and their sign-in in the SQLite engine: plain queries over one connection. */
export class SqliteAccounts implements AccountReads, AccountWrites {
  constructor(private readonly sql: Statements, private readonly cache: GenerationCache) {}

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

  /** Every user, by ID. */
  async listUsers(): Promise<User[]> {
    return (this.sql.get(`SELECT ${USER_COLUMNS} FROM users ORDER BY id`).all() as UserRow[]).map(toUser);
  }
}

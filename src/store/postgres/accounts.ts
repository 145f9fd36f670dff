import { ConflictError } from "../../domain/errors.js";
import type { Role, User, UserRole } from "../../domain/model.js";
import type { AccountChanges, AccountReads, AccountWrites, Login } from "../../domain/ports/store.js";
import { LOGIN_COLUMNS, USER_COLUMNS, accountSets, internalId, toUser, type LoginRow, type UserRow } from "../config-rows.js";
import { type Db } from "./driver.js";

/**
 * Users, their roles and their sign-in in the PostgreSQL engine. Each write calls
 * `changing` before its first statement (the transaction then reads config uncached, and
 * other readers look at the generation afresh). Inserts that may meet a taken key say ON
 * CONFLICT DO NOTHING and report the conflict themselves: a failed statement would abort
 * the whole transaction in PostgreSQL, where the caller may still want to go on.
 */
export class PgAccounts implements AccountReads, AccountWrites {
  constructor(private readonly db: Db, private readonly changing: () => void) {}

  async findUser(id: string): Promise<User | undefined> {
    const [row] = await this.db.run<UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE id = $1::bigint`, [internalId(id)]);
    return row && toUser(row);
  }

  async findLogin(email: string): Promise<Login | undefined> {
    const [row] = await this.db.run<LoginRow>(`SELECT ${LOGIN_COLUMNS} FROM users WHERE email = $1::text`, [email]);
    return row && { user: toUser(row), passwordHash: row.password_hash };
  }

  async passwordOf(userId: string): Promise<string | null | undefined> {
    const [row] = await this.db.run<{ password_hash: string | null }>(
      "SELECT password_hash FROM users WHERE id = $1::bigint", [internalId(userId)]);
    return row?.password_hash;
  }

  async findRole(id: string): Promise<Role | undefined> {
    const [row] = await this.db.run<{ id: number; name: string }>("SELECT id, name FROM roles WHERE id = $1::bigint", [internalId(id)]);
    return row && { id: String(row.id), name: row.name };
  }

  async listRoles(): Promise<Role[]> {
    const rows = await this.db.run<{ id: number; name: string }>("SELECT id, name FROM roles ORDER BY id");
    return rows.map((row) => ({ id: String(row.id), name: row.name }));
  }

  async rolesOf(userId: string): Promise<Role[]> {
    const rows = await this.db.run<{ id: number; name: string }>(
      "SELECT r.id, r.name FROM roles r JOIN user_roles ur ON ur.role_id = r.id WHERE ur.user_id = $1::bigint ORDER BY r.id",
      [internalId(userId)]);
    return rows.map((row) => ({ id: String(row.id), name: row.name }));
  }

  async createUser(name: string, role: UserRole, createdAt: string): Promise<User> {
    this.changing();
    const [row] = await this.db.run<UserRow>(
      `INSERT INTO users (name, role, created_at) VALUES ($1::text, $2::text, $3::text) RETURNING ${USER_COLUMNS}`,
      [name, role, createdAt]);
    return toUser(row!);
  }

  async updateAccount(userId: string, changes: AccountChanges): Promise<boolean> {
    this.changing();
    let n = 0;
    const { sets, values } = accountSets(changes, () => `$${++n}::text`);
    const rows = sets.length === 0
      ? await this.db.run("SELECT id FROM users WHERE id = $1::bigint", [internalId(userId)])
      : await this.db.run(`UPDATE users SET ${sets.join(", ")} WHERE id = $${n + 1}::bigint RETURNING id`, [...values, internalId(userId)]);
    return rows.length > 0;
  }

  async setProfile(userId: string, profile: readonly string[]): Promise<void> {
    this.changing();
    await this.db.run("UPDATE users SET profile = $1::text WHERE id = $2::bigint", [JSON.stringify(profile), internalId(userId)]);
  }

  async createRole(name: string, createdAt: string): Promise<Role> {
    this.changing();
    const [row] = await this.db.run<{ id: number; name: string }>(
      "INSERT INTO roles (name, created_at) VALUES ($1::text, $2::text) ON CONFLICT DO NOTHING RETURNING id, name",
      [name, createdAt]);
    if (!row) throw new ConflictError("already exists");
    return { id: String(row.id), name: row.name };
  }

  async setRoleMember(userId: string, roleId: string, member: boolean): Promise<void> {
    this.changing();
    await this.db.run(member
      ? "INSERT INTO user_roles (user_id, role_id) VALUES ($1::bigint, $2::bigint) ON CONFLICT DO NOTHING"
      : "DELETE FROM user_roles WHERE user_id = $1::bigint AND role_id = $2::bigint",
    [internalId(userId), internalId(roleId)]);
  }

  async deleteRole(roleId: string): Promise<string[] | undefined> {
    this.changing();
    const id = internalId(roleId);
    const [role] = await this.db.run("SELECT id FROM roles WHERE id = $1::bigint FOR UPDATE", [id]);
    if (!role) return undefined;
    const blocs = await this.db.run<{ bloc_id: string }>(
      "DELETE FROM role_grants WHERE role_id = $1::bigint RETURNING bloc_id", [id]);
    await this.db.run("DELETE FROM user_roles WHERE role_id = $1::bigint", [id]);
    await this.db.run("DELETE FROM roles WHERE id = $1::bigint", [id]);
    return blocs.map((row) => row.bloc_id).sort();
  }

  /** Every user, by ID. */
  async listUsers(): Promise<User[]> {
    return (await this.db.run<UserRow>(`SELECT ${USER_COLUMNS} FROM users ORDER BY id`)).map(toUser);
  }
}

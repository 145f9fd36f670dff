import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { ConflictError } from "../domain/errors.js";
import {
  RECORD_ID_KEY,
  type Bloc, type BlocSettings, type Field, type Grant, type MatchCondition, type Order, type Permission,
  type RecordCursor, type RecordFilter, type RestrictionMode, type Role, type StoredRecord, type Token,
  type User, type UserRole,
} from "../domain/model.js";
import type { AccessFacts, NewRecord, NewToken, Page, Store, ValueCounts } from "./store.js";
import { migrate } from "./sqlite-schema.js";

type Param = string | number | null;

interface RecordRow {
  id: number;
  created_at: string;
  user_id: string;
  submitted_status: number;
  job_id: string | null;
  data: string;
}

interface UserRow { id: number; name: string; role: UserRole; profile: string }

interface TokenRow {
  id: string; user_id: number; name: string | null; hash: string;
  expires_at: string | null; revoked_at: string | null;
  scope_permissions: string | null; scope_blocs: string | null;
  user_name: string; user_role: UserRole; user_profile: string;
}

interface BlocRow { id: string; name: string; open_to_all: number; accepting_data: number; restriction: RestrictionMode }
interface FieldRow { bloc_id: string; slug: string; name: string; apply_profile_filter: number }
interface GrantRow { can_read: number; can_add: number; can_update: number; see_hidden: number }

const BLOC_COLUMNS = "id, name, open_to_all, accepting_data, restriction";
const FIELD_COLUMNS = "bloc_id, slug, name, apply_profile_filter";
const GRANT_COLUMNS = "can_read, can_add, can_update, see_hidden";

function toBloc(row: BlocRow, fields: readonly FieldRow[]): Bloc {
  return {
    id: row.id, name: row.name,
    openToAllUsers: row.open_to_all === 1, acceptingData: row.accepting_data === 1, restriction: row.restriction,
    fields: fields.map((f) => ({ slug: f.slug, name: f.name, applyProfileFilter: f.apply_profile_filter === 1 })),
  };
}

function toGrant(row: GrantRow): Grant {
  return { read: row.can_read === 1, add: row.can_add === 1, update: row.can_update === 1, seeHidden: row.see_hidden === 1 };
}

function grantParams(grant: Grant): number[] {
  return [Number(grant.read), Number(grant.add), Number(grant.update), Number(grant.seeHidden)];
}

/** IDs of users and roles are integers inside, strings outside; anything else names nothing. */
function internalId(id: string): number | undefined {
  return /^\d{1,15}$/.test(id) ? Number(id) : undefined;
}

const RECORD_COLUMNS = "r.id, r.created_at, r.user_id, r.submitted_status, r.job_id, r.data";

function toRecord(row: RecordRow): StoredRecord {
  return {
    id: row.id,
    createdAt: row.created_at,
    userId: row.user_id,
    submittedStatus: row.submitted_status,
    jobId: row.job_id,
    values: JSON.parse(row.data) as Record<string, string>,
  };
}

function toUser(row: UserRow): User {
  return { id: String(row.id), name: row.name, role: row.role, profile: JSON.parse(row.profile) as string[] };
}

function isUniqueViolation(error: unknown): boolean {
  return error instanceof Error && "code" in error &&
    (error.code === "SQLITE_CONSTRAINT_PRIMARYKEY" || error.code === "SQLITE_CONSTRAINT_UNIQUE");
}

/** `key IN (values)` over `records AS r`; an empty list matches everything or nothing, as asked. */
function conditionSql(condition: MatchCondition, empty: "all" | "none", parts: string[], params: Param[]): void {
  if (condition.values.length === 0) {
    if (empty === "none") parts.push("0 = 1");
    return;
  }
  const marks = condition.values.map(() => "?").join(", ");
  if (condition.key === RECORD_ID_KEY) {
    parts.push(`CAST(r.id AS TEXT) IN (${marks})`);
  } else {
    // A field never set reads "", so it must match a search for "".
    parts.push(`COALESCE(json_extract(r.data, ?), '') IN (${marks})`);
    params.push(`$."${condition.key}"`);
  }
  params.push(...condition.values);
}

/** The SQL condition and its parameters for a filter, visibility included, over `records AS r`. */
function whereClause(filter: RecordFilter): { sql: string; params: Param[] } {
  const parts = ["r.bloc_id = ?"];
  const params: Param[] = [filter.blocId];
  const visibility = filter.visibility;
  if (visibility?.none) parts.push("0 = 1");
  if (visibility?.ownerId !== undefined) { parts.push("r.user_id = ?"); params.push(visibility.ownerId); }
  for (const condition of visibility?.match ?? []) conditionSql(condition, "none", parts, params);
  if (filter.from !== undefined) { parts.push("r.created_at >= ?"); params.push(filter.from); }
  if (filter.to !== undefined) { parts.push("r.created_at <= ?"); params.push(filter.to); }
  for (const condition of filter.match ?? []) conditionSql(condition, "all", parts, params);
  return { sql: parts.join(" AND "), params };
}

function orderBy(order: Order): string {
  return order === "newest" ? "r.created_at DESC, r.id DESC" : "r.created_at ASC, r.id ASC";
}

/** The embedded engine: one SQLite file in WAL mode, shared safely by several processes. */
export class SqliteStore implements Store {
  private readonly db: Database.Database;
  // Filters produce a handful of distinct SQL texts; preparing each once keeps reads cheap.
  private readonly statements = new Map<string, Database.Statement>();

  constructor(file: string) {
    if (file !== ":memory:") fs.mkdirSync(path.dirname(file), { recursive: true });
    this.db = new Database(file);
    this.db.pragma("journal_mode = WAL");
    // FULL: an answered add-data must survive a power cut, not only a crash.
    this.db.pragma("synchronous = FULL");
    this.db.pragma("busy_timeout = 5000");
    this.db.pragma("foreign_keys = ON");
    migrate(this.db);
  }

  private statement(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  private run<T>(write: () => T): T {
    try {
      return write();
    } catch (error) {
      if (isUniqueViolation(error)) throw new ConflictError("already exists");
      throw error;
    }
  }

  async createUser(name: string, role: UserRole, createdAt: string): Promise<User> {
    const row = this.statement(
      "INSERT INTO users (name, role, created_at) VALUES (?, ?, ?) RETURNING id, name, role, profile",
    ).get(name, role, createdAt) as UserRow;
    return toUser(row);
  }

  async findUser(id: string): Promise<User | undefined> {
    const row = this.statement("SELECT id, name, role, profile FROM users WHERE id = ?").get(internalId(id) ?? null) as UserRow | undefined;
    return row && toUser(row);
  }

  async setProfile(userId: string, profile: readonly string[]): Promise<void> {
    this.statement("UPDATE users SET profile = ? WHERE id = ?").run(JSON.stringify(profile), internalId(userId) ?? null);
  }

  async createRole(name: string, createdAt: string): Promise<Role> {
    const row = this.run(() => this.statement("INSERT INTO roles (name, created_at) VALUES (?, ?) RETURNING id, name")
      .get(name, createdAt) as { id: number; name: string });
    return { id: String(row.id), name: row.name };
  }

  async findRole(id: string): Promise<Role | undefined> {
    const row = this.statement("SELECT id, name FROM roles WHERE id = ?").get(internalId(id) ?? null) as { id: number; name: string } | undefined;
    return row && { id: String(row.id), name: row.name };
  }

  async listRoles(): Promise<Role[]> {
    const rows = this.statement("SELECT id, name FROM roles ORDER BY id").all() as { id: number; name: string }[];
    return rows.map((row) => ({ id: String(row.id), name: row.name }));
  }

  async rolesOf(userId: string): Promise<Role[]> {
    const rows = this.statement(
      "SELECT r.id, r.name FROM roles r JOIN user_roles ur ON ur.role_id = r.id WHERE ur.user_id = ? ORDER BY r.id",
    ).all(internalId(userId) ?? null) as { id: number; name: string }[];
    return rows.map((row) => ({ id: String(row.id), name: row.name }));
  }

  async setRoleMember(userId: string, roleId: string, member: boolean): Promise<void> {
    const sql = member
      ? "INSERT INTO user_roles (user_id, role_id) VALUES (?, ?) ON CONFLICT DO NOTHING"
      : "DELETE FROM user_roles WHERE user_id = ? AND role_id = ?";
    this.statement(sql).run(internalId(userId) ?? null, internalId(roleId) ?? null);
  }

  async createToken(token: NewToken): Promise<void> {
    this.run(() => this.statement(
      `INSERT INTO tokens (id, user_id, name, hash, expires_at, created_at, scope_permissions, scope_blocs)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(token.id, internalId(token.userId) ?? null, token.name, token.hash, token.expiresAt, token.createdAt,
      token.scope.permissions && JSON.stringify(token.scope.permissions),
      token.scope.blocs && JSON.stringify(token.scope.blocs)));
  }

  async findTokenByHash(hash: string): Promise<{ token: Token; hash: string; user: User } | undefined> {
    const row = this.statement(`
      SELECT t.id, t.user_id, t.name, t.hash, t.expires_at, t.revoked_at, t.scope_permissions, t.scope_blocs,
        u.name AS user_name, u.role AS user_role, u.profile AS user_profile
      FROM tokens t JOIN users u ON u.id = t.user_id WHERE t.hash = ?`).get(hash) as TokenRow | undefined;
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

  async revokeToken(id: string, revokedAt: string): Promise<boolean> {
    const result = this.statement(
      "UPDATE tokens SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?",
    ).run(revokedAt, id);
    return result.changes > 0;
  }

  async createBloc(bloc: Bloc, createdAt: string): Promise<void> {
    this.run(() => this.db.transaction(() => {
      this.statement(`INSERT INTO blocs (id, name, created_at, open_to_all, accepting_data, restriction)
        VALUES (?, ?, ?, ?, ?, ?)`)
        .run(bloc.id, bloc.name, createdAt, Number(bloc.openToAllUsers), Number(bloc.acceptingData), bloc.restriction);
      bloc.fields.forEach((field, index) => {
        this.statement("INSERT INTO fields (bloc_id, slug, name, position, apply_profile_filter) VALUES (?, ?, ?, ?, ?)")
          .run(bloc.id, field.slug, field.name, index + 1, Number(field.applyProfileFilter));
      });
    })());
  }

  async findBloc(id: string): Promise<Bloc | undefined> {
    const row = this.statement(`SELECT ${BLOC_COLUMNS} FROM blocs WHERE id = ?`).get(id) as BlocRow | undefined;
    if (!row) return undefined;
    const fields = this.statement(`SELECT ${FIELD_COLUMNS} FROM fields WHERE bloc_id = ? ORDER BY position`)
      .all(id) as FieldRow[];
    return toBloc(row, fields);
  }

  async listBlocs(): Promise<Bloc[]> {
    const blocs = this.statement(`SELECT ${BLOC_COLUMNS} FROM blocs ORDER BY created_at, rowid`).all() as BlocRow[];
    const fields = this.statement(`SELECT ${FIELD_COLUMNS} FROM fields ORDER BY bloc_id, position`).all() as FieldRow[];
    const byBloc = new Map<string, FieldRow[]>();
    for (const field of fields) byBloc.set(field.bloc_id, [...(byBloc.get(field.bloc_id) ?? []), field]);
    return blocs.map((bloc) => toBloc(bloc, byBloc.get(bloc.id) ?? []));
  }

  async addField(blocId: string, field: Field): Promise<void> {
    this.run(() => this.statement(`
      INSERT INTO fields (bloc_id, slug, name, apply_profile_filter, position)
      VALUES (?, ?, ?, ?, (SELECT COALESCE(MAX(position), 0) + 1 FROM fields WHERE bloc_id = ?))`)
      .run(blocId, field.slug, field.name, Number(field.applyProfileFilter), blocId));
  }

  async updateBlocSettings(blocId: string, settings: Partial<BlocSettings>): Promise<void> {
    this.statement(`UPDATE blocs SET
        open_to_all = COALESCE(?, open_to_all), accepting_data = COALESCE(?, accepting_data),
        restriction = COALESCE(?, restriction)
      WHERE id = ?`)
      .run(
        settings.openToAllUsers === undefined ? null : Number(settings.openToAllUsers),
        settings.acceptingData === undefined ? null : Number(settings.acceptingData),
        settings.restriction ?? null, blocId,
      );
  }

  async updateField(blocId: string, slug: string, changes: Partial<Omit<Field, "slug">>): Promise<boolean> {
    const result = this.statement(`UPDATE fields SET
        name = COALESCE(?, name), apply_profile_filter = COALESCE(?, apply_profile_filter)
      WHERE bloc_id = ? AND slug = ?`)
      .run(
        changes.name ?? null,
        changes.applyProfileFilter === undefined ? null : Number(changes.applyProfileFilter),
        blocId, slug,
      );
    return result.changes > 0;
  }

  async highestNumericBlocId(): Promise<number> {
    const row = this.statement(
      "SELECT MAX(CAST(id AS INTEGER)) AS n FROM blocs WHERE id NOT GLOB '*[^0-9]*' AND id <> ''",
    ).get() as { n: number | null };
    return row.n ?? 0;
  }

  async setGrant(blocId: string, userId: string, grant: Grant): Promise<void> {
    this.statement(`
      INSERT INTO grants (bloc_id, user_id, ${GRANT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)
      ON CONFLICT (bloc_id, user_id) DO UPDATE SET can_read = excluded.can_read, can_add = excluded.can_add,
        can_update = excluded.can_update, see_hidden = excluded.see_hidden`)
      .run(blocId, internalId(userId) ?? null, ...grantParams(grant));
  }

  async removeGrant(blocId: string, userId: string): Promise<void> {
    this.statement("DELETE FROM grants WHERE bloc_id = ? AND user_id = ?").run(blocId, internalId(userId) ?? null);
  }

  async setRoleGrant(blocId: string, roleId: string, grant: Grant): Promise<void> {
    this.statement(`
      INSERT INTO role_grants (bloc_id, role_id, ${GRANT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)
      ON CONFLICT (bloc_id, role_id) DO UPDATE SET can_read = excluded.can_read, can_add = excluded.can_add,
        can_update = excluded.can_update, see_hidden = excluded.see_hidden`)
      .run(blocId, internalId(roleId) ?? null, ...grantParams(grant));
  }

  async removeRoleGrant(blocId: string, roleId: string): Promise<void> {
    this.statement("DELETE FROM role_grants WHERE bloc_id = ? AND role_id = ?").run(blocId, internalId(roleId) ?? null);
  }

  async setRestriction(blocId: string, userId: string, mode: RestrictionMode): Promise<void> {
    this.statement(`INSERT INTO restrictions (bloc_id, user_id, mode) VALUES (?, ?, ?)
      ON CONFLICT (bloc_id, user_id) DO UPDATE SET mode = excluded.mode`).run(blocId, internalId(userId) ?? null, mode);
  }

  async removeRestriction(blocId: string, userId: string): Promise<void> {
    this.statement("DELETE FROM restrictions WHERE bloc_id = ? AND user_id = ?").run(blocId, internalId(userId) ?? null);
  }

  async accessFacts(blocId: string, userId: string): Promise<AccessFacts> {
    const user = internalId(userId) ?? null;
    const grants = this.statement(`
      SELECT ${GRANT_COLUMNS} FROM grants WHERE bloc_id = ? AND user_id = ?
      UNION ALL
      SELECT g.can_read, g.can_add, g.can_update, g.see_hidden FROM role_grants g
        JOIN user_roles ur ON ur.role_id = g.role_id WHERE g.bloc_id = ? AND ur.user_id = ?`)
      .all(blocId, user, blocId, user) as GrantRow[];
    const restriction = this.statement("SELECT mode FROM restrictions WHERE bloc_id = ? AND user_id = ?")
      .get(blocId, user) as { mode: RestrictionMode } | undefined;
    return { grants: grants.map(toGrant), restriction: restriction?.mode };
  }

  async insertRecord(record: NewRecord): Promise<number> {
    const row = this.statement(`
      INSERT INTO records (bloc_id, created_at, user_id, submitted_status, job_id, data)
      VALUES (?, ?, ?, ?, ?, ?) RETURNING id`)
      .get(record.blocId, record.createdAt, record.userId, record.submittedStatus, record.jobId,
        JSON.stringify(record.values)) as { id: number };
    return row.id;
  }

  async countRecords(filter: RecordFilter): Promise<number> {
    const where = whereClause(filter);
    const row = this.statement(`SELECT COUNT(*) AS n FROM records r WHERE ${where.sql}`)
      .get(...where.params) as { n: number };
    return row.n;
  }

  async listRecords(filter: RecordFilter, page: Page): Promise<StoredRecord[]> {
    const where = whereClause(filter);
    const rows = this.statement(
      `SELECT ${RECORD_COLUMNS} FROM records r WHERE ${where.sql} ORDER BY ${orderBy(page.order)} LIMIT ? OFFSET ?`,
    ).all(...where.params, page.limit, page.offset) as RecordRow[];
    return rows.map(toRecord);
  }

  async countValues(filter: RecordFilter, slugs: readonly string[]): Promise<ValueCounts> {
    // Values become keys: entries, not assignment, so that a value such as "__proto__" is kept.
    const entries = new Map<string, [string, number][]>(slugs.map((slug) => [slug, []]));
    const where = whereClause(filter);
    const rows = this.statement(`
      SELECT j.key AS slug, j.value AS value, COUNT(*) AS n
      FROM records r, json_each(r.data) j
      WHERE ${where.sql} AND j.value <> ''
      GROUP BY j.key, j.value`).all(...where.params) as { slug: string; value: string; n: number }[];
    for (const row of rows) entries.get(row.slug)?.push([row.value, row.n]);
    return Object.fromEntries([...entries].map(([slug, pairs]) => [slug, Object.fromEntries(pairs)]));
  }

  async listRecordsAfter(
    filter: RecordFilter, order: Order, cursor: RecordCursor | undefined, limit: number,
  ): Promise<StoredRecord[]> {
    const where = whereClause(filter);
    let sql = `SELECT ${RECORD_COLUMNS} FROM records r WHERE ${where.sql}`;
    const params = [...where.params];
    if (cursor) {
      sql += order === "oldest" ? " AND (r.created_at, r.id) > (?, ?)" : " AND (r.created_at, r.id) < (?, ?)";
      params.push(cursor.createdAt, cursor.id);
    }
    const rows = this.statement(`${sql} ORDER BY ${orderBy(order)} LIMIT ?`).all(...params, limit) as RecordRow[];
    return rows.map(toRecord);
  }

  async updateRecords(filter: RecordFilter, values: Readonly<Record<string, string>>): Promise<number[]> {
    const where = whereClause(filter);
    const rows = this.statement(
      `UPDATE records AS r SET data = json_patch(r.data, ?) WHERE ${where.sql} RETURNING id`,
    ).all(JSON.stringify(values), ...where.params) as { id: number }[];
    return rows.map((row) => row.id).sort((a, b) => a - b);
  }

  async close(): Promise<void> {
    this.db.close();
  }
}

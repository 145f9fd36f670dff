import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { ConflictError } from "../domain/errors.js";
import {
  RECORD_ID_KEY,
  type Bloc, type Field, type Grant, type Order, type RecordCursor, type RecordFilter,
  type Role, type StoredRecord, type Token, type User,
} from "../domain/model.js";
import type { NewRecord, NewToken, Page, Store, ValueCounts } from "./store.js";
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

interface UserRow { id: number; name: string; role: Role }

interface TokenRow {
  id: string; user_id: number; name: string | null; hash: string;
  expires_at: string | null; revoked_at: string | null;
  user_name: string; user_role: Role;
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
  return { id: String(row.id), name: row.name, role: row.role };
}

function isUniqueViolation(error: unknown): boolean {
  return error instanceof Error && "code" in error &&
    (error.code === "SQLITE_CONSTRAINT_PRIMARYKEY" || error.code === "SQLITE_CONSTRAINT_UNIQUE");
}

/** The SQL condition and its parameters for a filter, over `records AS r`. */
function whereClause(filter: RecordFilter): { sql: string; params: Param[] } {
  const parts = ["r.bloc_id = ?"];
  const params: Param[] = [filter.blocId];
  if (filter.from !== undefined) { parts.push("r.created_at >= ?"); params.push(filter.from); }
  if (filter.to !== undefined) { parts.push("r.created_at <= ?"); params.push(filter.to); }
  for (const condition of filter.match ?? []) {
    if (condition.values.length === 0) continue;
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

  async createUser(name: string, role: Role, createdAt: string): Promise<User> {
    const row = this.statement(
      "INSERT INTO users (name, role, created_at) VALUES (?, ?, ?) RETURNING id, name, role",
    ).get(name, role, createdAt) as UserRow;
    return toUser(row);
  }

  async findUser(id: string): Promise<User | undefined> {
    if (!/^\d+$/.test(id)) return undefined;
    const row = this.statement("SELECT id, name, role FROM users WHERE id = ?").get(Number(id)) as UserRow | undefined;
    return row && toUser(row);
  }

  async createToken(token: NewToken): Promise<void> {
    this.run(() => this.statement(
      "INSERT INTO tokens (id, user_id, name, hash, expires_at, created_at) VALUES (?, ?, ?, ?, ?, ?)",
    ).run(token.id, Number(token.userId), token.name, token.hash, token.expiresAt, token.createdAt));
  }

  async findTokenByHash(hash: string): Promise<{ token: Token; hash: string; user: User } | undefined> {
    const row = this.statement(`
      SELECT t.id, t.user_id, t.name, t.hash, t.expires_at, t.revoked_at, u.name AS user_name, u.role AS user_role
      FROM tokens t JOIN users u ON u.id = t.user_id WHERE t.hash = ?`).get(hash) as TokenRow | undefined;
    if (!row) return undefined;
    return {
      token: {
        id: row.id, userId: String(row.user_id), name: row.name,
        expiresAt: row.expires_at, revokedAt: row.revoked_at,
      },
      hash: row.hash,
      user: { id: String(row.user_id), name: row.user_name, role: row.user_role },
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
      this.statement("INSERT INTO blocs (id, name, created_at) VALUES (?, ?, ?)").run(bloc.id, bloc.name, createdAt);
      bloc.fields.forEach((field, index) => {
        this.statement("INSERT INTO fields (bloc_id, slug, name, position) VALUES (?, ?, ?, ?)")
          .run(bloc.id, field.slug, field.name, index + 1);
      });
    })());
  }

  async findBloc(id: string): Promise<Bloc | undefined> {
    const row = this.statement("SELECT id, name FROM blocs WHERE id = ?").get(id) as { id: string; name: string } | undefined;
    if (!row) return undefined;
    const fields = this.statement("SELECT slug, name FROM fields WHERE bloc_id = ? ORDER BY position")
      .all(id) as Field[];
    return { id: row.id, name: row.name, fields };
  }

  async listBlocs(): Promise<Bloc[]> {
    const blocs = this.statement("SELECT id, name FROM blocs ORDER BY created_at, id").all() as { id: string; name: string }[];
    const fields = this.statement("SELECT bloc_id, slug, name FROM fields ORDER BY bloc_id, position")
      .all() as (Field & { bloc_id: string })[];
    return blocs.map((bloc) => ({
      ...bloc,
      fields: fields.filter((f) => f.bloc_id === bloc.id).map(({ slug, name }) => ({ slug, name })),
    }));
  }

  async addField(blocId: string, field: Field): Promise<void> {
    this.run(() => this.statement(`
      INSERT INTO fields (bloc_id, slug, name, position)
      VALUES (?, ?, ?, (SELECT COALESCE(MAX(position), 0) + 1 FROM fields WHERE bloc_id = ?))`)
      .run(blocId, field.slug, field.name, blocId));
  }

  async highestNumericBlocId(): Promise<number> {
    const row = this.statement(
      "SELECT MAX(CAST(id AS INTEGER)) AS n FROM blocs WHERE id NOT GLOB '*[^0-9]*' AND id <> ''",
    ).get() as { n: number | null };
    return row.n ?? 0;
  }

  async setGrant(blocId: string, userId: string, grant: Grant): Promise<void> {
    this.statement(`
      INSERT INTO grants (bloc_id, user_id, can_read, can_add, can_update) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT (bloc_id, user_id) DO UPDATE SET
        can_read = excluded.can_read, can_add = excluded.can_add, can_update = excluded.can_update`)
      .run(blocId, Number(userId), Number(grant.read), Number(grant.add), Number(grant.update));
  }

  async removeGrant(blocId: string, userId: string): Promise<void> {
    this.statement("DELETE FROM grants WHERE bloc_id = ? AND user_id = ?").run(blocId, Number(userId));
  }

  async findGrant(blocId: string, userId: string): Promise<Grant | undefined> {
    if (!/^\d+$/.test(userId)) return undefined;
    const row = this.statement(
      "SELECT can_read, can_add, can_update FROM grants WHERE bloc_id = ? AND user_id = ?",
    ).get(blocId, Number(userId)) as { can_read: number; can_add: number; can_update: number } | undefined;
    return row && { read: row.can_read === 1, add: row.can_add === 1, update: row.can_update === 1 };
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

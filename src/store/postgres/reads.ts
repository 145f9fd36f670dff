import type { SequenceTemplate } from "../../domain/autogenerate.js";
import type { Bloc, Module, RecordFilter, RestrictionMode, Role, StoredFile, StoredRecord, Token, User } from "../../domain/model.js";
import type { GenerationCache } from "../generation-cache.js";
import type { Scope, ScopeKey } from "../../domain/ports/counters.js";
import type {
  AccessFacts, BlocAccessList, HistoryEntry, Login, ProjectedRow, RowColumn, RowPage, StoreReads, ValueCount, ValueCounts, ValueLookup,
} from "../../domain/ports/store.js";
import {
  BLOC_COLUMNS, FIELD_COLUMNS, GRANT_COLUMNS, USER_COLUMNS, LOGIN_COLUMNS, internalId, toBloc, toGrant, toUser,
  type BlocRow, type FieldRow, type GrantRow, type LoginRow, type UserRow,
} from "../config-rows.js";
import { loadAccessFacts, loadBloc, loadToken } from "./config-rows.js";
import * as counters from "./counters.js";
import * as history from "./history.js";
import { storable, type Db } from "./driver.js";
import * as records from "./record-reads.js";

/**
 * Where the cached reads (blocs, tokens, access facts) load from: never the connection
 * of the transaction or snapshot asking, so that they see the latest committed state,
 * as the generation number they are cached under does. Reads outside any transaction
 * load from the main pool; those inside one from a small pool of their own (`meta`),
 * so that a transaction waiting for a load never waits for a connection that another
 * waiting transaction holds. A transaction that changed config reads its own changes
 * instead, uncached (`bypass`).
 */
export interface CachedConfig {
  readonly cache: GenerationCache;
  readonly meta: Db;
  /** The pool, for reads outside any transaction; meta otherwise. */
  readonly loadFrom?: Db;
  readonly bypass: () => boolean;
  /** Loads under way, by key, shared by every reader of the store. */
  readonly loading: Map<string, Promise<unknown>>;
  /** The generation number the cache last read. */
  readonly generation: () => number;
}

/** Every read, on a pool, a transaction or a snapshot (`db`). */
export class PgReads implements StoreReads {
  constructor(protected readonly db: Db, private readonly config: CachedConfig) {}

  private cached<T>(key: string, load: (db: Db) => Promise<T>, keep?: (value: T) => boolean): Promise<T> {
    if (this.config.bypass()) return load(this.db);
    const from = this.config.loadFrom ?? this.config.meta;
    // Loads on the pool are not shared with those on meta: a transaction must never wait for the pool.
    const shared = `${from === this.config.meta ? "meta" : "pool"}\u0000${key}`;
    return this.config.cache.get(key, () => this.shared(shared, () => load(from)), keep);
  }

  /**
   * One load per key and generation at a time: after a config change empties the
   * cache, the requests already waiting (hundreds, under load) would otherwise each
   * load the same rows. A load during which the cache saw the generation move may have
   * read the rows before the change, and would be cached as current: it loads again.
   */
  private shared<T>(key: string, load: () => Promise<T>): Promise<T> {
    const { loading, generation } = this.config;
    const id = `${generation()}\u0000${key}`;
    const running = loading.get(id);
    if (running) return running as Promise<T>;
    const started = (async () => {
      for (;;) {
        const before = generation();
        const value = await load();
        if (generation() === before) return value;
      }
    })().finally(() => loading.delete(id));
    loading.set(id, started);
    return started;
  }

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

  findTokenByHash(hash: string): Promise<{ token: Token; hash: string; user: User } | undefined> {
    // Unknown hashes are not kept: guessing tokens must not fill the cache.
    return this.cached(`token:${hash}`, (db) => loadToken(db, hash), (found) => found !== undefined);
  }

  async findModule(id: string): Promise<Module | undefined> {
    const [row] = await this.db.run<{ id: number; name: string }>("SELECT id, name FROM modules WHERE id = $1::bigint", [internalId(id)]);
    return row && { id: String(row.id), name: row.name };
  }

  async listModules(): Promise<Module[]> {
    const rows = await this.db.run<{ id: number; name: string }>("SELECT id, name FROM modules ORDER BY id");
    return rows.map((row) => ({ id: String(row.id), name: row.name }));
  }

  findBloc(id: string): Promise<Bloc | undefined> {
    // Unknown IDs are not kept: probing IDs must not fill the cache.
    return this.cached(`bloc:${id}`, (db) => loadBloc(db, id), (bloc) => bloc !== undefined);
  }

  async listBlocs(): Promise<Bloc[]> {
    const blocs = await this.db.run<BlocRow>(`SELECT ${BLOC_COLUMNS} FROM blocs ORDER BY created_at, id`);
    const fields = await this.db.run<FieldRow>(`SELECT ${FIELD_COLUMNS} FROM fields WHERE retired_at IS NULL ORDER BY bloc_id, position`);
    const byBloc = new Map<string, FieldRow[]>();
    for (const field of fields) {
      const list = byBloc.get(field.bloc_id);
      if (list) list.push(field); else byBloc.set(field.bloc_id, [field]);
    }
    return blocs.map((bloc) => toBloc(bloc, byBloc.get(bloc.id) ?? []));
  }

  async highestNumericBlocId(): Promise<number> {
    // As SQLite's CAST(id AS INTEGER), a number past 64 bits stops at the largest 64-bit integer.
    const [row] = await this.db.run<{ n: number | null }>(`
      SELECT MAX(LEAST(id::numeric, 9223372036854775807))::bigint AS n FROM blocs WHERE id ~ '^[0-9]+$'`);
    return row?.n ?? 0;
  }

  accessFacts(blocId: string, userId: string): Promise<AccessFacts> {
    return this.cached(`facts:${blocId}\u0000${userId}`, (db) => loadAccessFacts(db, blocId, userId));
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

  async retiredFieldSlugs(blocId: string): Promise<string[]> {
    if (!storable(blocId)) return [];
    const rows = await this.db.run<{ slug: string }>(
      "SELECT slug FROM fields WHERE bloc_id = $1::text AND retired_at IS NOT NULL ORDER BY position", [blocId]);
    return rows.map((row) => row.slug);
  }

  findFile(ref: string): Promise<StoredFile | undefined> {
    return records.findFile(this.db, ref);
  }

  countRecords(filter: RecordFilter): Promise<number> {
    return records.countRecords(this.db, filter);
  }

  listRecords(filter: RecordFilter, page: RowPage): Promise<StoredRecord[]> {
    return records.listRecords(this.db, filter, page);
  }

  findRecords(filter: RecordFilter): Promise<StoredRecord[]> {
    return records.findRecords(this.db, filter);
  }

  listRows(filter: RecordFilter, page: RowPage, columns: readonly RowColumn[]): Promise<ProjectedRow[]> {
    return records.listRows(this.db, filter, page, columns);
  }

  tallyValues(filter: RecordFilter, slugs: readonly string[], limit: number): Promise<ValueCounts> {
    return records.tallyValues(this.db, filter, slugs, limit);
  }

  scopes(blocId: string, keys: readonly ScopeKey[]): Promise<Scope[]> {
    return counters.scopes(this.db, blocId, keys);
  }

  periodCounts(blocId: string, segments: readonly string[], from: string, to: string): Promise<{ period: string; n: number }[]> {
    return counters.periodCounts(this.db, blocId, segments, from, to);
  }

  repeatedValues(scopes: readonly number[], slug: string, limit: number): Promise<ValueCount[]> {
    return counters.repeatedValues(this.db, scopes, slug, limit);
  }

  countsOf(scopes: readonly number[], slug: string, values: readonly string[]): Promise<[string, number][]> {
    return counters.countsOf(this.db, scopes, slug, values);
  }

  countsOfPairs(scope: number, pairs: readonly { readonly slug: string; readonly value: string }[]): Promise<[string, string, number][]> {
    return counters.countsOfPairs(this.db, scope, pairs);
  }

  valuesHeldTwice(blocId: string, slug: string, after: string | null, limit: number): Promise<[string, number][]> {
    return counters.valuesHeldTwice(this.db, blocId, slug, after, limit);
  }

  holderCounts(blocId: string, keys: readonly { readonly slug: string; readonly value: string }[], cap: number): Promise<number[]> {
    return counters.holderCounts(this.db, blocId, keys, cap);
  }

  blocsWithoutScope(key: ScopeKey): Promise<string[]> {
    return counters.blocsWithoutScope(this.db, key);
  }

  holders(blocId: string, lookup: ValueLookup, limit: number): Promise<number[]> {
    return records.holders(this.db, blocId, lookup, limit);
  }

  lastSequence(blocId: string, slug: string, template: SequenceTemplate): Promise<number | undefined> {
    return records.lastSequence(this.db, blocId, slug, template);
  }

  valuesWithPrefix(blocId: string, slug: string, template: SequenceTemplate, after: string | null, limit: number): Promise<string[]> {
    return records.valuesWithPrefix(this.db, blocId, slug, template, after, limit);
  }

  recordHistory(blocId: string, recordId: number): Promise<HistoryEntry[] | undefined> {
    return history.recordHistory(this.db, blocId, recordId);
  }
}

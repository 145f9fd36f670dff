import type {
  Bloc, BlocSettings, Field, Grant, Order, RecordCursor, RecordFilter, RestrictionMode, Role,
  StoredRecord, Token, TokenScope, User, UserRole,
} from "../domain/model.js";

export interface NewToken {
  readonly id: string;
  readonly userId: string;
  readonly name: string | null;
  /** SHA-256 of the secret, hex. The secret itself never reaches the store. */
  readonly hash: string;
  readonly expiresAt: string | null;
  readonly createdAt: string;
  readonly scope: TokenScope;
}

export interface NewRecord {
  readonly blocId: string;
  readonly createdAt: string;
  readonly userId: string;
  readonly submittedStatus: number;
  readonly jobId: string | null;
  readonly values: Readonly<Record<string, string>>;
}

export interface Page {
  readonly order: Order;
  readonly limit: number;
  readonly offset: number;
}

/** What decides a user's rights on one bloc, read in one go on every request (never cached). */
export interface AccessFacts {
  /** The user's own grant and those of each of their roles. */
  readonly grants: readonly Grant[];
  /** The user's own restriction on the bloc, overriding the bloc's default. */
  readonly restriction: RestrictionMode | undefined;
}

/** Field slug → value → number of records holding it. */
export type ValueCounts = Record<string, Record<string, number>>;

/**
 * Everything the service keeps. One implementation per engine (store/<engine>-store.ts);
 * the domain sees only this interface. Methods are async so that engines with
 * network round trips fit the same shape as the embedded one.
 *
 * Write methods are atomic: they either apply completely or throw and change nothing.
 * Creating something whose key exists throws ConflictError.
 */
export interface Store {
  createUser(name: string, role: UserRole, createdAt: string): Promise<User>;
  findUser(id: string): Promise<User | undefined>;
  setProfile(userId: string, profile: readonly string[]): Promise<void>;

  createRole(name: string, createdAt: string): Promise<Role>;
  findRole(id: string): Promise<Role | undefined>;
  listRoles(): Promise<Role[]>;
  rolesOf(userId: string): Promise<Role[]>;
  /** Makes the user a member of the role, or (member false) not. */
  setRoleMember(userId: string, roleId: string, member: boolean): Promise<void>;

  createToken(token: NewToken): Promise<void>;
  findTokenByHash(hash: string): Promise<{ token: Token; hash: string; user: User } | undefined>;
  /** False when no such token exists. Revoking twice keeps the first time. */
  revokeToken(id: string, revokedAt: string): Promise<boolean>;

  createBloc(bloc: Bloc, createdAt: string): Promise<void>;
  findBloc(id: string): Promise<Bloc | undefined>;
  listBlocs(): Promise<Bloc[]>;
  addField(blocId: string, field: Field): Promise<void>;
  updateBlocSettings(blocId: string, settings: Partial<BlocSettings>): Promise<void>;
  /** False when the bloc has no such field. */
  updateField(blocId: string, slug: string, changes: Partial<Omit<Field, "slug">>): Promise<boolean>;
  /** The largest bloc ID made only of digits, or 0. */
  highestNumericBlocId(): Promise<number>;

  setGrant(blocId: string, userId: string, grant: Grant): Promise<void>;
  removeGrant(blocId: string, userId: string): Promise<void>;
  setRoleGrant(blocId: string, roleId: string, grant: Grant): Promise<void>;
  removeRoleGrant(blocId: string, roleId: string): Promise<void>;
  setRestriction(blocId: string, userId: string, mode: RestrictionMode): Promise<void>;
  removeRestriction(blocId: string, userId: string): Promise<void>;
  accessFacts(blocId: string, userId: string): Promise<AccessFacts>;

  /** Returns the new record's ID. */
  insertRecord(record: NewRecord): Promise<number>;
  countRecords(filter: RecordFilter): Promise<number>;
  listRecords(filter: RecordFilter, page: Page): Promise<StoredRecord[]>;
  /** Value counts of the given fields over every record the filter selects; empty values are not counted. */
  countValues(filter: RecordFilter, slugs: readonly string[]): Promise<ValueCounts>;
  /** Up to `limit` records strictly after `cursor` in `order`; the next batch of a streamed read. */
  listRecordsAfter(filter: RecordFilter, order: Order, cursor: RecordCursor | undefined, limit: number): Promise<StoredRecord[]>;
  /** Sets `values` on every record the filter selects, in one transaction; returns their IDs ascending. */
  updateRecords(filter: RecordFilter, values: Readonly<Record<string, string>>): Promise<number[]>;

  close(): Promise<void>;
}

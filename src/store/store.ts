import type {
  Bloc, BlocSettings, Field, Grant, Module, Order, RecordCursor, RecordFilter, RestrictionMode, Role,
  ScanLimitPeriod, StoredFile, StoredRecord, Token, TokenScope, User, UserRole, Visibility,
} from "../domain/model.js";
import type { SequenceTemplate } from "../domain/autogenerate.js";

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

/** An auto-generated field of a new record: the client's value, if any, and how to make one. */
export interface AutogeneratePlan {
  readonly field: Field;
  readonly template: SequenceTemplate;
  /** What the client sent; kept if free, else replaced and reported. */
  readonly sent: string;
}

/** A file already on disk, to be tied to the new record; writing it releases the upload's hold on the content. */
export interface NewFile extends Omit<StoredFile, "blocId" | "recordId"> {
  readonly hold: string;
}

/** A field whose non-empty values must be distinct, within each value of `groupBy` when set. */
export interface UniqueKey {
  readonly field: Field;
  readonly groupBy: string | null;
}

/**
 * The checks and fills an insert makes inside its own transaction, so that they hold
 * under concurrent writers, across processes too.
 */
export interface InsertPlan {
  /** Fields whose non-empty value no other record of the bloc may hold. */
  readonly unique: readonly Field[];
  readonly autogenerate: readonly AutogeneratePlan[];
  readonly scanLimit: { readonly limit: number; readonly since: string | null; readonly period: ScanLimitPeriod | null } | null;
  readonly files: readonly NewFile[];
}

export interface Replacement {
  readonly field: string;
  readonly sent: string;
  readonly value: string;
}

export interface Inserted {
  readonly id: number;
  readonly values: Readonly<Record<string, string>>;
  readonly replacements: readonly Replacement[];
}

export interface ScanCount {
  /** Records since the period began (all, or those the reader may see). */
  readonly counted: number;
  /** Whether the whole bloc has reached the limit, and when the limit-th record came. */
  readonly reached: boolean;
  readonly reachedAt: string | null;
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

/** A page of report rows: by offset, or (for streaming) strictly after a position. */
export interface RowPage extends Page {
  readonly after?: RecordCursor | undefined;
}

/** One column of a report row: a record's system value, a part of its time, or a field. */
export interface RowColumn {
  readonly key: string;
  readonly source: "created_at" | "user_id" | "time_stamp" | "date_stamp" | { readonly field: string };
}

export interface ProjectedRow extends RecordCursor {
  /** The row as a JSON object text. */
  readonly json: string;
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

  createModule(name: string, createdAt: string): Promise<Module>;
  findModule(id: string): Promise<Module | undefined>;
  listModules(): Promise<Module[]>;

  createBloc(bloc: Bloc, createdAt: string): Promise<void>;
  findBloc(id: string): Promise<Bloc | undefined>;
  listBlocs(): Promise<Bloc[]>;
  addField(blocId: string, field: Field): Promise<void>;
  updateBlocSettings(blocId: string, settings: Partial<BlocSettings>): Promise<void>;
  /** Replaces a field's definition (its slug stays). False when the bloc has no such field. */
  updateField(blocId: string, field: Field): Promise<boolean>;
  /** The largest bloc ID made only of digits, or 0. */
  highestNumericBlocId(): Promise<number>;

  setGrant(blocId: string, userId: string, grant: Grant): Promise<void>;
  removeGrant(blocId: string, userId: string): Promise<void>;
  setRoleGrant(blocId: string, roleId: string, grant: Grant): Promise<void>;
  removeRoleGrant(blocId: string, roleId: string): Promise<void>;
  setRestriction(blocId: string, userId: string, mode: RestrictionMode): Promise<void>;
  removeRestriction(blocId: string, userId: string): Promise<void>;
  accessFacts(blocId: string, userId: string): Promise<AccessFacts>;

  /** Inserts a record after the plan's checks and fills; throws RuleViolationError or LimitReachedError, writing nothing. */
  insertRecord(record: NewRecord, plan: InsertPlan): Promise<Inserted>;
  countRecords(filter: RecordFilter): Promise<number>;
  listRecords(filter: RecordFilter, page: Page): Promise<StoredRecord[]>;
  /**
   * Value counts of the given fields over every record the filter selects; empty values
   * are not counted. Per field, the `limit` most frequent values (all when 0), most frequent first.
   */
  countValues(filter: RecordFilter, slugs: readonly string[], limit: number): Promise<ValueCounts>;
  /** Inserts records as they are, with no rules to check (imports, seeding); returns their IDs. */
  importRecords(records: readonly NewRecord[]): Promise<number[]>;
  /**
   * Report rows: each record the page selects, projected onto `columns` as the text of a
   * JSON object (keys in column order), with its position for continuing after it.
   */
  listRows(filter: RecordFilter, page: RowPage, columns: readonly RowColumn[]): Promise<ProjectedRow[]>;
  /**
   * Sets `values` (field slugs, or `submitted_status`) on every record the filter selects, in one
   * transaction; returns their IDs ascending. A value of a `unique` field already held by another
   * record, or set on several, throws RuleViolationError and changes nothing.
   */
  updateRecords(filter: RecordFilter, values: Readonly<Record<string, string>>, unique: readonly UniqueKey[]): Promise<number[]>;
  /** Records of the bloc created at or after `since` (all time when null). */
  scanCount(blocId: string, since: string | null, limit: number | null, visibility: Visibility | undefined): Promise<ScanCount>;
  findFile(ref: string): Promise<StoredFile | undefined>;
  /**
   * Marks content as in use by an upload in progress, before the content is put in
   * place; returns the hold's ID. A record that takes the file releases the hold.
   */
  holdContent(sha256: string, createdAt: string): Promise<string>;
  /**
   * Releases an upload's hold; if then no record and no other upload uses the content,
   * calls `remove` (while no other writer can take a new hold).
   */
  releaseContent(hold: string, sha256: string, remove: () => void): Promise<void>;

  close(): Promise<void>;
}

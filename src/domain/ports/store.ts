import type {
  Bloc, BlocSettings, Field, Grant, Module, Order, RecordCursor, RecordFilter, RestrictionMode, Role,
  StoredFile, StoredRecord, Token, TokenInfo, TokenScope, User, UserRole,
} from "../model.js";
import type { SequenceTemplate } from "../autogenerate.js";
import type { CounterDeltas } from "../counting/deltas.js";
import type { CounterReads, CounterWrites, ValueCount } from "./counters.js";
import type { EventStore, EventWrites } from "./events.js";

export type { Delivery, EventStore, Lane, LaneProgress, NewDelivery, NewEvent, StoredEvent, Webhook } from "./events.js";

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

/** A user found by email, with what their password is checked against (null: they have none). */
export interface Login {
  readonly user: User;
  readonly passwordHash: string | null;
}

/** Account changes of one user; absent keys stay as they are. */
export interface AccountChanges {
  readonly name?: string;
  /** Normalised (domain/accounts.ts); null removes it. A taken email throws ConflictError. */
  readonly email?: string | null;
  /** A password hash (domain/passwords.ts); null removes password sign-in. */
  readonly passwordHash?: string | null;
  /** When the user was disabled; null enables them. */
  readonly disabledAt?: string | null;
}

/** Sign-in attempts for one email in its current window (Store.countSignInAttempt). */
export interface SignInAttempts {
  /** Attempts in the window, this one included. */
  readonly count: number;
  /** When the window began, in ms since the epoch. */
  readonly sinceMs: number;
}

/** What a bulk import loaded (Store.bulkImport). */
export interface BulkImported {
  readonly count: number;
  /** The highest ID given to a loaded record; 0 when none was loaded. */
  readonly lastId: number;
}

/** A file already on disk, to be tied to a new record; writing it releases the upload's hold on the content. */
export interface NewFile extends Omit<StoredFile, "blocId" | "recordId"> {
  readonly hold: string;
}

export interface Page {
  readonly order: Order;
  readonly limit: number;
  readonly offset: number;
}

/** A page of records: by offset, or (for streaming) strictly after a position, then by offset. */
export interface RowPage extends Page {
  readonly after?: RecordCursor | undefined;
  /**
   * Stops before the record that would take the page past this many bytes (of the
   * records' data as JSON text, or of the projected rows), so that old records of any
   * size cannot make a page hold more; the first record is always returned. The caller
   * tells a cut page from a short one by the count, or reads on after its last record.
   */
  readonly maxBytes?: number | undefined;
}

/** What decides a user's rights on one bloc. */
export interface AccessFacts {
  /** The user's own grant and those of each of their roles. */
  readonly grants: readonly Grant[];
  /** The user's own restriction on the bloc, overriding the bloc's default. */
  readonly restriction: RestrictionMode | undefined;
}

/** Who holds what on one bloc, as the admin's access listing shows it (names beside IDs). */
export interface BlocAccessList {
  readonly grants: readonly { readonly userId: string; readonly userName: string; readonly grant: Grant }[];
  readonly roleGrants: readonly { readonly roleId: string; readonly roleName: string; readonly grant: Grant }[];
  readonly restrictions: readonly { readonly userId: string; readonly userName: string; readonly mode: RestrictionMode }[];
}

/** One column of a report row: a record's system value, a part of its time, or a field. */
export interface RowColumn {
  readonly key: string;
  readonly source: "created_at" | "user_id" | "time_stamp" | "date_stamp" | { readonly field: string };
}

export interface ProjectedRow extends RecordCursor {
  /** The row as a JSON object text, keys in column order, absent fields as "". */
  readonly json: string;
}

export type { ValueCount } from "./counters.js";
/** Field slug → its values, in the order they rank. */
export type ValueCounts = ReadonlyMap<string, readonly ValueCount[]>;

/**
 * A field value that must match, within a group (another field's value) when given. A
 * record without the group field counts as holding "" there.
 */
export interface ValueLookup {
  readonly slug: string;
  readonly value: string;
  readonly group?: { readonly slug: string; readonly value: string } | undefined;
}

/** What one update changed in one record: field slug (or `submitted_status`) → its value before and after. */
export type Changes = Readonly<Record<string, { readonly from: string; readonly to: string }>>;

/** What a history entry records: an update, or the record's deletion or restore. */
export type HistoryAction = "updated" | "deleted" | "restored";

/** One update (or deletion, or restore) of one record, as its history keeps it. */
export interface HistoryEntry {
  readonly recordId: number;
  readonly action: HistoryAction;
  /** `YYYY-MM-DD HH:MM:SS` in the service's time zone, like `created_at`. */
  readonly at: string;
  readonly userId: string;
  /** The token the update was made through; null when made without one. */
  readonly tokenId: string | null;
  readonly changes: Changes;
}

/** An add-data that succeeded under an Idempotency-Key, kept to answer its repeats. */
export interface IdempotencyEntry {
  readonly userId: string;
  /** SHA-256 of the key, hex: the key itself is never stored. */
  readonly keyHash: string;
  /** SHA-256 of the canonical request, hex (domain/idempotency.ts). */
  readonly requestHash: string;
  readonly recordId: number;
  /** The answer's `autogenerateReplacements`, as JSON text. */
  readonly replacements: string;
  /** When it was kept, in milliseconds since the epoch. */
  readonly createdMs: number;
}

/**
 * The tables an instance consists of, parents before children: what `bloc-data copy`
 * moves. Rows travel in a canonical shape (SQLite's column names; integers as numbers;
 * JSON columns such as `records.data` and `users.profile` as JSON text).
 */
export const TABLES = [
  "users", "roles", "user_roles", "modules", "blocs", "fields", "tokens", "grants", "role_grants", "restrictions",
  "records", "deleted_records", "sequences", "files", "counter_scopes", "value_counts", "record_history", "idempotency_keys",
  "event_sequences", "events", "webhooks", "webhook_lanes", "webhook_deliveries",
] as const;
export type TableName = (typeof TABLES)[number];
/** The tables that hold the counters behind `count` and `fieldCounts` (what the benchmark reports as counter rows). */
export const COUNTER_TABLES: readonly TableName[] = ["counter_scopes", "value_counts"];
export type Row = Record<string, string | number | null>;

/** Rows of the tables, read as `Store.exportRows` reads them. */
export interface RowSource {
  /** Rows of a table in primary-key order, after `after` (a row's key columns), at most `limit`. */
  exportRows(table: TableName, after: Row | undefined, limit: number): Promise<Row[]>;
}

/** What an engine does to make an answered write survive a crash or a power cut, as it reads its own settings. */
export interface Durability {
  /** The settings durability depends on, by name, as in force for the service's own connections. */
  readonly settings: Readonly<Record<string, string>>;
  /** One sentence per setting that weakens durability: what it risks and how to fix it. */
  readonly warnings: readonly string[];
}

/**
 * Reads every engine answers, alike inside a transaction, a snapshot or on their own.
 * Record reads here are plain queries over the records or the counters: which one
 * answers what, and how, is decided above the engines (domain/record-queries.ts).
 */
export interface StoreReads extends CounterReads {
  findUser(id: string): Promise<User | undefined>;
  findRole(id: string): Promise<Role | undefined>;
  listRoles(): Promise<Role[]>;
  rolesOf(userId: string): Promise<Role[]>;
  findTokenByHash(hash: string): Promise<{ token: Token; hash: string; user: User } | undefined>;
  /** The user whose (normalised) email this is, with their password hash. */
  findLogin(email: string): Promise<Login | undefined>;
  /** A user's password hash: null when they have none, undefined when there is no such user. */
  passwordOf(userId: string): Promise<string | null | undefined>;
  findModule(id: string): Promise<Module | undefined>;
  listModules(): Promise<Module[]>;
  findBloc(id: string): Promise<Bloc | undefined>;
  listBlocs(): Promise<Bloc[]>;
  /** The largest bloc ID made only of digits, or 0. */
  highestNumericBlocId(): Promise<number>;
  accessFacts(blocId: string, userId: string): Promise<AccessFacts>;
  /** Every grant, role grant and restriction on the bloc, by holder ID. */
  blocAccessList(blocId: string): Promise<BlocAccessList>;
  /** Slugs of the bloc's retired fields: findBloc leaves them out, and no new field may take them. */
  retiredFieldSlugs(blocId: string): Promise<string[]>;
  findFile(ref: string): Promise<StoredFile | undefined>;

  /** Records the filter selects, counted from the records themselves. */
  countRecords(filter: RecordFilter): Promise<number>;
  /** A page of the records the filter selects, in `page.order` (created_at, then id). */
  listRecords(filter: RecordFilter, page: RowPage): Promise<StoredRecord[]>;
  /**
   * Every record the filter selects, in no particular order: what an update works on.
   * Unordered so that an engine can find them through a value index alone.
   */
  findRecords(filter: RecordFilter): Promise<StoredRecord[]>;
  /** Like listRecords, each record projected onto `columns` as the text of a JSON object. */
  listRows(filter: RecordFilter, page: RowPage, columns: readonly RowColumn[]): Promise<ProjectedRow[]>;
  /**
   * Value counts of the given fields over the records the filter selects, counted from
   * the records; empty values are not counted. Per field the `limit` most frequent (all
   * when 0), most frequent first, ties by value in code-point order; long values as null.
   */
  tallyValues(filter: RecordFilter, slugs: readonly string[], limit: number): Promise<ValueCounts>;

  /** IDs of records of the bloc matching the lookup, at most `limit`. */
  holders(blocId: string, lookup: ValueLookup, limit: number): Promise<number[]>;
  /** The last counter handed out for this field and template, if one was saved. */
  lastSequence(blocId: string, slug: string, template: SequenceTemplate): Promise<number | undefined>;
  /**
   * Values of `slug` that start with the template's prefix (within its group), in
   * code-point order, after `after` (from the start when null), at most `limit`.
   */
  valuesWithPrefix(blocId: string, slug: string, template: SequenceTemplate, after: string | null, limit: number): Promise<string[]>;

  /**
   * The history of one record of a bloc, oldest first, whether the record is deleted or
   * not; undefined when the bloc never held such a record.
   */
  recordHistory(blocId: string, recordId: number): Promise<HistoryEntry[] | undefined>;
}

/** Changes to users, tokens, blocs and access; each is atomic on its own. */
export interface ConfigWrites {
  createUser(name: string, role: UserRole, createdAt: string): Promise<User>;
  setProfile(userId: string, profile: readonly string[]): Promise<void>;
  /** False when no such user exists. */
  updateAccount(userId: string, changes: AccountChanges): Promise<boolean>;
  createRole(name: string, createdAt: string): Promise<Role>;
  /** Makes the user a member of the role, or (member false) not. */
  setRoleMember(userId: string, roleId: string, member: boolean): Promise<void>;
  createToken(token: NewToken): Promise<void>;
  /** False when no such token exists. Revoking twice keeps the first time. */
  revokeToken(id: string, revokedAt: string): Promise<boolean>;
  createModule(name: string, createdAt: string): Promise<Module>;
  /** The bloc, its settings and its fields. A taken ID throws ConflictError. */
  createBloc(bloc: Bloc, createdAt: string): Promise<void>;
  addField(blocId: string, field: Field): Promise<void>;
  updateBlocSettings(blocId: string, settings: Partial<BlocSettings>): Promise<void>;
  /** Replaces a field's definition (its slug stays). False when the bloc has no such field. */
  updateField(blocId: string, field: Field): Promise<boolean>;
  setGrant(blocId: string, userId: string, grant: Grant): Promise<void>;
  removeGrant(blocId: string, userId: string): Promise<void>;
  setRoleGrant(blocId: string, roleId: string, grant: Grant): Promise<void>;
  removeRoleGrant(blocId: string, roleId: string): Promise<void>;
  setRestriction(blocId: string, userId: string, mode: RestrictionMode): Promise<void>;
  removeRestriction(blocId: string, userId: string): Promise<void>;
  /**
   * Retires a field: findBloc no longer lists it, its row (and so its slug) stays, and
   * its value counters go (nothing reads them any more). False when no such field is in use.
   */
  retireField(blocId: string, slug: string, retiredAt: string): Promise<boolean>;
  /**
   * Deletes a bloc and every row that belongs to it (records, files' rows, history,
   * counters, sequences, access, events, webhook lanes and deliveries, idempotency
   * entries of its records); returns the SHA-256 of each content its files used.
   */
  deleteBloc(blocId: string): Promise<string[]>;
  /** Deletes a role, its memberships and its grants; returns the blocs it held grants on, or undefined when no such role exists. */
  deleteRole(roleId: string): Promise<string[] | undefined>;
  /** Deletes a module no bloc belongs to; false when no such module exists. */
  deleteModule(moduleId: string): Promise<boolean>;
}

/**
 * One unit of work inside a transaction: everything it reads sees its own writes, and
 * everything it writes commits together or not at all. Record writes exist only here,
 * so that nothing can change records without the counters changing with them.
 */
export interface Tx extends StoreReads, ConfigWrites, EventWrites, CounterWrites {
  /**
   * Serialises writers of one bloc until the transaction ends, across processes: what a
   * unit reads of the bloc's records after this stays true until it commits.
   */
  lockBloc(blocId: string): Promise<void>;
  /** Returns the new record's ID. */
  insertRecord(record: NewRecord): Promise<number>;
  /** Ties an uploaded file to a record and releases the upload's hold on its content. */
  insertFile(file: NewFile, blocId: string, recordId: number, createdAt: string): Promise<void>;
  /**
   * Merges `fields` into the values of every record the filter selects and sets their
   * status when given; returns their IDs ascending.
   */
  updateValues(filter: RecordFilter, fields: Readonly<Record<string, string>>, status: number | undefined): Promise<number[]>;
  /** Adds one entry per changed record to the records' history. */
  insertHistory(blocId: string, entries: readonly HistoryEntry[]): Promise<void>;
  /**
   * Moves the bloc's records with these IDs, whole, from the records to the deleted
   * records, noting when and by whom; returns how many moved.
   */
  moveToDeleted(blocId: string, ids: readonly number[], deletedAt: string, deletedBy: string): Promise<number>;
  /** A deleted record of the bloc, as it was when deleted; undefined when there is none with this ID. */
  findDeletedRecord(blocId: string, id: number): Promise<StoredRecord | undefined>;
  /** Moves a deleted record back to the records with its ID; false when there was none. */
  moveFromDeleted(blocId: string, id: number): Promise<boolean>;
  /**
   * Holds a user's idempotency key until the transaction ends, across processes. False
   * when another transaction holds it: the caller ends this one and tries again, rather
   * than wait while holding other locks (a group commit holds a bloc's).
   */
  claimIdempotencyKey(userId: string, keyHash: string): Promise<boolean>;
  /** The entry kept for a user's key, unless it was kept before `notBefore` (ms since the epoch). */
  findIdempotencyKey(userId: string, keyHash: string, notBefore: number): Promise<IdempotencyEntry | undefined>;
  /** Keeps an entry, replacing an expired one of the same user and key. */
  saveIdempotencyKey(entry: IdempotencyEntry): Promise<void>;
  /** Raises the saved counter of an autogenerate template to at least `last`. */
  saveSequence(blocId: string, slug: string, template: SequenceTemplate, last: number): Promise<void>;
  /** Counter changes of this unit; written when the transaction commits. */
  readonly counters: CounterDeltas;
  /**
   * Counter changes of units that ran earlier in the same transaction (a group commit)
   * and are not in the counter tables yet.
   */
  readonly pending: CounterDeltas;
}

export interface TransactionOptions {
  /**
   * A bloc ID: units of the same bloc that arrive together may share one transaction
   * (group commit), each in a savepoint of its own, so that one refused unit undoes only itself.
   */
  readonly group?: string | undefined;
}

/**
 * Everything the service keeps. One implementation per engine (store/<engine>/); the
 * domain sees only this interface.
 *
 * Reads and config writes may be called directly; each is atomic. Record writes, and
 * any change that must commit with others, run in `transaction`. A read that must agree
 * with itself (a page with its counts) runs in `snapshot`. Neither nests: inside `work`,
 * use only the `tx`/`view` it is given.
 */
export interface Store extends StoreReads, ConfigWrites, EventStore {
  /** Runs `work` in one write transaction; if it throws, nothing it did is kept. */
  transaction<T>(work: (tx: Tx) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /** Runs `work` against one consistent snapshot of the store. */
  snapshot<T>(work: (view: StoreReads) => Promise<T>): Promise<T>;

  /**
   * Marks content as in use by an upload in progress, before the content is put in
   * place; returns the hold's ID. A record that takes the file releases the hold.
   */
  holdContent(sha256: string, createdAt: string): Promise<string>;
  /**
   * Releases an upload's hold; if then no record and no other upload uses the content,
   * calls `remove` (while no other writer can take a new hold on it).
   */
  releaseContent(hold: string, sha256: string, remove: () => void): Promise<void>;

  /** Deletes idempotency entries kept before `before` (ms since the epoch); returns how many. */
  purgeIdempotencyKeys(before: number): Promise<number>;
  /**
   * Counts one request of a token in a time window (a window number: milliseconds since
   * the epoch divided by the window's length) and returns the window's count so far,
   * this one included. PostgreSQL counts in the database, for every process; SQLite in
   * the process (a count per request would cost a write to the file).
   */
  countRequest(tokenId: string, window: number): Promise<number>;

  /**
   * Loads records of one bloc in bulk, all in one transaction that holds the bloc's
   * other writers off: each batch is written as it arrives (so memory holds one batch),
   * then `count` runs in the same transaction (the domain counts what was loaded). If a
   * batch, the source or the counting fails, nothing is kept. Checks no rule of the bloc:
   * the caller's (domain/bulk-import.ts).
   */
  bulkImport(blocId: string, batches: AsyncIterable<readonly NewRecord[]>, count: (tx: Tx) => Promise<void>): Promise<BulkImported>;
  /**
   * Brings the planner's statistics up to date after a large load (PostgreSQL: ANALYZE;
   * SQLite keeps none: value-plan.ts chooses from the counters), so that nothing answered
   * from the loaded rows waits for autovacuum, which lags minutes behind a load or is off.
   */
  refreshStatistics(): Promise<void>;
  /** Rows of a table in primary-key order, after `after` (a row's key columns), at most `limit`. */
  exportRows(table: TableName, after: Row | undefined, limit: number): Promise<Row[]>;
  /** Inserts rows as they are (IDs kept) into an instance being filled by a copy; key sequences move past them. */
  importRows(table: TableName, rows: readonly Row[]): Promise<void>;
  /** Rows in each table. */
  tableSizes(): Promise<Record<TableName, number>>;
  /**
   * Runs `work` over one consistent snapshot of every table while writers go on (a
   * backup): all it reads is the state after some commit and before the next.
   */
  exportSnapshot<T>(work: (rows: RowSource) => Promise<T>): Promise<T>;
  /** The engine's durability settings, and warnings for those that weaken it. */
  durability(): Promise<Durability>;

  /** Every user, by ID. */
  listUsers(): Promise<User[]>;
  /**
   * Counts one sign-in attempt for an email (its SHA-256, hex) in every process's shared
   * count: a window begins at the first attempt and lasts `windowMs`; an attempt after it
   * begins a new one. Rows of windows that have passed are deleted now and then, so the
   * count holds at most the emails tried within the last window.
   */
  countSignInAttempt(emailHash: string, nowMs: number, windowMs: number): Promise<SignInAttempts>;
  /** Forgets an email's attempts (after a sign-in that succeeded). */
  clearSignInAttempts(emailHash: string): Promise<void>;
  /** A user's tokens, revoked ones included, oldest first (those of the same second by ID). */
  listTokens(userId: string): Promise<TokenInfo[]>;
  /**
   * Records that a token was used at `at` (never moving it back). Changes nothing a cache
   * holds: the schema keeps it from bumping the generation.
   */
  noteTokenUse(tokenId: string, at: string): Promise<void>;

  /** Resolves when the database answers a trivial query, throws when it cannot be reached (GET /readyz). */
  ping(): Promise<void>;

  close(): Promise<void>;
}

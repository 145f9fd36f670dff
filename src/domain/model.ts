/** The shapes the domain works with; engines return these and nothing richer. */

export type UserRole = "admin" | "member";
export const USER_ROLES: readonly UserRole[] = ["admin", "member"];

export type Permission = "read" | "add" | "update" | "delete";
export const PERMISSIONS: readonly Permission[] = ["read", "add", "update", "delete"];

/** Which records of a bloc a user sees: all, only their own, or none (unless they hold seeHidden). */
export type RestrictionMode = "none" | "own" | "hidden";
export const RESTRICTION_MODES: readonly RestrictionMode[] = ["none", "own", "hidden"];

export interface User {
  readonly id: string;
  readonly name: string;
  readonly role: UserRole;
  /** Values matched against a bloc's profile-filtered fields (a site, a line, …). */
  readonly profile: readonly string[];
  /** What the user signs in with (POST /api/authenticate), trimmed and lower-cased; null: no password sign-in. */
  readonly email: string | null;
  /** A disabled user's tokens and sign-ins are refused; nothing of theirs is removed. */
  readonly disabled: boolean;
}

/** A named group of users whose grants its members share. */
export interface Role {
  readonly id: string;
  readonly name: string;
}

/** What a token may do beyond its user's rights: null means no narrowing. */
export interface TokenScope {
  readonly permissions: readonly Permission[] | null;
  readonly blocs: readonly string[] | null;
}

export interface Token {
  readonly id: string;
  readonly userId: string;
  readonly name: string | null;
  /** `YYYY-MM-DD HH:MM:SS` in the service's time zone, or null for no expiry. */
  readonly expiresAt: string | null;
  readonly revokedAt: string | null;
  readonly scope: TokenScope;
}

/** A token as the admin listing shows it: what it may do and when it was made and used, never its secret or hash. */
export interface TokenInfo extends Token {
  /** `YYYY-MM-DD HH:MM:SS` in the service's time zone. */
  readonly createdAt: string;
  /** When it last authenticated a request, to the minute (domain/token-use.ts); null if never. */
  readonly lastUsedAt: string | null;
}

export type FieldType = "text" | "number" | "date" | "datetime" | "select" | "file" | "autogenerate";
export const FIELD_TYPES: readonly FieldType[] = ["text", "number", "date", "datetime", "select", "file", "autogenerate"];

/** What a field accepts. Values stay strings; these rules say which strings. */
export interface FieldRules {
  readonly type: FieldType;
  /** The allowed values of a `select` field. */
  readonly options: readonly string[] | null;
  /** A value must be given (and not be ""). */
  readonly required: boolean;
  /** No two records of the bloc may hold the same non-empty value. */
  readonly unique: boolean;
  /** At most this many characters. */
  readonly maxLength: number | null;
  /** The whole value must match this regular expression. */
  readonly pattern: string | null;
  /** How an `autogenerate` field builds its values, e.g. `INV-{seq:5}`. */
  readonly format: string | null;
  /**
   * Accepted and kept for compatibility only: the store keeps a value index on every
   * field (docs/performance.md, "Searching any field"), marked or not.
   */
  readonly indexed: boolean;
}

export interface Field extends FieldRules {
  readonly slug: string;
  readonly name: string;
  /** When set, non-admins see only records whose value here is one of their profile values. */
  readonly applyProfileFilter: boolean;
}

export type ScanLimitPeriod = "day" | "week" | "month";
export const SCAN_LIMIT_PERIODS: readonly ScanLimitPeriod[] = ["day", "week", "month"];

/** A module (the spec's "job"), which blocs may belong to. */
export interface Module {
  readonly id: string;
  readonly name: string;
}

export interface BlocSettings {
  /** Every signed-in user may read and add. */
  readonly openToAllUsers: boolean;
  /** False refuses add-data to everyone but admins. */
  readonly acceptingData: boolean;
  /** The restriction of users who have no restriction of their own on this bloc. */
  readonly restriction: RestrictionMode;
  /** The module this bloc belongs to; add-data's jobID must name it when given. */
  readonly moduleId: string | null;
  /** add-data must carry a jobID. */
  readonly requireJob: boolean;
  /** At most this many records per period (or ever); null for no limit. */
  readonly scanLimit: number | null;
  /** The period the scan limit counts over; null counts every record ever. */
  readonly scanLimitPeriod: ScanLimitPeriod | null;
}

export interface Bloc extends BlocSettings {
  readonly id: string;
  readonly name: string;
  readonly fields: readonly Field[];
}

/**
 * The bloc's profile-filtered fields: a member with a profile sees only the records holding
 * one of its values in each (access.ts), and the counters keep a segment per value (counting/keys.ts).
 */
export function profileSlugs(bloc: Pick<Bloc, "fields">): string[] {
  return bloc.fields.filter((f) => f.applyProfileFilter).map((f) => f.slug);
}

export interface Grant {
  readonly read: boolean;
  readonly add: boolean;
  readonly update: boolean;
  readonly delete: boolean;
  readonly seeHidden: boolean;
}

export interface StoredRecord {
  readonly id: number;
  readonly createdAt: string;
  readonly userId: string;
  readonly submittedStatus: number;
  readonly jobId: string | null;
  /** Field slug → value; a field never set is absent. */
  readonly values: Readonly<Record<string, string>>;
}

/** The record ID, matchable by update-records' `searchItems` beside the field slugs. */
export const RECORD_ID_KEY = "service_entry_row_id";
/** The record status (1 submitted, 0 draft), matchable and settable by update-records. */
export const STATUS_KEY = "submitted_status";
export const SUBMITTED = 1;
export const DRAFT = 0;

/** One condition of a filter: the value under `key` equals one of `values`. */
export interface MatchCondition {
  /** A field slug, RECORD_ID_KEY or STATUS_KEY. */
  readonly key: string;
  readonly values: readonly string[];
}

/**
 * The records of a bloc a user may see, as conditions the engine puts into the query
 * itself, so that a hidden record is never loaded, counted or updated.
 */
export interface Visibility {
  /** No record at all. */
  readonly none?: boolean;
  /** Only records this user created. */
  readonly ownerId?: string;
  /** Profile filters: each listed field must hold one of the values (an empty list admits nothing). */
  readonly match?: readonly MatchCondition[];
}

/** Which records of one bloc a read or update concerns. All parts are ANDed. */
export interface RecordFilter {
  readonly blocId: string;
  readonly visibility?: Visibility;
  /** Inclusive bounds on `created_at`, both `YYYY-MM-DD HH:MM:SS`. */
  readonly from?: string;
  readonly to?: string;
  readonly match?: readonly MatchCondition[];
}

export type Order = "newest" | "oldest";

/** Position after which a keyset read continues. */
export interface RecordCursor {
  readonly createdAt: string;
  readonly id: number;
}

/** A file received with a record, as the store keeps it. */
export interface StoredFile {
  /** The stable reference a record's field holds and `GET /api/files/:ref` takes. */
  readonly ref: string;
  readonly blocId: string;
  readonly recordId: number;
  readonly slug: string;
  /** SHA-256 of the content, hex: where the bytes live (files are stored by content). */
  readonly sha256: string;
  readonly name: string;
  readonly type: string;
  readonly size: number;
}

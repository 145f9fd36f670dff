/** The shapes the domain works with; engines return these and nothing richer. */

export type UserRole = "admin" | "member";
export const USER_ROLES: readonly UserRole[] = ["admin", "member"];

export type Permission = "read" | "add" | "update";
export const PERMISSIONS: readonly Permission[] = ["read", "add", "update"];

/** Which records of a bloc a user sees: all, only their own, or none (unless they hold seeHidden). */
export type RestrictionMode = "none" | "own" | "hidden";
export const RESTRICTION_MODES: readonly RestrictionMode[] = ["none", "own", "hidden"];

export interface User {
  readonly id: string;
  readonly name: string;
  readonly role: UserRole;
  /** Values matched against a bloc's profile-filtered fields (a site, a line, …). */
  readonly profile: readonly string[];
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

export interface Field {
  readonly slug: string;
  readonly name: string;
  /** When set, non-admins see only records whose value here is one of their profile values. */
  readonly applyProfileFilter: boolean;
}

export interface BlocSettings {
  /** Every signed-in user may read and add. */
  readonly openToAllUsers: boolean;
  /** False refuses add-data to everyone but admins. */
  readonly acceptingData: boolean;
  /** The restriction of users who have no restriction of their own on this bloc. */
  readonly restriction: RestrictionMode;
}

export interface Bloc extends BlocSettings {
  readonly id: string;
  readonly name: string;
  readonly fields: readonly Field[];
}

export interface Grant {
  readonly read: boolean;
  readonly add: boolean;
  readonly update: boolean;
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

/** One condition of a filter: the value under `key` equals one of `values`. */
export interface MatchCondition {
  /** A field slug, or RECORD_ID_KEY. */
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

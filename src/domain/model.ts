/** The shapes the domain works with; engines return these and nothing richer. */

export type Role = "admin" | "member";
export const ROLES: readonly Role[] = ["admin", "member"];

export type Permission = "read" | "add" | "update";

export interface User {
  readonly id: string;
  readonly name: string;
  readonly role: Role;
}

export interface Token {
  readonly id: string;
  readonly userId: string;
  readonly name: string | null;
  /** `YYYY-MM-DD HH:MM:SS` in the service's time zone, or null for no expiry. */
  readonly expiresAt: string | null;
  readonly revokedAt: string | null;
}

export interface Field {
  readonly slug: string;
  readonly name: string;
}

export interface Bloc {
  readonly id: string;
  readonly name: string;
  readonly fields: readonly Field[];
}

export interface Grant {
  readonly read: boolean;
  readonly add: boolean;
  readonly update: boolean;
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

/** Which records of one bloc a read or update concerns. All parts are ANDed. */
export interface RecordFilter {
  readonly blocId: string;
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

/**
 * The shapes the client sends and receives. The four record endpoints follow the spec
 * (and nothing else), so they work against any service that implements it; the admin
 * types follow this service's admin API.
 */

/** A bloc ID: the spec allows a UUID or a numeric ID. */
export type BlocId = string | number;

/** A record as get-data returns it: the system fields beside one string per field slug. */
export type DataRecord<F extends string = string> = {
  readonly created_at: string;
  readonly submitted_status: number;
  readonly user_id: string;
  readonly service_entry_row_id: number;
} & { readonly [slug in F]: string };

export interface CountLimitInfo {
  readonly scan_limit: number | null;
  readonly scan_limit_time_logged: string | null;
  readonly scans_counted: number;
  readonly limit_reached: number;
}

export interface AddDataInput {
  readonly scanStationID: BlocId;
  readonly jobID?: string | number;
  /** Field slug → value; the client JSON-encodes it as the spec asks. */
  readonly dataToAdd: Readonly<Record<string, string>>;
  /** Sent as an Idempotency-Key header, which this service honours and others ignore. */
  readonly idempotencyKey?: string;
}

export interface AddDataResult {
  readonly returnedStationID: number;
  readonly autogenerateReplacements: readonly unknown[];
}

export interface GetDataQuery {
  readonly blocId: BlocId;
  readonly resultLimit?: number;
  readonly currentPage?: number;
  /** false (default): newest first; true: oldest first. */
  readonly reverse?: boolean;
  /** `YYYY-MM-DD HH:MM:SS` (or `YYYY-MM-DD`). */
  readonly fromDate?: string;
  readonly toDate?: string;
}

export interface GetDataResult<F extends string = string> {
  /** The page's records, in the requested order. */
  readonly records: DataRecord<F>[];
  /** Every matching record, not only this page's. */
  readonly count: number;
  readonly fieldCounts: Readonly<Record<string, Readonly<Record<string, number>>>>;
  readonly countLimitInfo: CountLimitInfo;
  /** Field slug → display name. */
  readonly fieldNames: Readonly<Record<string, string>>;
  /** This service only, when a field's listing in `fieldCounts` leaves values out: those fields' slugs. */
  readonly fieldCountsPartial?: readonly string[];
}

export interface ReportQuery {
  readonly stationID: BlocId;
  /** "all", the slugs (or report columns) to include, or the spec's object of slug → true. */
  readonly fieldsToReport: "all" | readonly string[] | Readonly<Record<string, boolean>>;
  readonly requestedReportData?: { readonly reportFromDate?: string; readonly reportToDate?: string };
  readonly dataFilteringData?: {
    /** Field slug → accepted values. */
    readonly filterDataToQuery?: Readonly<Record<string, readonly string[]>>;
    readonly currentPage?: number;
    readonly resultLimit?: number;
    readonly reverse?: boolean;
  };
}

export type ReportRow = Readonly<Record<string, string>>;
export type ReportFormat = "xlsx" | "csv";

export interface DeleteInput {
  readonly blocId: BlocId;
  /** Field slug, `service_entry_row_id` or `submitted_status` → the exact value a record must hold. */
  readonly searchItems: Readonly<Record<string, string>>;
}

export interface UpdateInput {
  readonly blocId: BlocId;
  readonly fieldsToUpdate: Readonly<Record<string, string>>;
  readonly searchItems: Readonly<Record<string, string>>;
}

// ---- Admin API (this service) ----

export type UserRole = "admin" | "member";
export type Permission = "read" | "add" | "update" | "delete";
export type RestrictionMode = "none" | "own" | "hidden";
export type FieldType = "text" | "number" | "date" | "datetime" | "select" | "file" | "autogenerate";

export interface User {
  readonly id: string;
  readonly name: string;
  readonly role: UserRole;
  readonly profile: readonly string[];
  /** What the user signs in with (lower-cased); null: no password sign-in. */
  readonly email: string | null;
  /** A disabled user's tokens and sign-ins are refused. */
  readonly disabled: boolean;
}

/** An email and a password, for a new user (both optional; a password has at least 10 characters). */
export interface AccountInput {
  readonly email?: string;
  readonly password?: string;
}

/** What an admin may change of a user; absent keys stay as they are. */
export interface UserUpdate {
  readonly name?: string;
  /** null removes it, and with it password sign-in. */
  readonly email?: string | null;
  /** true refuses every token of the user, and their sign-in, at once. */
  readonly disabled?: boolean;
}

/** The answer to a password sign-in (BlocClient.authenticate). */
export interface SignedIn {
  /** A token of the user, expiring after the service's BLOC_SESSION_HOURS. */
  readonly token: string;
  /** `YYYY-MM-DD HH:MM:SS` in the service's time zone. */
  readonly expiresAt: string;
  readonly user: { readonly id: string; readonly name: string; readonly role: UserRole };
}

export interface Role { readonly id: string; readonly name: string }
export interface Module { readonly id: string; readonly name: string }

/** A token as the listing shows it: never its secret. */
export interface TokenInfo {
  readonly id: string;
  readonly name: string | null;
  readonly expiresAt?: string | null;
  readonly [more: string]: unknown;
}

export interface IssuedToken { readonly id: string; readonly token: string }

export interface TokenInput {
  readonly name?: string;
  /** `YYYY-MM-DD HH:MM:SS` in the service's time zone. */
  readonly expiresAt?: string;
  readonly permissions?: readonly Permission[];
  readonly blocs?: readonly BlocId[];
}

export interface FieldRules {
  readonly type?: FieldType;
  readonly options?: readonly string[] | null;
  readonly required?: boolean;
  readonly unique?: boolean;
  readonly maxLength?: number | null;
  readonly pattern?: string | null;
  readonly format?: string | null;
  readonly indexed?: boolean;
}

export interface FieldInput extends FieldRules {
  readonly name: string;
  readonly slug?: string;
  readonly applyProfileFilter?: boolean;
}

export interface Field extends Required<FieldRules> {
  readonly slug: string;
  readonly name: string;
  readonly applyProfileFilter: boolean;
}

export interface BlocSettings {
  readonly openToAllUsers?: boolean;
  readonly acceptingData?: boolean;
  readonly restriction?: RestrictionMode;
  readonly moduleId?: string | number | null;
  readonly requireJob?: boolean;
  readonly scanLimit?: number | null;
  readonly scanLimitPeriod?: "day" | "week" | "month" | null;
}

export interface BlocInput extends BlocSettings {
  readonly name: string;
  readonly fields?: readonly FieldInput[];
  readonly id?: BlocId;
}

export interface Bloc extends Required<BlocSettings> {
  readonly id: string;
  readonly name: string;
  readonly fields: readonly Field[];
}

export interface Grant {
  readonly read?: boolean;
  readonly add?: boolean;
  readonly update?: boolean;
  readonly delete?: boolean;
  readonly seeHidden?: boolean;
}

/** A field as GET /api/blocs/:blocId/fields describes it to a form. */
export interface FormField extends Required<Omit<FieldRules, "indexed">> {
  readonly slug: string;
  readonly name: string;
}

/** GET /api/blocs/:blocId/fields: what a form needs to add to a bloc, and what the caller may do there. */
export interface BlocFields {
  readonly blocId: string;
  readonly name: string;
  readonly acceptingData: boolean;
  readonly requireJob: boolean;
  /** In the bloc's order; retired fields are left out. */
  readonly fields: readonly FormField[];
  /** The bloc's module (add-data's jobID), if it has one. */
  readonly modules: readonly Module[];
  readonly permissions: Readonly<Record<Permission, boolean>>;
}

/** GET /api/admin/blocs/:blocId/access: every grant, role grant and restriction on a bloc. */
export interface BlocAccess {
  readonly grants: readonly (Required<Grant> & { readonly userId: string; readonly userName: string })[];
  readonly roleGrants: readonly (Required<Grant> & { readonly roleId: string; readonly roleName: string })[];
  readonly restrictions: readonly { readonly userId: string; readonly userName: string; readonly mode: RestrictionMode }[];
}

/** GET /api/me: the token's user and what it may do on each bloc it may use. */
export interface Me {
  readonly user: User;
  readonly roles: readonly Role[];
  /** What the token is narrowed to (null: not narrowed). A narrowed token cannot use the admin API. */
  readonly token: { readonly permissions: readonly Permission[] | null; readonly blocs: readonly string[] | null };
  readonly blocs: readonly {
    readonly id: string;
    readonly name: string;
    readonly permissions: readonly Permission[];
    readonly restriction: RestrictionMode;
    readonly seeHidden: boolean;
  }[];
}

export interface HistoryItem {
  /** An update, or the record's deletion (every value it held, to "") or restore (every value, from ""). */
  readonly action: "updated" | "deleted" | "restored";
  readonly at: string;
  readonly userId: string;
  readonly tokenId: string | null;
  /** Field slug (or `submitted_status`) → what it was and what it became. */
  readonly changes: Readonly<Record<string, { readonly from: string; readonly to: string }>>;
}

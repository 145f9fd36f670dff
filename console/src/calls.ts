import type { FetchBlocClient } from "./api.js";
import { refusedAnswer } from "../../src/client/errors.js";
import type { FieldType, User } from "../../src/client/types.js";

/**
 * Typed calls for the endpoints issue 21 adds (sign-in by password, the fields a form
 * needs, deleting and restoring records, removals and the access listing), over the
 * client's own transport, so that their refusals are BlocApiErrors like every other call's.
 */

const seg = (id: string | number): string => encodeURIComponent(String(id));

// ---- Sign-in ----

export interface Authenticated {
  readonly token: string;
  readonly expiresAt: string | null;
  readonly user: { readonly id: string; readonly name: string; readonly role: string };
}

/** Why a sign-in was refused, and for a lockout how long to wait. */
export class SignInRefused extends Error {
  override readonly name = "SignInRefused";
  constructor(readonly status: number, message: string, readonly retryAfterSeconds: number | null) { super(message); }
}

/**
 * POST /api/authenticate: sent without an Authorization header (there is no token yet),
 * and the password goes in the body only.
 */
export async function authenticate(email: string, password: string): Promise<Authenticated> {
  const response = await fetch(new URL("/api/authenticate", window.location.origin), {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email, password }),
    credentials: "omit", cache: "no-store",
  });
  const raw = await response.text();
  if (response.status === 200) return JSON.parse(raw) as Authenticated;
  const refused = refusedAnswer(response.status, "/api/authenticate", raw);
  const retry = Number(response.headers.get("retry-after"));
  throw new SignInRefused(response.status, refused.text, Number.isFinite(retry) && retry > 0 ? retry : null);
}

// ---- What a form needs ----

export interface FormField {
  readonly slug: string;
  readonly name: string;
  readonly type: FieldType;
  readonly required: boolean;
  readonly options: readonly string[] | null;
  readonly maxLength: number | null;
  readonly pattern: string | null;
  readonly unique: boolean;
  readonly format: string | null;
}

/** The caller's permissions on the bloc, one key per permission the service knows. */
export type Permissions = Readonly<Record<string, boolean>>;

export interface BlocForm {
  readonly blocId: string;
  readonly name: string;
  readonly acceptingData: boolean;
  readonly requireJob: boolean;
  readonly fields: readonly FormField[];
  readonly modules: readonly { readonly id: string; readonly name: string }[];
  readonly permissions: Permissions;
}

/** GET /api/blocs/:blocId/fields, open to any user holding a grant on the bloc. */
export function blocForm(client: FetchBlocClient, blocId: string): Promise<BlocForm> {
  return client.transport.json<BlocForm>({ method: "GET", path: `/api/blocs/${seg(blocId)}/fields` }, [200]);
}

/** The per-field messages of add-data's 400 (`fields`: slug → message), if the refusal has them. */
export function fieldMessages(body: unknown): Record<string, string> {
  if (body === null || typeof body !== "object") return {};
  const fields = (body as { fields?: unknown }).fields;
  if (fields === null || typeof fields !== "object") return {};
  return Object.fromEntries(Object.entries(fields).filter((entry): entry is [string, string] => typeof entry[1] === "string"));
}

// ---- Records ----

export const RECORD_ID = "service_entry_row_id";

export async function deleteRecords(client: FetchBlocClient, blocId: string, searchItems: Readonly<Record<string, string>>): Promise<number[]> {
  const answer = await client.transport.json<{ deleted_record_ids: number[] }>({
    method: "POST", path: "/api/delete-records-by-matching-values", json: { blocId, searchItems },
  }, [200]);
  return answer.deleted_record_ids;
}

export async function restoreRecord(client: FetchBlocClient, blocId: string, recordId: string): Promise<void> {
  await client.transport.json<unknown>({ method: "POST", path: `/api/admin/blocs/${seg(blocId)}/records/${seg(recordId)}/restore` }, [200]);
}

// ---- Removals ----

async function remove(client: FetchBlocClient, path: string): Promise<void> {
  await client.transport.json<undefined>({ method: "DELETE", path }, [204]);
}

export const retireField = (client: FetchBlocClient, blocId: string, slug: string): Promise<void> =>
  remove(client, `/api/admin/blocs/${seg(blocId)}/fields/${seg(slug)}`);
export const deleteBloc = (client: FetchBlocClient, blocId: string, withRecords: boolean): Promise<void> =>
  remove(client, `/api/admin/blocs/${seg(blocId)}${withRecords ? "?withRecords=true" : ""}`);
export const deleteRole = (client: FetchBlocClient, roleId: string): Promise<void> => remove(client, `/api/admin/roles/${seg(roleId)}`);
export const deleteModule = (client: FetchBlocClient, moduleId: string): Promise<void> => remove(client, `/api/admin/modules/${seg(moduleId)}`);

// ---- Accounts ----

export interface Account extends User {
  readonly email: string | null;
  readonly disabled: boolean;
}

/** POST /api/admin/users with the optional email and password a person signs in with. */
export function createAccount(client: FetchBlocClient, input: { name: string; role: string; email?: string; password?: string }): Promise<Account> {
  return client.transport.json<Account>({ method: "POST", path: "/api/admin/users", json: input }, [200, 201]);
}

export function updateAccount(client: FetchBlocClient, userId: string, changes: { disabled?: boolean; email?: string | null }): Promise<Account> {
  return client.transport.json<Account>({ method: "PATCH", path: `/api/admin/users/${seg(userId)}`, json: changes }, [200]);
}

export async function setPassword(client: FetchBlocClient, userId: string, password: string): Promise<void> {
  await client.transport.json<undefined>({ method: "PUT", path: `/api/admin/users/${seg(userId)}/password`, json: { password } }, [204]);
}

// ---- A bloc's access ----

/** A grant's permission flags beside who holds it (read, add, update, delete, seeHidden: `true` when granted). */
type Flags = { readonly [permission: string]: unknown };

export interface BlocAccess {
  readonly grants: readonly ({ readonly userId: string; readonly userName: string } & Flags)[];
  readonly roleGrants: readonly ({ readonly roleId: string; readonly roleName: string } & Flags)[];
  readonly restrictions: readonly { readonly userId: string; readonly userName: string; readonly mode: string }[];
}

export function blocAccess(client: FetchBlocClient, blocId: string): Promise<BlocAccess> {
  return client.transport.json<BlocAccess>({ method: "GET", path: `/api/admin/blocs/${seg(blocId)}/access` }, [200]);
}

import { refusedAnswer } from "../../src/client/errors.js";
import type { BlocFields, FormField, SignedIn } from "../../src/client/types.js";

/**
 * Password sign-in, which the fetch client does not cover (it is built around a token),
 * and the names the forms use for what the fields endpoint answers. Every other call of
 * issue 21 is a method of the typed client.
 */

export type BlocForm = BlocFields;
export type { FormField };

/** The key update-records and delete-records take to address one record by its ID. */
export const RECORD_ID = "service_entry_row_id";

/** Why a sign-in was refused, and for a lockout how long to wait. */
export class SignInRefused extends Error {
  override readonly name = "SignInRefused";
  constructor(readonly status: number, message: string, readonly retryAfterSeconds: number | null) { super(message); }
}

/**
 * POST /api/authenticate: sent without an Authorization header (there is no token yet),
 * and the password goes in the body only.
 */
export async function authenticate(email: string, password: string): Promise<SignedIn> {
  const response = await fetch(new URL("/api/authenticate", window.location.origin), {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email, password }),
    credentials: "omit", cache: "no-store",
  });
  const raw = await response.text();
  if (response.status === 200) return JSON.parse(raw) as SignedIn;
  const refused = refusedAnswer(response.status, "/api/authenticate", raw);
  const retry = Number(response.headers.get("retry-after"));
  throw new SignInRefused(response.status, refused.text, Number.isFinite(retry) && retry > 0 ? retry : null);
}

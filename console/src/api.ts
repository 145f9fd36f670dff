import { BlocApiError } from "../../src/client/errors.js";
import { FetchBlocClient } from "../../src/client/fetch-client.js";
import type { Me } from "../../src/client/types.js";

export type { FetchBlocClient };

/**
 * The typed client for this page's own origin: the console talks to the service that
 * served it, and nothing else. With `onSessionEnded`, any 401 is checked: the spec's
 * endpoints also answer 401 for "no access to this bloc", so the token itself is asked
 * about (GET /api/me); if that is refused too, the token was revoked, expired or its user
 * disabled, and the session ends rather than leaving the page looking signed in.
 */
export function clientFor(token: string, onSessionEnded?: () => void): FetchBlocClient {
  if (!onSessionEnded) return new FetchBlocClient({ url: window.location.origin, token });
  let ended = false;
  const check = async (): Promise<void> => {
    const me = await fetch(new URL("/api/me", window.location.origin), { headers: { authorization: `Bearer ${token}` } }).catch(() => undefined);
    if (me?.status === 401 && !ended) { ended = true; onSessionEnded(); }
  };
  const watched = async (input: URL, init: RequestInit): Promise<Response> => {
    const response = await fetch(input, init);
    if (response.status === 401) void check();
    return response;
  };
  return new FetchBlocClient({ url: window.location.origin, token, fetch: watched });
}

/** What the sign-in page says after a 401 ended the session. */
export const SESSION_ENDED = "Your session ended — sign in again.";

/** What a failure says to a person: the service's own words when it refused, else the browser's. */
export function errorMessage(error: unknown): string {
  if (error instanceof BlocApiError) return `${error.text} (${error.status})`;
  if (error instanceof Error) return error.message;
  return String(error);
}

/** The admin API is open to admins' tokens that are not narrowed by a scope. */
export function isAdmin(me: Me): boolean {
  return me.user.role === "admin" && me.token.permissions === null && me.token.blocs === null;
}

export function mayOn(me: Me, blocId: string, permission: "read" | "add" | "update"): boolean {
  return me.blocs.some((bloc) => bloc.id === blocId && bloc.permissions.includes(permission));
}

/** Lists of blocs, users and roles read in name order (the API lists them by creation). */
export function byName<T extends { readonly name: string }>(items: readonly T[]): T[] {
  return [...items].sort((a, b) => a.name.localeCompare(b.name, "en") || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

import { BlocApiError } from "../../src/client/errors.js";
import { FetchBlocClient } from "../../src/client/fetch-client.js";
import type { Me } from "../../src/client/types.js";

export type { FetchBlocClient };

/** The typed client for this page's own origin: the console talks to the service that served it, and nothing else. */
export function clientFor(token: string): FetchBlocClient {
  return new FetchBlocClient({ url: window.location.origin, token });
}

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

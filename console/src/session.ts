import type { FetchBlocClient } from "./api.js";
import type { Me } from "../../src/client/types.js";

/** The signed-in session every screen is given: the token's client and whom it signs in. */
export interface Session {
  readonly client: FetchBlocClient;
  readonly me: Me;
  /** Asks /api/me again (after an admin changes their own access, for instance). */
  readonly refresh: () => void;
}

/**
 * The signed-in token lives in sessionStorage only: it goes when the tab closes, is never
 * put in a URL (so never in history, a Referer or a server's access log) and never logged.
 */
const KEY = "bloc-console-token";

export function storedToken(): string | null {
  try {
    return sessionStorage.getItem(KEY);
  } catch {
    // Storage can be disabled; the user then signs in again on each load.
    return null;
  }
}

export function storeToken(token: string): void {
  try { sessionStorage.setItem(KEY, token); } catch { /* kept in memory only, for this page */ }
}

export function forgetToken(): void {
  try { sessionStorage.removeItem(KEY); } catch { /* nothing was stored */ }
}

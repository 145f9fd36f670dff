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

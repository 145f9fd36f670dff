import type { ComponentChildren } from "preact";
import { errorMessage } from "../api.js";

/**
 * Messages that screen readers announce: a polite status for outcomes, an alert for
 * failures. The live region exists before its text changes, as announcements require.
 */
export function Status({ children, id }: { children?: ComponentChildren; id?: string }) {
  return <p class="status" role="status" aria-live="polite" id={id}>{children}</p>;
}

export function Failure({ error, prefix }: { error: unknown; prefix?: string }) {
  if (error === null || error === undefined) return <div role="alert" class="alert-empty" />;
  return <p class="alert" role="alert">{prefix ? `${prefix}: ` : ""}{errorMessage(error)}</p>;
}

export function Loading({ what }: { what: string }) {
  return <p class="loading" role="status" aria-live="polite">Loading {what}…</p>;
}

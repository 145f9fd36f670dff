/**
 * Every refusal a service answers, whichever key its body uses: the spec's endpoints say
 * what went wrong under `error` for most failures and under `message` for some
 * (update-records-by-matching-values, get-data's malformed bodies); `text` holds it either way.
 */
export class BlocApiError extends Error {
  override readonly name = "BlocApiError";

  constructor(
    /** The HTTP status (400, 401, 403, 404, …). */
    readonly status: number,
    /** The path called, e.g. `/api/get-data` or `/api/admin/users/7/tokens`. */
    readonly endpoint: string,
    /** The service's explanation: the body's `error` or `message`, or the raw body when it is not JSON. */
    readonly text: string,
    /** The parsed JSON body, when it was JSON. */
    readonly body?: unknown,
  ) {
    super(`${endpoint} answered ${status}: ${text}`);
  }
}

/** The text of an error body: `error` first, then `message`, else the body itself. */
export function errorText(raw: string, json: unknown): string {
  if (json !== null && typeof json === "object") {
    const { error, message } = json as { error?: unknown; message?: unknown };
    if (typeof error === "string") return error;
    if (typeof message === "string") return message;
  }
  return raw.trim() === "" ? "(empty body)" : raw;
}

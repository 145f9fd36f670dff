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

  /** A refusal of field values (add-data, update-records): each failing field's slug → what is wrong with its value. */
  get fields(): Readonly<Record<string, string>> | undefined {
    const fields = (this.body as { fields?: unknown } | undefined)?.fields;
    return fields !== null && typeof fields === "object" ? fields as Record<string, string> : undefined;
  }
}

/** The text of an error body: `error` first, then `message`, else the body itself. */
function errorText(raw: string, json: unknown): string {
  if (json !== null && typeof json === "object") {
    const { error, message } = json as { error?: unknown; message?: unknown };
    if (typeof error === "string") return error;
    if (typeof message === "string") return message;
  }
  return raw.trim() === "" ? "(empty body)" : raw;
}

function parsed(raw: string): unknown {
  try { return raw === "" ? undefined : JSON.parse(raw); } catch { return undefined; }
}

/** A refused answer's body, read whole, as the BlocApiError to throw. */
export function refusedAnswer(status: number, endpoint: string, raw: string): BlocApiError {
  const json = parsed(raw);
  return new BlocApiError(status, endpoint, errorText(raw, json), json);
}

/**
 * The JSON of an answer expected with one of the `ok` statuses (a 204 may be empty);
 * any other status, or a body that is not JSON, is thrown as a BlocApiError. Both
 * transports (node:http and fetch) read answers through it.
 */
export function jsonAnswer<T>(status: number, endpoint: string, raw: string, ok: readonly number[]): T {
  if (!ok.includes(status)) throw refusedAnswer(status, endpoint, raw);
  const json = parsed(raw);
  if (status !== 204 && json === undefined) {
    throw new BlocApiError(status, endpoint, `expected a JSON body, got ${JSON.stringify(raw.slice(0, 200))}`);
  }
  return json as T;
}

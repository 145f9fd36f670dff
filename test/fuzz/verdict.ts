import type { FuzzRequest, Shape } from "./request.js";
import type { Answer } from "./send.js";

/**
 * The keys an error body may carry, per endpoint and status, as src/http/error-shapes.ts
 * lays out the spec's table: get-data words a malformed body with `message`, and
 * update-records uses `message` except for a missing parameter (`error`).
 */
function allowedKeys(shape: Shape, status: number): readonly string[] {
  // Headers over the limit are refused before the URL is read, so before the route (and its key) is known.
  if (status === 431) return ["error", "message"];
  if (shape === "get-data" && status === 400) return ["error", "message"];
  if (shape === "update-records") return status === 400 ? ["message", "error"] : ["message"];
  return ["error"];
}

const DEBUG_KEYS = ["trace", "file", "line", "stack"];

/** Why an answer is not the refusal the request had to get; empty when it is. */
export function judge(request: FuzzRequest, answer: Answer): string[] {
  if (answer.wireFailure !== undefined) return [answer.wireFailure];
  if (answer.closedWithoutAnswer) return [];
  const status = answer.status;
  if (status >= 500) return [`${status} server error`];
  if (status < 400 || status > 499) return [`accepted: ${status}`];
  const type = answer.headers["content-type"] ?? "";
  if (!/^application\/json\b/i.test(type)) return [`${status} answer is not JSON (content-type "${type}")`];
  let body: unknown;
  try {
    body = JSON.parse(answer.body.toString("utf8"));
  } catch {
    return [`${status} answer body does not parse as JSON`];
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) return [`${status} answer body is not a JSON object`];
  const record = body as Record<string, unknown>;
  const keys = allowedKeys(request.shape, status);
  const failures: string[] = [];
  if (!keys.some((key) => typeof record[key] === "string" && (record[key]).length > 0)) {
    failures.push(`${status} answer lacks the endpoint's key (${keys.join(" or ")}): keys ${JSON.stringify(Object.keys(record))}`);
  }
  const debug = DEBUG_KEYS.filter((key) => key in record);
  if (debug.length > 0) failures.push(`${status} answer carries debug fields ${debug.join(", ")}`);
  return failures;
}

/** The status a request is counted under: its number, or what happened instead. */
export function statusLabel(answer: Answer): string {
  if (answer.wireFailure !== undefined && answer.status === 0) return "no answer";
  if (answer.closedWithoutAnswer) return "closed";
  return String(answer.status);
}

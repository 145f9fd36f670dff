import { RuleViolationError, SignInLockedError, type ServiceError } from "../domain/errors.js";

/** The routes whose error bodies the spec fixes, plus the admin API. */
export type Endpoint = "add-data" | "get-data" | "get-data-report" | "update-records" | "events" | "bloc-fields" | "admin" | "public";

type Key = "error" | "message";

interface Shape {
  /** Key for 400s from bad parameters, 404, 408, 409, 413, 415 and 500. */
  readonly failure: Key;
  /** Key for a body that is not JSON (the spec's get-data answers this one with `message`). */
  readonly malformed: Key;
  readonly unauthenticated: Key;
  /** The endpoint's answer to "this user may not do this on this bloc". */
  readonly denied: { readonly status: number; readonly key: Key; readonly text: string };
}

const NOT_AUTHORISED = "You are not authorized to access this bloc";

/** The spec's Errors table, in one place. */
const SHAPES: Readonly<Record<Endpoint, Shape>> = {
  "add-data": {
    failure: "error", malformed: "error", unauthenticated: "error",
    denied: { status: 403, key: "error", text: "You do not have permission to add or edit data on this form." },
  },
  "get-data": {
    failure: "error", malformed: "message", unauthenticated: "error",
    denied: { status: 401, key: "error", text: NOT_AUTHORISED },
  },
  "get-data-report": {
    failure: "error", malformed: "error", unauthenticated: "error",
    denied: { status: 401, key: "error", text: NOT_AUTHORISED },
  },
  "update-records": {
    failure: "message", malformed: "message", unauthenticated: "message",
    denied: { status: 401, key: "message", text: NOT_AUTHORISED },
  },
  // The live stream is a read of a bloc: refused as get-data-report refuses, always under `error`.
  events: {
    failure: "error", malformed: "error", unauthenticated: "error",
    denied: { status: 401, key: "error", text: NOT_AUTHORISED },
  },
  // What a form needs of a bloc: refused as a read of it, so that a bloc's existence does not leak.
  "bloc-fields": {
    failure: "error", malformed: "error", unauthenticated: "error",
    denied: { status: 401, key: "error", text: NOT_AUTHORISED },
  },
  admin: {
    failure: "error", malformed: "error", unauthenticated: "error",
    denied: { status: 403, key: "error", text: "Only administrators may use the admin API" },
  },
  public: {
    failure: "error", malformed: "error", unauthenticated: "error",
    denied: { status: 403, key: "error", text: "Forbidden" },
  },
};

export interface ErrorReply {
  readonly status: number;
  readonly body: Record<string, string>;
  /** A refusal of field values: each failing field's slug → its sentence, sent beside the text as `fields`. */
  readonly fields?: Readonly<Record<string, string>>;
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * When a client should try again after the store was unavailable: long enough for a
 * restarting server or a dropped connection to come back, short enough for a scanner's
 * retry to land while its operator still waits.
 */
export const STORE_RETRY_AFTER_SECONDS = 2;

const STATUS: Readonly<Record<string, number>> = {
  "invalid-input": 400,
  "missing-parameter": 400,
  "malformed-body": 400,
  "rule-violation": 400,
  "limit-reached": 400,
  unauthenticated: 401,
  "admin-only": 403,
  "not-found": 404,
  conflict: 409,
  "request-timeout": 408,
  "payload-too-large": 413,
  "unsupported-media-type": 415,
  "idempotency-mismatch": 422,
  "rate-limited": 429,
  "sign-in-locked": 429,
  "too-many-streams": 429,
  unavailable: 503,
  "store-unavailable": 503,
};

/** Status and body for a known failure on an endpoint. */
export function errorReply(endpoint: Endpoint, error: ServiceError): ErrorReply {
  const shape = SHAPES[endpoint];
  if (error instanceof SignInLockedError) {
    return { status: 429, body: { [shape.failure]: error.message }, headers: { "retry-after": String(error.retryAfterSeconds) } };
  }
  switch (error.kind) {
    case "access-denied":
      return { status: shape.denied.status, body: { [shape.denied.key]: shape.denied.text } };
    case "profile-violation":
      return { status: shape.denied.status, body: { [shape.denied.key]: error.message } };
    case "missing-parameter":
      // The spec words this one under `error` even where other failures use `message`.
      return { status: 400, body: { error: error.message } };
    case "malformed-body":
      return { status: 400, body: { [shape.malformed]: error.message } };
    case "unauthenticated":
      return { status: 401, body: { [shape.unauthenticated]: error.message } };
    case "rule-violation":
      return {
        status: 400, body: { [shape.failure]: error.message }, ...(error instanceof RuleViolationError ? { fields: error.fields } : {}),
      };
    case "store-unavailable":
      return { status: 503, body: { [shape.failure]: error.message }, headers: { "retry-after": String(STORE_RETRY_AFTER_SECONDS) } };
    default:
      return { status: STATUS[error.kind] ?? 400, body: { [shape.failure]: error.message } };
  }
}

/** Body for a failure that is the server's own fault. */
export function internalErrorReply(endpoint: Endpoint): ErrorReply {
  return { status: 500, body: { [SHAPES[endpoint].failure]: "Internal server error" } };
}

/**
 * The statuses an endpoint can refuse with, each with the keys its body may carry, for
 * the OpenAPI document (error-schemas.ts). Derived from the table above so the two agree.
 */
export function errorKeysByStatus(endpoint: Endpoint): ReadonlyMap<number, ReadonlySet<Key>> {
  const shape = SHAPES[endpoint];
  const keys = new Map<number, Set<Key>>();
  const add = (status: number, key: Key): void => { keys.set(status, (keys.get(status) ?? new Set<Key>()).add(key)); };
  add(400, shape.failure);
  add(400, shape.malformed);
  add(400, "error");
  add(401, shape.unauthenticated);
  add(shape.denied.status, shape.denied.key);
  // 503: the store is unavailable (any endpoint), or every live stream slot is taken (events).
  const possible = endpoint === "add-data" ? [404, 408, 409, 413, 415, 422, 429, 503] : [404, 408, 409, 413, 415, 429, 503];
  for (const status of possible) add(status, shape.failure);
  add(500, shape.failure);
  return keys;
}

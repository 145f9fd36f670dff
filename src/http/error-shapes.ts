import { RuleViolationError, SignInLockedError } from "../domain/errors.js";
import type { ErrorKind, Refusal } from "./http-errors.js";

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

/**
 * Every kind's status: a kind without one does not compile. "denied" is the endpoint's own
 * answer to a refusal of access (SHAPES[endpoint].denied), 401 or 403 as the spec says.
 */
const STATUS: Readonly<Record<ErrorKind, number | "denied">> = {
  "invalid-input": 400,
  "missing-parameter": 400,
  "malformed-body": 400,
  "rule-violation": 400,
  "limit-reached": 400,
  unauthenticated: 401,
  "access-denied": "denied",
  "profile-violation": "denied",
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

/** Kinds only some endpoints can meet; every other kind, any endpoint can. */
const ONLY: Readonly<Partial<Record<ErrorKind, readonly Endpoint[]>>> = {
  "idempotency-mismatch": ["add-data"],
  "admin-only": ["admin"],
};

/** The status of a kind on an endpoint, and the body key its text goes under. */
function placement(endpoint: Endpoint, kind: ErrorKind): { readonly status: number; readonly key: Key } {
  const shape = SHAPES[endpoint];
  const status = STATUS[kind];
  if (status === "denied") return shape.denied;
  switch (kind) {
    // The spec words this one under `error` even where other failures use `message`.
    case "missing-parameter": return { status, key: "error" };
    case "malformed-body": return { status, key: shape.malformed };
    case "unauthenticated": return { status, key: shape.unauthenticated };
    default: return { status, key: shape.failure };
  }
}

/** Status and body for a known failure on an endpoint. */
export function errorReply(endpoint: Endpoint, error: Refusal): ErrorReply {
  const { status, key } = placement(endpoint, error.kind);
  // A refusal of access says the endpoint's sentence, whatever the cause; a profile violation says why.
  const body = { [key]: error.kind === "access-denied" ? SHAPES[endpoint].denied.text : error.message };
  if (error instanceof RuleViolationError) return { status, body, fields: error.fields };
  if (error instanceof SignInLockedError) return { status, body, headers: { "retry-after": String(error.retryAfterSeconds) } };
  if (error.kind === "store-unavailable") return { status, body, headers: { "retry-after": String(STORE_RETRY_AFTER_SECONDS) } };
  return { status, body };
}

/** Body for a failure that is the server's own fault. */
export function internalErrorReply(endpoint: Endpoint): ErrorReply {
  return { status: 500, body: { [SHAPES[endpoint].failure]: "Internal server error" } };
}

/**
 * The statuses an endpoint can refuse with, each with the keys its body may carry, for
 * the OpenAPI document (error-schemas.ts): what errorReply answers for each kind the
 * endpoint can meet, and the 500 of internalErrorReply.
 */
export function errorKeysByStatus(endpoint: Endpoint): ReadonlyMap<number, ReadonlySet<Key>> {
  const keys = new Map<number, Set<Key>>();
  const add = (status: number, key: Key): void => { keys.set(status, (keys.get(status) ?? new Set<Key>()).add(key)); };
  for (const kind of Object.keys(STATUS) as ErrorKind[]) {
    if (ONLY[kind]?.includes(endpoint) === false) continue;
    const { status, key } = placement(endpoint, kind);
    add(status, key);
  }
  add(500, SHAPES[endpoint].failure);
  return keys;
}

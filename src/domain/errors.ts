/**
 * One class per way a request can fail. The HTTP layer maps each to a status
 * and to the body shape the spec gives the endpoint (http/error-shapes.ts);
 * nothing here knows about HTTP. Refusals of how a request arrived (too large, too
 * slow, too many) are the transport's own: http/http-errors.ts.
 */

/** Every kind of ServiceError: a new one needs its status in http/error-shapes.ts to compile. */
export type ServiceErrorKind =
  | "invalid-input" | "missing-parameter" | "malformed-body" | "unauthenticated" | "access-denied" | "admin-only"
  | "not-found" | "conflict" | "profile-violation" | "rule-violation" | "limit-reached" | "idempotency-mismatch"
  | "sign-in-locked" | "too-many-streams" | "unavailable" | "store-unavailable";

export abstract class ServiceError extends Error {
  abstract readonly kind: ServiceErrorKind;
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** A parameter is present but wrong (type, range, unknown field, impossible date). */
export class InvalidInputError extends ServiceError {
  readonly kind = "invalid-input";
}

/** A parameter the endpoint cannot work without is absent or empty. */
export class MissingParameterError extends ServiceError {
  readonly kind = "missing-parameter";
}

/** The body is not parseable JSON, or not a JSON object. */
export class MalformedBodyError extends ServiceError {
  readonly kind = "malformed-body";
}

/** No token, or a token that is unknown, expired or revoked. */
export class UnauthenticatedError extends ServiceError {
  readonly kind = "unauthenticated";
}

/**
 * The user may not do this on this bloc, or the bloc does not exist (the two are
 * indistinguishable on purpose for non-admins). Each endpoint words it its own way.
 */
export class AccessDeniedError extends ServiceError {
  readonly kind = "access-denied";
  constructor() {
    super("access denied");
  }
}

/** The admin API was called by a user who is not an admin. */
export class AdminOnlyError extends ServiceError {
  readonly kind = "admin-only";
  constructor() {
    super("Only administrators may use the admin API");
  }
}

/** Something named in the path or body does not exist (only ever said to admins). */
export class NotFoundError extends ServiceError {
  readonly kind = "not-found";
}

/** Creating something whose ID or slug is already taken. */
export class ConflictError extends ServiceError {
  readonly kind = "conflict";
}

/**
 * A write that would put a record outside the writer's profile filter. Refused like
 * a missing permission (each endpoint's authorisation status), but saying why.
 */
export class ProfileViolationError extends ServiceError {
  readonly kind = "profile-violation";
}

/** Values break rules of their fields (type, options, required, unique, maxLength, pattern). */
export class RuleViolationError extends ServiceError {
  readonly kind = "rule-violation";
  /**
   * @param message every failure, in one sentence each
   * @param fields each failing field's slug → its own sentence, for a form to show beside it
   */
  constructor(message: string, readonly fields: Readonly<Record<string, string>> = {}) {
    super(message);
  }
}

/** The bloc has taken as many records as its scan limit allows in this period. */
export class LimitReachedError extends ServiceError {
  readonly kind = "limit-reached";
}

/** An Idempotency-Key used again with a request that differs from the one it was first used with. */
export class IdempotencyMismatchError extends ServiceError {
  readonly kind = "idempotency-mismatch";
}

/** Too many failed sign-ins for one email in the window (domain/sign-in.ts); refused until it passes. */
export class SignInLockedError extends ServiceError {
  readonly kind = "sign-in-locked";
  constructor(message: string, readonly retryAfterSeconds: number) {
    super(message);
  }
}

/** The user holds as many live streams in this process as BLOC_EVENT_STREAMS_PER_USER allows. */
export class TooManyStreamsError extends ServiceError {
  readonly kind = "too-many-streams";
}

/** The service cannot take this request now (every live stream slot is in use); trying later may succeed. */
export class UnavailableError extends ServiceError {
  readonly kind = "unavailable";
}

/**
 * The store cannot be reached or written now: the database server or the network to it
 * is down, a statement got no answer within BLOC_STORE_TIMEOUT_MS, the disk is full or
 * read-only. Not the request's fault, and not a bug: the same request may succeed later.
 */
export class StoreUnavailableError extends ServiceError {
  readonly kind = "store-unavailable";
  constructor(message = "Data store unavailable; try again in a few seconds", options?: { cause?: unknown }) {
    super(message);
    // Kept for the log (the operator's clue), never for the answer.
    if (options && "cause" in options) this.cause = options.cause;
  }
}

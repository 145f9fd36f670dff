import { ServiceError } from "../domain/errors.js";

/**
 * Refusals only the transport makes, of how a request arrived rather than of what it
 * asks: a body too large, of a type not taken or too slow, and too many requests. The
 * domain's refusals are ServiceErrors (domain/errors.ts); error-shapes.ts answers both.
 */
export type HttpErrorKind = "payload-too-large" | "unsupported-media-type" | "request-timeout" | "rate-limited";

export abstract class HttpError extends Error {
  abstract readonly kind: HttpErrorKind;
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

export class PayloadTooLargeError extends HttpError {
  readonly kind = "payload-too-large";
}

export class UnsupportedMediaTypeError extends HttpError {
  readonly kind = "unsupported-media-type";
}

/** The request's body did not arrive within its deadline. */
export class RequestTimeoutError extends HttpError {
  readonly kind = "request-timeout";
}

/** The token has made more requests in this second than BLOC_RATE_LIMIT allows. */
export class RateLimitedError extends HttpError {
  readonly kind = "rate-limited";
}

/** A failure the error handler answers in the endpoint's shape: the domain's refusal or the transport's. */
export type Refusal = ServiceError | HttpError;
export type ErrorKind = Refusal["kind"];

export function isRefusal(error: unknown): error is Refusal {
  return error instanceof ServiceError || error instanceof HttpError;
}

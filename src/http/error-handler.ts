import type { FastifyError, FastifyInstance, FastifyRequest } from "fastify";
import { InvalidInputError } from "../domain/errors.js";
import { isRefusal, PayloadTooLargeError, UnsupportedMediaTypeError, type Refusal } from "./http-errors.js";
import { tooLarge } from "./body.js";
import { JSON_TYPES_TEXT } from "./content-type.js";
import { errorReply, internalErrorReply, type Endpoint } from "./error-shapes.js";

export interface ErrorHandlerOptions {
  readonly debug: boolean;
  readonly maxBodyBytes: number;
  readonly maxParts: number;
}

function endpointOf(request: FastifyRequest): Endpoint {
  return request.routeOptions.config.endpoint ?? "public";
}

const PART_LIMITS = new Set(["FST_PARTS_LIMIT", "FST_FILES_LIMIT", "FST_FIELDS_LIMIT"]);

/** Fastify's and @fastify/multipart's refusals of what a client sent, as our error kinds. */
function asRefusal(error: FastifyError, options: ErrorHandlerOptions): Refusal | undefined {
  if (isRefusal(error)) return error;
  if (error.validation) return new InvalidInputError(error.message);
  if (error.code === "FST_ERR_CTP_BODY_TOO_LARGE") return tooLarge(options.maxBodyBytes);
  if (PART_LIMITS.has(error.code)) {
    return new PayloadTooLargeError(`The upload has more than ${options.maxParts} parts (BLOC_MAX_PARTS)`);
  }
  if (error.statusCode === 413) return new PayloadTooLargeError(error.message);
  if (error.code === "FST_ERR_CTP_INVALID_MEDIA_TYPE") {
    return new UnsupportedMediaTypeError(`${error.message}; send ${JSON_TYPES_TEXT}`);
  }
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) return new InvalidInputError(error.message);
  return undefined;
}

/** The first frame of the stack, for BLOC_DEBUG=1 only: it names our source files. */
function debugFields(error: Error): Record<string, string> {
  const trace = error.stack ?? String(error);
  const frame = /\(?((?:file:\/\/)?\/[^():]+):(\d+):\d+\)?/.exec(trace);
  return { file: frame?.[1] ?? "", line: frame?.[2] ?? "", trace };
}

/** The one place where failures become HTTP answers, in the spec's per-endpoint shapes. */
export function installErrorHandler(app: FastifyInstance, options: ErrorHandlerOptions): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const endpoint = endpointOf(request);
    const known = asRefusal(error, options);
    // Logged as class, code and stack only (logging.ts): the message may quote values.
    if (!known) request.log.error({ err: error }, "request failed");
    // An outage is the operator's to see, with the driver's error that revealed it.
    if (known?.kind === "store-unavailable") request.log.warn({ err: known.cause ?? known }, "store unavailable");
    const { status, body: text, fields, headers } = known ? errorReply(endpoint, known) : internalErrorReply(endpoint);
    const body = fields ? { ...text, fields } : text;
    if (headers) void reply.headers(headers);
    // The route may have set another type (a file, a report) before failing.
    void reply.status(status).type("application/json; charset=utf-8")
      .send(options.debug ? { ...body, ...debugFields(error) } : body);
  });
  app.setNotFoundHandler((request, reply) => {
    void reply.status(404).send({ error: `No route ${request.method} ${request.url.split("?")[0]}` });
  });
}

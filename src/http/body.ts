import type { IncomingMessage } from "node:http";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { MalformedBodyError } from "../domain/errors.js";
import { PayloadTooLargeError, RequestTimeoutError, UnsupportedMediaTypeError } from "./http-errors.js";
import { isPlainObject } from "../domain/values.js";
import { bodyKind, JSON_TYPES_TEXT } from "./content-type.js";
import type { Params } from "./params.js";

export interface BodyLimits {
  /** BLOC_MAX_BODY_BYTES. */
  readonly maxBodyBytes: number;
  /** BLOC_REQUEST_TIMEOUT_MS: the time a body has to arrive once its headers are read. */
  readonly requestTimeoutMs: number;
}

/** The one text of a 413 for a body over the limit, whatever the endpoint, method or content type. */
export function tooLarge(limit: number): PayloadTooLargeError {
  return new PayloadTooLargeError(`The request body is larger than ${limit} bytes (BLOC_MAX_BODY_BYTES)`);
}

function tooSlow(timeoutMs: number): RequestTimeoutError {
  return new RequestTimeoutError(`The request body did not arrive within ${timeoutMs} ms (BLOC_REQUEST_TIMEOUT_MS)`);
}

const UTF8 = new TextDecoder("utf-8", { fatal: true });

function parseJson(bytes: Buffer): unknown {
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    throw new MalformedBodyError("The request body is not valid UTF-8");
  }
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new MalformedBodyError(`The request body is not valid JSON: ${(error as Error).message}`);
  }
}

/** Whether the request announces a body at all (a length above zero, or chunks). */
export function hasBody(raw: IncomingMessage): boolean {
  const length = raw.headers["content-length"];
  return raw.headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0");
}

/**
 * Reads a whole body, refusing it as soon as it passes the size limit or its deadline:
 * a client trickling bytes, or sending gigabytes, is answered (413 or 408) without the
 * server waiting or holding more than the limit. What is left unread is dealt with by
 * closeUnread (close.ts) once the answer is out.
 */
function readBody(payload: NodeJS.ReadableStream, raw: IncomingMessage, limits: BodyLimits): Promise<Buffer> {
  const declared = Number(raw.headers["content-length"]);
  if (declared > limits.maxBodyBytes) return Promise.reject(tooLarge(limits.maxBodyBytes));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (error: Error | null): void => {
      clearTimeout(timer);
      payload.removeListener("data", onData);
      payload.removeListener("end", onEnd);
      payload.removeListener("error", onError);
      if (error) reject(error); else resolve(Buffer.concat(chunks, size));
    };
    const onData = (chunk: Buffer | string): void => {
      const buffer = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
      size += buffer.length;
      if (size > limits.maxBodyBytes) { finish(tooLarge(limits.maxBodyBytes)); return; }
      chunks.push(buffer);
    };
    const onEnd = (): void => finish(null);
    const onError = (error: Error): void => finish(error);
    const timer = setTimeout(() => finish(tooSlow(limits.requestTimeoutMs)), limits.requestTimeoutMs);
    payload.on("data", onData);
    payload.on("end", onEnd);
    payload.on("error", onError);
    payload.resume();
  });
}

/**
 * Every body Fastify hands over that is not multipart/form-data (which @fastify/multipart
 * marks for add-data to stream) comes here, GET bodies included: the spec's GET endpoints
 * take a JSON body. JSON types and a body without a content type are read as JSON; any
 * other type is refused with 415 before a byte of it is read.
 */
export function installBodyParser(app: FastifyInstance, limits: BodyLimits): void {
  // GET bodies go through the same parsers, limit and deadline as POST bodies.
  app.addHttpMethod("GET", { hasBody: true, overrideExisting: true });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", (request, payload, done) => {
    // An unknown route answers 404 whatever it was sent; an empty body has no type to refuse.
    if (request.is404 || !hasBody(request.raw)) { done(null, undefined); return; }
    if (bodyKind(request.headers["content-type"]) !== "json") {
      done(new UnsupportedMediaTypeError(`Unsupported content type; send ${JSON_TYPES_TEXT}`), undefined);
      return;
    }
    readBody(payload, request.raw, limits).then(parseJson).then((body) => done(null, body), (error: Error) => done(error, undefined));
  });
}

function asObject(body: unknown): Params {
  if (body === undefined || body === null) return {};
  if (!isPlainObject(body)) throw new MalformedBodyError("The request body must be a JSON object");
  return body;
}

/** The JSON body of a POST. */
export function bodyParams(request: FastifyRequest): Params {
  return asObject(request.body);
}

/**
 * Parameters of a read endpoint: the query string overlaid by the JSON body (GET or
 * POST), so that clients and proxies that drop GET bodies can still ask. Installed as
 * the route's preValidation, so that its body schema validates them wherever they came from.
 */
export async function mergeReadParams(request: FastifyRequest): Promise<void> {
  request.body = { ...(request.query as Params), ...asObject(request.body) };
}

/** A POST's JSON body, an absent one as {}, before its schema validates it. */
export async function bodyAsObject(request: FastifyRequest): Promise<void> {
  request.body = asObject(request.body);
}

/** The parameters mergeReadParams gathered. */
export function readParams(request: FastifyRequest): Params {
  return asObject(request.body);
}

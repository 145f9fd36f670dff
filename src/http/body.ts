import type { FastifyInstance, FastifyRequest } from "fastify";
import { MalformedBodyError, PayloadTooLargeError } from "../domain/errors.js";
import { isPlainObject } from "../domain/values.js";
import type { Params } from "./params.js";

export const BODY_LIMIT = 1024 * 1024;

function parseJson(text: string): unknown {
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new MalformedBodyError(`The request body is not valid JSON: ${(error as Error).message}`);
  }
}

/**
 * JSON bodies are parsed here rather than by Fastify so that a bad one becomes a
 * MalformedBodyError, worded per endpoint like every other failure. Plain-text
 * bodies are read as JSON too: some clients send JSON without a content type.
 */
export function installJsonParser(app: FastifyInstance): void {
  app.removeContentTypeParser(["application/json", "text/plain"]);
  app.addContentTypeParser(["application/json", "text/plain"], { parseAs: "string" }, (_request, body, done) => {
    try {
      done(null, parseJson(body as string));
    } catch (error) {
      done(error as Error);
    }
  });
}

/** Fastify never reads a GET body, yet the spec's clients send one; read it from the raw stream. */
async function readGetBody(request: FastifyRequest): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request.raw) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > BODY_LIMIT) throw new PayloadTooLargeError(`The request body is larger than ${BODY_LIMIT} bytes`);
    chunks.push(buffer);
  }
  return parseJson(Buffer.concat(chunks).toString("utf8"));
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
 * POST), so that clients and proxies that drop GET bodies can still ask.
 */
export async function readParams(request: FastifyRequest): Promise<Params> {
  const body = request.method === "GET" || request.method === "HEAD" ? await readGetBody(request) : request.body;
  return { ...(request.query as Params), ...asObject(body) };
}

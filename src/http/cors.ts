import type { FastifyInstance } from "fastify";
import cors, { type FastifyCorsOptionsDelegatePromise } from "@fastify/cors";

/** What a page calling the API sends beyond the CORS-safe headers. */
const ALLOWED_HEADERS = ["Authorization", "Content-Type", "Idempotency-Key"];
/** What such a page may read of an answer beyond the CORS-safe headers. */
const EXPOSED_HEADERS = ["Content-Disposition", "X-Request-Id", "Retry-After"];
/** How long a browser may reuse a preflight's answer. */
const PREFLIGHT_MAX_AGE_S = 600;

/**
 * BLOC_CORS_ORIGINS: pages on these origins may call the API from a browser. With none
 * configured nothing is installed, so no answer carries a CORS header and a preflight is
 * a 404, as before. A preflight lists the methods the URL takes.
 */
export async function installCors(app: FastifyInstance, origins: readonly string[]): Promise<void> {
  if (origins.length === 0) return;
  // A request from another origin gets no CORS header at all: `origin: false` leaves it alone.
  const delegate: FastifyCorsOptionsDelegatePromise = async (request) => (!origins.includes(request.headers.origin ?? "") ? { origin: false } : {
    origin: [...origins],
    methods: methodsOf(app, request.url),
    allowedHeaders: ALLOWED_HEADERS,
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: PREFLIGHT_MAX_AGE_S,
  });
  await app.register(cors, () => delegate);
}

const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"] as const;

/** The methods some route answers at this URL (its path, without the query). */
function methodsOf(app: FastifyInstance, url: string): string[] {
  const path = url.split("?")[0] ?? "/";
  return METHODS.filter((method) => app.findRoute({ method, url: path }) !== null);
}

import type { FastifyInstance } from "fastify";
import rateLimit, { type FastifyRateLimitStore, type FastifyRateLimitStoreCtor } from "@fastify/rate-limit";
import { RateLimitedError } from "./http-errors.js";
import type { Store } from "../domain/ports/store.js";
import { RequestCounts } from "./request-counts.js";

/** The limit is per second: windows are whole seconds of the clock. */
const WINDOW_MS = 1000;

/** Counts one request of a token in a window and answers the window's count so far. */
function requestCounter(store: Store): (tokenId: string, window: number) => Promise<number> {
  if (store.capabilities.rateLimitScope === "process") {
    const counts = new RequestCounts();
    return async (tokenId, window) => counts.count(tokenId, window);
  }
  if (!store.tokens.countRequest) throw new Error("the store declares rateLimitScope \"shared\" but has no tokens.countRequest");
  return store.tokens.countRequest.bind(store.tokens);
}

/**
 * The plugin's counter: where the store's capabilities say rateLimitScope "shared", the
 * Store's (Store.tokens.countRequest), in the database, for every process (PostgreSQL);
 * else in this process (SQLite, where a count per request would cost a write to the file).
 * Fixed windows: a token may make `max` requests in each clock second.
 */
function storeCounter(store: Store): FastifyRateLimitStoreCtor {
  const count = requestCounter(store);
  return class StoreCounter implements FastifyRateLimitStore {
    incr(key: string, callback: (error: Error | null, result?: { current: number; ttl: number }) => void): void {
      const now = Date.now();
      const window = Math.floor(now / WINDOW_MS);
      count(key, window).then(
        (current) => callback(null, { current, ttl: (window + 1) * WINDOW_MS - now }),
        (error: unknown) => callback(error instanceof Error ? error : new Error(String(error))),
      );
    }

    child(): FastifyRateLimitStore {
      return this;
    }
  };
}

/**
 * BLOC_RATE_LIMIT: at most `perSecond` requests per second per token, on every route
 * that takes a token; above it, 429 with Retry-After (the endpoint's error shape, through
 * the error handler). Runs in each route's own onRequest hooks, after the scope's
 * authentication: requests without a valid token were refused there (401) and are not
 * counted. Register before the routes. 0 installs nothing.
 */
export async function installRateLimit(app: FastifyInstance, store: Store, perSecond: number): Promise<void> {
  if (perSecond <= 0) return;
  await app.register(rateLimit, {
    max: perSecond,
    timeWindow: WINDOW_MS,
    hook: "onRequest",
    store: storeCounter(store),
    // Routes without a token (/health, the OpenAPI document) are not limited.
    allowList: (request) => request.principal === null,
    keyGenerator: (request) => request.principal?.tokenId ?? "",
    errorResponseBuilder: (_request, context) =>
      new RateLimitedError(`Too many requests: this token may make ${context.max} per second; retry in ${context.after}`),
  });
}

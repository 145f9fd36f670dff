import type { FastifyInstance, FastifyRequest } from "fastify";
import { AdminOnlyError, UnauthenticatedError } from "../domain/errors.js";
import type { Context } from "../domain/context.js";
import type { User } from "../domain/model.js";
import { authenticate } from "../domain/tokens.js";

function bearerSecret(header: string | undefined): string | undefined {
  const match = header === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

/**
 * Authenticates every route of the scope it is installed in, before the body is
 * read: an unauthenticated client learns nothing, not even whether its JSON parses.
 */
export function requireUser(app: FastifyInstance, ctx: Context): void {
  app.addHook("onRequest", async (request) => {
    request.user = await authenticate(ctx, bearerSecret(request.headers.authorization));
  });
}

export function requireAdmin(app: FastifyInstance, ctx: Context): void {
  requireUser(app, ctx);
  app.addHook("onRequest", async (request) => {
    if (currentUser(request).role !== "admin") throw new AdminOnlyError();
  });
}

export function currentUser(request: FastifyRequest): User {
  if (!request.user) throw new UnauthenticatedError("An Authorization header with a Bearer token is required");
  return request.user;
}

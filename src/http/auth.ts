import type { FastifyInstance, FastifyRequest } from "fastify";
import { AdminOnlyError, UnauthenticatedError } from "../domain/errors.js";
import type { Context } from "../domain/context.js";
import type { Principal } from "../domain/access.js";
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
    request.principal = await authenticate(ctx, bearerSecret(request.headers.authorization));
  });
}

/** Admins only, and only with an unscoped token: a scoped token is for the data endpoints. */
export function requireAdmin(app: FastifyInstance, ctx: Context): void {
  requireUser(app, ctx);
  app.addHook("onRequest", async (request) => {
    const { user, scope } = currentPrincipal(request);
    if (user.role !== "admin" || scope.permissions !== null || scope.blocs !== null) throw new AdminOnlyError();
  });
}

export function currentPrincipal(request: FastifyRequest): Principal {
  if (!request.principal) throw new UnauthenticatedError("An Authorization header with a Bearer token is required");
  return request.principal;
}

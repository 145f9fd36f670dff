import type { FastifyInstance, FastifyRequest } from "fastify";
import { AdminOnlyError, UnauthenticatedError } from "../domain/errors.js";
import type { Context } from "../domain/context.js";
import { usesAdminApi, type Principal } from "../domain/access.js";
import { authenticate } from "../domain/tokens.js";
import { hasBody } from "./body.js";

/** The secret of an `Authorization: Bearer <secret>` header. */
export function bearerSecret(header: string | undefined): string | undefined {
  const match = header === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

/**
 * Who the request acts for, read again from the store. A request is authenticated
 * when its headers arrive, and again once its body has been read (which may take
 * seconds), so that a token revoked or a profile narrowed in between applies to it.
 * The window that remains is the time from this check to the write's commit
 * (milliseconds), and, for a report, the time its rows stream.
 */
export async function authenticateAgain(ctx: Context, request: FastifyRequest): Promise<Principal> {
  request.principal = await authenticate(ctx, bearerSecret(request.headers.authorization));
  return request.principal;
}

/**
 * Authenticates every route of the scope it is installed in, before the body is read
 * (an unauthenticated client learns nothing, not even whether its JSON parses), and
 * again after a JSON body has been read. Multipart uploads, which the route streams
 * itself, authenticate again in the route (add-data.ts).
 */
export function requireUser(app: FastifyInstance, ctx: Context): void {
  app.addHook("onRequest", async (request) => {
    await authenticateAgain(ctx, request);
  });
  app.addHook("preHandler", async (request) => {
    if (hasBody(request.raw) && !request.isMultipart()) await authenticateAgain(ctx, request);
  });
}

/** Admins only, and only with an unscoped token: a scoped token is for the data endpoints. */
export function requireAdmin(app: FastifyInstance, ctx: Context): void {
  requireUser(app, ctx);
  const check = async (request: FastifyRequest): Promise<void> => {
    if (!usesAdminApi(currentPrincipal(request))) throw new AdminOnlyError();
  };
  app.addHook("onRequest", check);
  // After the body: a user who stopped being an admin meanwhile is refused too.
  app.addHook("preHandler", check);
}

export function currentPrincipal(request: FastifyRequest): Principal {
  if (!request.principal) throw new UnauthenticatedError("An Authorization header with a Bearer token is required");
  return request.principal;
}

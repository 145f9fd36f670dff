import type { FastifyInstance } from "fastify";
import type { Context } from "../../domain/context.js";
import { describePrincipal } from "../../domain/me.js";
import { currentPrincipal } from "../auth.js";
import { answers, Me } from "./admin-responses.js";

export function meRoute(app: FastifyInstance, ctx: Context): void {
  app.get("/api/me", {
    schema: { summary: "The token's user, roles, scope and the blocs they can use", tags: ["self"], response: answers(200, Me, "public") },
  }, async (request) => describePrincipal(ctx, currentPrincipal(request)));
}

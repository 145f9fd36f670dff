import type { FastifyInstance } from "fastify";
import type { Static } from "@sinclair/typebox";
import type { Context } from "../../domain/context.js";
import {
  grantOf, removeGrant, removeRestriction, removeRoleGrant, setGrant, setRestriction, setRoleGrant,
} from "../../domain/access.js";
import {
  BlocRoleParams, BlocUserParams, emptyBodyIsObject, GrantBody, RestrictionBody, tags,
} from "./admin-schemas.js";
import { answers, NoContent, Restriction, RoleGrant, UserGrant } from "./admin-responses.js";

/** Who may do what on a bloc: user grants, role grants and per-user restrictions. */
export function adminAccessRoutes(app: FastifyInstance, ctx: Context): void {
  app.put<{ Params: Static<typeof BlocUserParams>; Body: Static<typeof GrantBody> }>("/api/admin/blocs/:blocId/access/:userId", {
    schema: { tags, params: BlocUserParams, body: GrantBody, response: answers(200, UserGrant) },
    preValidation: emptyBodyIsObject,
  }, async (request) => {
    const { blocId, userId } = request.params;
    return { blocId, userId, ...(await setGrant(ctx, blocId, userId, grantOf(request.body))) };
  });

  app.delete<{ Params: Static<typeof BlocUserParams> }>("/api/admin/blocs/:blocId/access/:userId", {
    schema: { tags, params: BlocUserParams, response: answers(204, NoContent) },
  }, async (request, reply) => {
    await removeGrant(ctx, request.params.blocId, request.params.userId);
    return reply.status(204).send();
  });

  app.put<{ Params: Static<typeof BlocRoleParams>; Body: Static<typeof GrantBody> }>("/api/admin/blocs/:blocId/access/roles/:roleId", {
    schema: { tags, params: BlocRoleParams, body: GrantBody, response: answers(200, RoleGrant) },
    preValidation: emptyBodyIsObject,
  }, async (request) => {
    const { blocId, roleId } = request.params;
    return { blocId, roleId, ...(await setRoleGrant(ctx, blocId, roleId, grantOf(request.body))) };
  });

  app.delete<{ Params: Static<typeof BlocRoleParams> }>("/api/admin/blocs/:blocId/access/roles/:roleId", {
    schema: { tags, params: BlocRoleParams, response: answers(204, NoContent) },
  }, async (request, reply) => {
    await removeRoleGrant(ctx, request.params.blocId, request.params.roleId);
    return reply.status(204).send();
  });

  app.put<{ Params: Static<typeof BlocUserParams>; Body: Static<typeof RestrictionBody> }>("/api/admin/blocs/:blocId/restrictions/:userId", {
    schema: { tags, params: BlocUserParams, body: RestrictionBody, response: answers(200, Restriction) },
  }, async (request) => {
    const { blocId, userId } = request.params;
    await setRestriction(ctx, blocId, userId, request.body.mode);
    return { blocId, userId, mode: request.body.mode };
  });

  app.delete<{ Params: Static<typeof BlocUserParams> }>("/api/admin/blocs/:blocId/restrictions/:userId", {
    schema: { tags, params: BlocUserParams, response: answers(204, NoContent) },
  }, async (request, reply) => {
    await removeRestriction(ctx, request.params.blocId, request.params.userId);
    return reply.status(204).send();
  });
}

import type { FastifyInstance } from "fastify";
import type { Static } from "@sinclair/typebox";
import type { Context } from "../../domain/context.js";
import { parseBound } from "../../domain/dates.js";
import { createRole, setProfile, setRoleMember } from "../../domain/access.js";
import { issueToken, revokeToken } from "../../domain/tokens.js";
import { createUser, describeUser } from "../../domain/users.js";
import {
  emptyBodyIsObject, RoleBody, tags, TokenBody, TokenParams, UserBody, UserParams, UserPatch, UserRoleParams,
} from "./admin-schemas.js";

/** Users, their tokens, profiles and roles. */
export function adminUserRoutes(app: FastifyInstance, ctx: Context): void {
  app.post<{ Body: Static<typeof UserBody> }>("/api/admin/users", {
    schema: { tags, body: UserBody },
  }, async (request, reply) => reply.status(201).send(await createUser(ctx, request.body.name, request.body.role)));

  app.get<{ Params: Static<typeof UserParams> }>("/api/admin/users/:userId", {
    schema: { tags, params: UserParams },
  }, async (request) => describeUser(ctx, request.params.userId));

  app.put<{ Params: Static<typeof UserParams>; Body: Static<typeof UserPatch> }>("/api/admin/users/:userId", {
    schema: { tags, params: UserParams, body: UserPatch },
  }, async (request) => setProfile(ctx, request.params.userId, request.body.profile));

  app.post<{ Params: Static<typeof UserParams>; Body: Static<typeof TokenBody> }>("/api/admin/users/:userId/tokens", {
    schema: { tags, params: UserParams, body: TokenBody },
    preValidation: emptyBodyIsObject,
  }, async (request, reply) => {
    const { name, expiresAt, permissions, blocs } = request.body;
    const issued = await issueToken(ctx, request.params.userId, {
      name: name ?? null,
      expiresAt: expiresAt === undefined ? null : parseBound("expiresAt", expiresAt, "end"),
      scope: { permissions: permissions ?? null, blocs: blocs?.map(String) ?? null },
    });
    return reply.status(201).send(issued);
  });

  app.delete<{ Params: Static<typeof TokenParams> }>("/api/admin/tokens/:tokenId", {
    schema: { tags, params: TokenParams },
  }, async (request, reply) => {
    await revokeToken(ctx, request.params.tokenId);
    return reply.status(204).send();
  });

  app.post<{ Body: Static<typeof RoleBody> }>("/api/admin/roles", {
    schema: { tags, body: RoleBody },
  }, async (request, reply) => reply.status(201).send(await createRole(ctx, request.body.name)));

  app.get("/api/admin/roles", { schema: { tags } }, async () => ({ roles: await ctx.store.listRoles() }));

  app.put<{ Params: Static<typeof UserRoleParams> }>("/api/admin/users/:userId/roles/:roleId", {
    schema: { tags, params: UserRoleParams },
  }, async (request) => {
    const { userId, roleId } = request.params;
    await setRoleMember(ctx, userId, roleId, true);
    return { userId, roleId };
  });

  app.delete<{ Params: Static<typeof UserRoleParams> }>("/api/admin/users/:userId/roles/:roleId", {
    schema: { tags, params: UserRoleParams },
  }, async (request, reply) => {
    await setRoleMember(ctx, request.params.userId, request.params.roleId, false);
    return reply.status(204).send();
  });
}

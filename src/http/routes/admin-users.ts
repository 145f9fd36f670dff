import type { FastifyInstance } from "fastify";
import { Type, type Static } from "@sinclair/typebox";
import type { Context } from "../../domain/context.js";
import { parseBound } from "../../domain/dates.js";
import { createRole, setProfile, setRoleMember } from "../../domain/access.js";
import { issueToken, revokeToken } from "../../domain/tokens.js";
import { describeUser } from "../../domain/users.js";
import { createUserWithAccount } from "../../domain/accounts.js";
import {
  emptyBodyIsObject, RoleBody, tags, TokenBody, TokenParams, UserBody, UserParams, UserPatch, UserRoleParams,
} from "./admin-schemas.js";
import { answers, IssuedToken, Membership, NoContent, Role, User, UserWithRoles } from "./admin-responses.js";

/** Users, their tokens, profiles and roles. */
export function adminUserRoutes(app: FastifyInstance, ctx: Context): void {
  app.post<{ Body: Static<typeof UserBody> }>("/api/admin/users", {
    schema: { tags, body: UserBody, response: answers(201, User) },
  }, async (request, reply) => {
    const { name, role, email, password } = request.body;
    return reply.status(201).send(await createUserWithAccount(ctx, name, role, { email, password }));
  });

  app.get<{ Params: Static<typeof UserParams> }>("/api/admin/users/:userId", {
    schema: { tags, params: UserParams, response: answers(200, UserWithRoles) },
  }, async (request) => describeUser(ctx, request.params.userId));

  app.put<{ Params: Static<typeof UserParams>; Body: Static<typeof UserPatch> }>("/api/admin/users/:userId", {
    schema: { tags, params: UserParams, body: UserPatch, response: answers(200, User) },
  }, async (request) => setProfile(ctx, request.params.userId, request.body.profile));

  app.post<{ Params: Static<typeof UserParams>; Body: Static<typeof TokenBody> }>("/api/admin/users/:userId/tokens", {
    schema: { tags, params: UserParams, body: TokenBody, response: answers(201, IssuedToken) },
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
    schema: { tags, params: TokenParams, response: answers(204, NoContent) },
  }, async (request, reply) => {
    await revokeToken(ctx, request.params.tokenId);
    return reply.status(204).send();
  });

  app.post<{ Body: Static<typeof RoleBody> }>("/api/admin/roles", {
    schema: { tags, body: RoleBody, response: answers(201, Role) },
  }, async (request, reply) => reply.status(201).send(await createRole(ctx, request.body.name)));

  app.get("/api/admin/roles", { schema: { tags, response: answers(200, Type.Object({ roles: Type.Array(Role) })) } }, async () => ({ roles: await ctx.store.accounts.listRoles() }));

  app.put<{ Params: Static<typeof UserRoleParams> }>("/api/admin/users/:userId/roles/:roleId", {
    schema: { tags, params: UserRoleParams, response: answers(200, Membership) },
  }, async (request) => {
    const { userId, roleId } = request.params;
    await setRoleMember(ctx, userId, roleId, true);
    return { userId, roleId };
  });

  app.delete<{ Params: Static<typeof UserRoleParams> }>("/api/admin/users/:userId/roles/:roleId", {
    schema: { tags, params: UserRoleParams, response: answers(204, NoContent) },
  }, async (request, reply) => {
    await setRoleMember(ctx, request.params.userId, request.params.roleId, false);
    return reply.status(204).send();
  });
}

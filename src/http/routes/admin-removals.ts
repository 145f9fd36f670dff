import type { FastifyInstance } from "fastify";
import { Type, type Static, type TSchema } from "@sinclair/typebox";
import type { Context } from "../../domain/context.js";
import { deleteBloc, deleteModule, deleteRole, listBlocAccess, retireField } from "../../domain/removals.js";
import { RESTRICTION_MODES } from "../../domain/model.js";
import { BlocParams, FieldParams, ModuleParams, RoleParams, tags } from "./admin-schemas.js";
import { answers, NoContent } from "./admin-responses.js";

const DeleteBlocQuery = Type.Object({
  withRecords: Type.Optional(Type.Union([Type.Literal("true"), Type.Literal("false")], {
    description: "true: delete the bloc's records with it; without it a bloc that holds records is refused (409)",
  })),
}, { additionalProperties: false });

const GrantFlags = {
  read: Type.Boolean(), add: Type.Boolean(), update: Type.Boolean(), seeHidden: Type.Boolean(),
};

/** Open to further permissions: a grant's flags as the store holds them (domain/model.ts Grant). */
const AccessList = Type.Object({
  grants: Type.Array(Type.Object({ userId: Type.String(), userName: Type.String(), ...GrantFlags }, { additionalProperties: Type.Boolean() })),
  roleGrants: Type.Array(Type.Object({ roleId: Type.String(), roleName: Type.String(), ...GrantFlags }, { additionalProperties: Type.Boolean() })),
  restrictions: Type.Array(Type.Object({
    userId: Type.String(), userName: Type.String(),
    mode: Type.Union(RESTRICTION_MODES.map((m) => Type.Literal(m)) as TSchema[]),
  })),
});

/** Undoing configuration: retiring fields, deleting blocs, roles and modules; and who holds what on a bloc. */
export function adminRemovalRoutes(app: FastifyInstance, ctx: Context): void {
  app.delete<{ Params: Static<typeof FieldParams> }>("/api/admin/blocs/:blocId/fields/:slug", {
    schema: {
      tags, params: FieldParams, response: answers(204, NoContent),
      summary: "Retire a field: no longer accepted or shown; records keep its values, its slug is never reused",
    },
  }, async (request, reply) => {
    await retireField(ctx, request.params.blocId, request.params.slug);
    return reply.status(204).send();
  });

  app.delete<{ Params: Static<typeof BlocParams>; Querystring: Static<typeof DeleteBlocQuery> }>("/api/admin/blocs/:blocId", {
    schema: {
      tags, params: BlocParams, querystring: DeleteBlocQuery, response: answers(204, NoContent),
      summary: "Delete a bloc with its counters, access, events and webhook lanes (its records too only with withRecords=true)",
    },
  }, async (request, reply) => {
    await deleteBloc(ctx, request.params.blocId, request.query.withRecords === "true");
    return reply.status(204).send();
  });

  app.delete<{ Params: Static<typeof RoleParams> }>("/api/admin/roles/:roleId", {
    schema: { tags, params: RoleParams, response: answers(204, NoContent), summary: "Delete a role, its memberships and its grants" },
  }, async (request, reply) => {
    await deleteRole(ctx, request.params.roleId);
    return reply.status(204).send();
  });

  app.delete<{ Params: Static<typeof ModuleParams> }>("/api/admin/modules/:moduleId", {
    schema: { tags, params: ModuleParams, response: answers(204, NoContent), summary: "Delete a module no bloc belongs to (409 while one does)" },
  }, async (request, reply) => {
    await deleteModule(ctx, request.params.moduleId);
    return reply.status(204).send();
  });

  app.get<{ Params: Static<typeof BlocParams> }>("/api/admin/blocs/:blocId/access", {
    schema: { tags, params: BlocParams, response: answers(200, AccessList), summary: "Every grant, role grant and restriction on a bloc" },
  }, async (request) => listBlocAccess(ctx, request.params.blocId));
}

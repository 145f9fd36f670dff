import type { FastifyInstance } from "fastify";
import { Type, type Static, type TSchema } from "@sinclair/typebox";
import type { Context } from "../../domain/context.js";
import { describeForm } from "../../domain/bloc-form.js";
import { FIELD_TYPES, PERMISSIONS } from "../../domain/model.js";
import { currentPrincipal } from "../auth.js";
import { BlocParams } from "./admin-schemas.js";
import { answers } from "./admin-responses.js";

const Nullable = (schema: TSchema): TSchema => Type.Union([schema, Type.Null()]);

const BlocForm = Type.Object({
  blocId: Type.String(),
  name: Type.String(),
  acceptingData: Type.Boolean({ description: "false: add-data is refused to all but admins" }),
  requireJob: Type.Boolean({ description: "add-data must carry a jobID (the module's ID)" }),
  fields: Type.Array(Type.Object({
    slug: Type.String(), name: Type.String(),
    type: Type.Union(FIELD_TYPES.map((t) => Type.Literal(t))),
    required: Type.Boolean(), options: Nullable(Type.Array(Type.String())), maxLength: Nullable(Type.Integer()),
    pattern: Nullable(Type.String()), unique: Type.Boolean(), format: Nullable(Type.String()),
  }), { description: "the fields add-data takes, in order (retired fields left out)" }),
  modules: Type.Array(Type.Object({ id: Type.String(), name: Type.String() }), { description: "the bloc's module, if it has one" }),
  permissions: Type.Object(Object.fromEntries(PERMISSIONS.map((p) => [p, Type.Boolean()])), {
    description: "what the caller may do on this bloc, within their token's scope",
  }),
});

export function blocFieldsRoute(app: FastifyInstance, ctx: Context): void {
  app.get<{ Params: Static<typeof BlocParams> }>("/api/blocs/:blocId/fields", {
    config: { endpoint: "bloc-fields" },
    schema: {
      summary: "What a form needs to add to a bloc: its fields and their rules, its module, and what the caller may do",
      tags: ["records"], params: BlocParams, response: answers(200, BlocForm, "bloc-fields"),
    },
  }, async (request) => describeForm(ctx, currentPrincipal(request), request.params.blocId));
}

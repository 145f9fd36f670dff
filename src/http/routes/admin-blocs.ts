import type { FastifyInstance } from "fastify";
import { Type, type Static } from "@sinclair/typebox";
import type { Context } from "../../domain/context.js";
import { addField, createBloc, getBloc, listBlocs, updateBloc, updateField } from "../../domain/blocs.js";
import { createModule } from "../../domain/modules.js";
import type { BlocSettings } from "../../domain/model.js";
import { BlocBody, BlocParams, BlocPatch, FieldBody, FieldParams, FieldPatch, ModuleBody, tags } from "./admin-schemas.js";

import { answers, Bloc, Field, Module } from "./admin-responses.js";

/** A module ID may arrive as a number, like bloc IDs. */
function settings<T extends { moduleId?: string | number | null | undefined }>(body: T): Omit<T, "moduleId"> & Partial<Pick<BlocSettings, "moduleId">> {
  const { moduleId, ...rest } = body;
  return moduleId === undefined ? rest : { ...rest, moduleId: moduleId === null ? null : String(moduleId) };
}

/** Modules, blocs, their settings and fields. */
export function adminBlocRoutes(app: FastifyInstance, ctx: Context): void {
  app.post<{ Body: Static<typeof ModuleBody> }>("/api/admin/modules", {
    schema: { tags, body: ModuleBody, response: answers(201, Module) },
  }, async (request, reply) => reply.status(201).send(await createModule(ctx, request.body.name)));

  app.get("/api/admin/modules", { schema: { tags, response: answers(200, Type.Object({ modules: Type.Array(Module) })) } }, async () => ({ modules: await ctx.store.blocs.listModules() }));

  app.post<{ Body: Static<typeof BlocBody> }>("/api/admin/blocs", {
    schema: { tags, body: BlocBody, response: answers(201, Bloc) },
  }, async (request, reply) => {
    const { id, ...rest } = request.body;
    return reply.status(201).send(await createBloc(ctx, { ...settings(rest), id: id === undefined ? undefined : String(id) }));
  });

  app.get("/api/admin/blocs", { schema: { tags, response: answers(200, Type.Object({ blocs: Type.Array(Bloc) })) } }, async () => ({ blocs: await listBlocs(ctx) }));

  app.get<{ Params: Static<typeof BlocParams> }>("/api/admin/blocs/:blocId", {
    schema: { tags, params: BlocParams, response: answers(200, Bloc) },
  }, async (request) => getBloc(ctx, request.params.blocId));

  app.patch<{ Params: Static<typeof BlocParams>; Body: Static<typeof BlocPatch> }>("/api/admin/blocs/:blocId", {
    schema: { tags, params: BlocParams, body: BlocPatch, response: answers(200, Bloc) },
  }, async (request) => updateBloc(ctx, request.params.blocId, settings(request.body)));

  app.post<{ Params: Static<typeof BlocParams>; Body: Static<typeof FieldBody> }>("/api/admin/blocs/:blocId/fields", {
    schema: { tags, params: BlocParams, body: FieldBody, response: answers(201, Field) },
  }, async (request, reply) => reply.status(201).send(await addField(ctx, request.params.blocId, request.body)));

  app.patch<{ Params: Static<typeof FieldParams>; Body: Static<typeof FieldPatch> }>("/api/admin/blocs/:blocId/fields/:slug", {
    schema: { tags, params: FieldParams, body: FieldPatch, response: answers(200, Field) },
  }, async (request) => updateField(ctx, request.params.blocId, request.params.slug, request.body));
}

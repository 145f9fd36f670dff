import type { FastifyInstance, FastifyRequest } from "fastify";
import { Type, type Static } from "@sinclair/typebox";
import type { Context } from "../../domain/context.js";
import { parseBound } from "../../domain/dates.js";
import { addField, createBloc, getBloc, listBlocs } from "../../domain/blocs.js";
import { removeGrant, setGrant } from "../../domain/access.js";
import { issueToken, revokeToken } from "../../domain/tokens.js";
import { createUser } from "../../domain/users.js";

const Name = Type.String({ minLength: 1, maxLength: 200 });
const FieldBody = Type.Object({ name: Name, slug: Type.Optional(Type.String()) }, { additionalProperties: false });

const UserBody = Type.Object({
  name: Name,
  role: Type.Optional(Type.Union([Type.Literal("admin"), Type.Literal("member")])),
}, { additionalProperties: false });
const TokenBody = Type.Object({
  name: Type.Optional(Type.String({ maxLength: 200 })),
  expiresAt: Type.Optional(Type.String({ description: "YYYY-MM-DD HH:MM:SS in BLOC_TIMEZONE" })),
}, { additionalProperties: false });
const BlocBody = Type.Object({
  name: Name,
  fields: Type.Optional(Type.Array(FieldBody, { maxItems: 500 })),
  id: Type.Optional(Type.Union([Type.String(), Type.Integer({ minimum: 0 })])),
}, { additionalProperties: false });
const GrantBody = Type.Object({
  read: Type.Optional(Type.Boolean()),
  add: Type.Optional(Type.Boolean()),
  update: Type.Optional(Type.Boolean()),
}, { additionalProperties: false });

const UserParams = Type.Object({ userId: Type.String() });
const TokenParams = Type.Object({ tokenId: Type.String() });
const BlocParams = Type.Object({ blocId: Type.String() });
const GrantParams = Type.Object({ blocId: Type.String(), userId: Type.String() });

const tags = ["admin"];

/** Lets a body whose every key is optional be left out entirely. */
async function emptyBodyIsObject(request: FastifyRequest): Promise<void> {
  request.body ??= {};
}

/** The admin API: users, tokens, blocs, fields and grants. Installed in an admin-only scope. */
export function adminRoutes(app: FastifyInstance, ctx: Context): void {
  app.post<{ Body: Static<typeof UserBody> }>("/api/admin/users", {
    schema: { tags, body: UserBody },
  }, async (request, reply) => reply.status(201).send(await createUser(ctx, request.body.name, request.body.role)));

  app.post<{ Params: Static<typeof UserParams>; Body: Static<typeof TokenBody> }>("/api/admin/users/:userId/tokens", {
    schema: { tags, params: UserParams, body: TokenBody },
    preValidation: emptyBodyIsObject,
  }, async (request, reply) => {
    const { name, expiresAt } = request.body;
    const issued = await issueToken(ctx, request.params.userId, {
      name: name ?? null,
      expiresAt: expiresAt === undefined ? null : parseBound("expiresAt", expiresAt, "end"),
    });
    return reply.status(201).send(issued);
  });

  app.delete<{ Params: Static<typeof TokenParams> }>("/api/admin/tokens/:tokenId", {
    schema: { tags, params: TokenParams },
  }, async (request, reply) => {
    await revokeToken(ctx, request.params.tokenId);
    return reply.status(204).send();
  });

  app.post<{ Body: Static<typeof BlocBody> }>("/api/admin/blocs", {
    schema: { tags, body: BlocBody },
  }, async (request, reply) => {
    const { name, fields, id } = request.body;
    const bloc = await createBloc(ctx, { name, fields, id: id === undefined ? undefined : String(id) });
    return reply.status(201).send(bloc);
  });

  app.get("/api/admin/blocs", { schema: { tags } }, async () => ({ blocs: await listBlocs(ctx) }));

  app.get<{ Params: Static<typeof BlocParams> }>("/api/admin/blocs/:blocId", {
    schema: { tags, params: BlocParams },
  }, async (request) => getBloc(ctx, request.params.blocId));

  app.post<{ Params: Static<typeof BlocParams>; Body: Static<typeof FieldBody> }>("/api/admin/blocs/:blocId/fields", {
    schema: { tags, params: BlocParams, body: FieldBody },
  }, async (request, reply) => reply.status(201).send(await addField(ctx, request.params.blocId, request.body)));

  app.put<{ Params: Static<typeof GrantParams>; Body: Static<typeof GrantBody> }>("/api/admin/blocs/:blocId/access/:userId", {
    schema: { tags, params: GrantParams, body: GrantBody },
    preValidation: emptyBodyIsObject,
  }, async (request) => {
    const { read = false, add = false, update = false } = request.body;
    const { blocId, userId } = request.params;
    return { blocId, userId, ...(await setGrant(ctx, blocId, userId, { read, add, update })) };
  });

  app.delete<{ Params: Static<typeof GrantParams> }>("/api/admin/blocs/:blocId/access/:userId", {
    schema: { tags, params: GrantParams },
  }, async (request, reply) => {
    await removeGrant(ctx, request.params.blocId, request.params.userId);
    return reply.status(204).send();
  });
}

import type { FastifyInstance } from "fastify";
import { Type, type Static, type TSchema } from "@sinclair/typebox";
import type { Context } from "../../domain/context.js";
import { listTokens, listUsers } from "../../domain/admin-listing.js";
import { PERMISSIONS } from "../../domain/model.js";
import { tags, UserParams } from "./admin-schemas.js";

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const Stamp = (description: string) => Type.String({ description: `YYYY-MM-DD HH:MM:SS in BLOC_TIMEZONE; ${description}` });

const ListedUser = Type.Object({
  id: Type.String(),
  name: Type.String(),
  role: Type.Union([Type.Literal("admin"), Type.Literal("member")]),
  profile: Type.Array(Type.String()),
  email: Nullable(Type.String()),
  disabled: Type.Boolean(),
}, { additionalProperties: false });

const ListedToken = Type.Object({
  id: Type.String(),
  userId: Type.String(),
  name: Nullable(Type.String()),
  expiresAt: Nullable(Stamp("null: never expires")),
  revokedAt: Nullable(Stamp("null: not revoked")),
  scope: Type.Object({
    permissions: Nullable(Type.Array(Type.Union(PERMISSIONS.map((p) => Type.Literal(p))))),
    blocs: Nullable(Type.Array(Type.String())),
  }, { additionalProperties: false, description: "null: not narrowed below the user's rights" }),
  createdAt: Stamp("when it was issued"),
  lastUsedAt: Nullable(Stamp("when it last authenticated a request, to the minute; null: never")),
}, { additionalProperties: false });

export const UserList = Type.Object({ users: Type.Array(ListedUser) }, { additionalProperties: false });
export const TokenList = Type.Object({ tokens: Type.Array(ListedToken) }, { additionalProperties: false });

/** Who exists and which tokens they hold, so that a lost token ID can be found and revoked. */
export function adminListingRoutes(app: FastifyInstance, ctx: Context): void {
  app.get("/api/admin/users", {
    schema: { tags, summary: "Every user, by ID", response: { 200: UserList } },
  }, async (): Promise<Static<typeof UserList>> => ({ users: await listUsers(ctx) as Static<typeof ListedUser>[] }));

  app.get<{ Params: Static<typeof UserParams> }>("/api/admin/users/:userId/tokens", {
    schema: {
      tags, summary: "A user's tokens, revoked ones too, oldest first (never a secret or hash)",
      params: UserParams, response: { 200: TokenList },
    },
  }, async (request): Promise<Static<typeof TokenList>> => ({
    tokens: await listTokens(ctx, request.params.userId) as Static<typeof ListedToken>[],
  }));
}

import type { FastifyInstance } from "fastify";
import { Type, type Static } from "@sinclair/typebox";
import type { Context } from "../../domain/context.js";
import { InvalidInputError, MissingParameterError } from "../../domain/errors.js";
import { userNames } from "../../domain/user-names.js";
import { MAX_ID_LENGTH } from "../../domain/values.js";
import { currentPrincipal } from "../auth.js";
import { errorResponses } from "../error-schemas.js";
import { Id } from "./admin-schemas.js";

const Params = Type.Object({ blocId: Id });
const Query = Type.Object({
  ids: Type.Optional(Type.String({ description: "user IDs, comma-separated (at most the largest get-data page, BLOC_MAX_RESULT_LIMIT)" })),
});
const Answer = Type.Object({
  names: Type.Record(Type.String(), Type.String(), {
    description: "user ID → name, only for IDs that created a record the caller can see in this bloc; other IDs are left out",
  }),
});

/** The IDs of `?ids=a,b,c`: trimmed, empty ones dropped, each once. */
function idsOf(text: string | undefined, most: number): string[] {
  if (text === undefined) throw new MissingParameterError("ids is required (user IDs, comma-separated)");
  const ids = [...new Set(text.split(",").map((id) => id.trim()).filter((id) => id !== ""))];
  if (ids.length > most) throw new InvalidInputError(`ids names ${ids.length} users; at most ${most} may be asked at once`);
  const long = ids.find((id) => id.length > MAX_ID_LENGTH);
  if (long !== undefined) throw new InvalidInputError(`ids holds an ID longer than ${MAX_ID_LENGTH} characters`);
  return ids;
}

/**
 * GET /api/blocs/:blocId/user-names?ids=…: who created the records a reader sees, by
 * name, for a page of them (the console shows names where records hold user IDs).
 * Refused as get-data-report refuses (401 `error` without read access).
 */
export function userNamesRoute(app: FastifyInstance, ctx: Context, maxIds: number): void {
  app.get<{ Params: Static<typeof Params>; Querystring: Static<typeof Query> }>("/api/blocs/:blocId/user-names", {
    config: { endpoint: "get-data-report" },
    schema: {
      summary: "Names of the users who created records the caller can see in a bloc",
      tags: ["records"], params: Params, querystring: Query,
      response: { 200: Answer, ...errorResponses("get-data-report") },
    },
  }, async (request) => {
    const ids = idsOf(request.query.ids, maxIds);
    return { names: await userNames(ctx, currentPrincipal(request), request.params.blocId, ids) };
  });
}

import type { FastifyInstance } from "fastify";
import { Type, type Static } from "@sinclair/typebox";
import type { Context } from "../../domain/context.js";
import { recordHistory } from "../../domain/history.js";
import { Id, tags } from "./admin-schemas.js";

import { answers, History } from "./admin-responses.js";

// IDs over the documented maximum are refused (400) before any lookup, like every admin path.
const RecordParams = Type.Object({ blocId: Id, recordId: Id });

/** A record's history: every update that changed it, oldest first. */
export function adminHistoryRoutes(app: FastifyInstance, ctx: Context): void {
  app.get<{ Params: Static<typeof RecordParams> }>("/api/admin/blocs/:blocId/records/:recordId/history", {
    schema: { tags, params: RecordParams, response: answers(200, History), summary: "What each update changed in a record: who, when, through which token, from what to what" },
  }, async (request) => recordHistory(ctx, request.params.blocId, request.params.recordId));
}

import type { FastifyInstance } from "fastify";
import { Type, type Static } from "@sinclair/typebox";
import type { Context } from "../../domain/context.js";
import { restoreRecord } from "../../domain/record-removal.js";
import { currentPrincipal } from "../auth.js";
import { Id, tags } from "./admin-schemas.js";
import { answers, Restored } from "./admin-responses.js";

const RecordParams = Type.Object({ blocId: Id, recordId: Id });

/** Bringing back a deleted record. */
export function adminRecordRoutes(app: FastifyInstance, ctx: Context): void {
  app.post<{ Params: Static<typeof RecordParams> }>("/api/admin/blocs/:blocId/records/:recordId/restore", {
    schema: {
      tags, params: RecordParams, response: answers(200, Restored),
      summary: "Restore a deleted record with its ID, values, files and counts; 409 when a unique value it held is taken since",
    },
  }, async (request) => restoreRecord(ctx, currentPrincipal(request), request.params.blocId, request.params.recordId));
}

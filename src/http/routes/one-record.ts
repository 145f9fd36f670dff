import type { FastifyInstance } from "fastify";
import { Type, type Static } from "@sinclair/typebox";
import type { Context } from "../../domain/context.js";
import { readOneRecord } from "../../domain/one-record.js";
import { recordView } from "../../domain/record-view.js";
import { currentPrincipal } from "../auth.js";
import { errorResponses } from "../error-schemas.js";
import { Id } from "./admin-schemas.js";

const Params = Type.Object({ blocId: Id, recordId: Type.String({ maxLength: 32, description: "the record's service_entry_row_id" }) });
const Answer = Type.Object({
  record: Type.Record(Type.String(), Type.Union([Type.String(), Type.Number()]), {
    description: "the record as a get-data row shows it: created_at, submitted_status, user_id, service_entry_row_id and each field",
  }),
});

/**
 * GET /api/blocs/:blocId/records/:recordId: one record, for a record page or a link to it
 * (get-data pages by time and has no filter by ID). Refused as get-data-report refuses.
 */
export function oneRecordRoute(app: FastifyInstance, ctx: Context): void {
  app.get<{ Params: Static<typeof Params> }>("/api/blocs/:blocId/records/:recordId", {
    config: { endpoint: "get-data-report" },
    schema: {
      summary: "One record the caller can see, by its ID",
      tags: ["records"], params: Params,
      response: { 200: Answer, ...errorResponses("get-data-report") },
    },
  }, async (request) => {
    const { bloc, record } = await readOneRecord(ctx, currentPrincipal(request), request.params.blocId, request.params.recordId);
    return { record: recordView(bloc, record) };
  });
}

import type { FastifyInstance } from "fastify";
import { Type } from "@sinclair/typebox";
import { MissingParameterError } from "../../domain/errors.js";
import type { Context } from "../../domain/context.js";
import { deleteRecords } from "../../domain/record-removal.js";
import { currentPrincipal } from "../auth.js";
import { bodyAsObject, bodyParams } from "../body.js";
import { errorResponses } from "../error-schemas.js";
import { jsonObject, present, requiredId } from "../params.js";
import { schemaErrorFormatter } from "../schema-errors.js";
import { UPDATE_PARAMS } from "./record-schemas.js";

const MISSING = "Search Key/Value pairs or Bloc ID have not been provided";

const DeleteBody = Type.Object({ blocId: UPDATE_PARAMS.blocId, searchItems: UPDATE_PARAMS.searchItems }, { additionalProperties: true });

const DeleteAnswer = Type.Object({
  deleted_record_ids: Type.Array(Type.Integer(), { description: "the IDs of the records deleted, ascending; empty when none matched" }),
});

/**
 * The counterpart of update-records: the same parameter encodings, matching and
 * refusals (its error shape, error-shapes.ts), needing the `delete` permission.
 */
export function deleteRecordsRoute(app: FastifyInstance, ctx: Context): void {
  app.post("/api/delete-records-by-matching-values", {
    config: { endpoint: "update-records" },
    schema: {
      summary: "Delete every record whose fields equal the search values (an admin can restore them)",
      tags: ["records"],
      body: DeleteBody,
      response: { 200: DeleteAnswer, ...errorResponses("update-records") },
    },
    schemaErrorFormatter: schemaErrorFormatter({ missing: MISSING }),
    preValidation: bodyAsObject,
  }, async (request) => {
    const params = bodyParams(request);
    const search = jsonObject(params, "searchItems");
    if (!present(params.blocId) || !search || Object.keys(search).length === 0) throw new MissingParameterError(MISSING);
    const blocId = requiredId(params, "blocId");
    return { deleted_record_ids: await deleteRecords(ctx, currentPrincipal(request), { blocId, search }) };
  });
}

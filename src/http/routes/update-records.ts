import type { FastifyInstance } from "fastify";
import { MissingParameterError } from "../../domain/errors.js";
import type { Context } from "../../domain/context.js";
import { updateRecords } from "../../domain/records.js";
import { currentPrincipal } from "../auth.js";
import { bodyAsObject, bodyParams } from "../body.js";
import { errorResponses } from "../error-schemas.js";
import { jsonObject, present, requiredId } from "../params.js";
import { schemaErrorFormatter } from "../schema-errors.js";
import { UpdateAnswer, UpdateBody } from "./record-schemas.js";

const MISSING = "Search Key/Value pairs or Bloc ID or Search Fields to update have not been provided";

export function updateRecordsRoute(app: FastifyInstance, ctx: Context): void {
  app.post("/api/update-records-by-matching-values", {
    config: { endpoint: "update-records" },
    schema: {
      summary: "Update every record whose fields equal the search values",
      tags: ["records"],
      body: UpdateBody,
      response: { 200: UpdateAnswer, ...errorResponses("update-records") },
    },
    // The spec's one text for any of the three left out, under `error` (error-shapes.ts).
    schemaErrorFormatter: schemaErrorFormatter({ missing: MISSING }),
    preValidation: bodyAsObject,
  }, async (request) => {
    const params = bodyParams(request);
    const set = jsonObject(params, "fieldsToUpdate");
    const search = jsonObject(params, "searchItems");
    if (!present(params.blocId) || !set || !search || Object.keys(set).length === 0 || Object.keys(search).length === 0) {
      throw new MissingParameterError(MISSING);
    }
    const blocId = requiredId(params, "blocId");
    const ids = await updateRecords(ctx, currentPrincipal(request), { blocId, set, search });
    return { updated_record_ids: ids };
  });
}

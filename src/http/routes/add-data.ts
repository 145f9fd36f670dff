import type { FastifyInstance } from "fastify";
import { MissingParameterError } from "../../domain/errors.js";
import type { Context } from "../../domain/context.js";
import { addRecord } from "../../domain/records.js";
import { currentPrincipal } from "../auth.js";
import { bodyParams } from "../body.js";
import { jsonObject, optionalString, requiredId } from "../params.js";

export function addDataRoute(app: FastifyInstance, ctx: Context): void {
  app.post("/api/add-data", {
    config: { endpoint: "add-data" },
    schema: { summary: "Add one record to a bloc", tags: ["records"] },
  }, async (request) => {
    const params = bodyParams(request);
    const blocId = requiredId(params, "scanStationID");
    const values = jsonObject(params, "dataToAdd");
    if (!values) throw new MissingParameterError("dataToAdd is required");
    const added = await addRecord(ctx, currentPrincipal(request), {
      blocId, jobId: optionalString(params, "jobID"), values,
    });
    return { returnedStationID: added.id, autogenerateReplacements: added.autogenerateReplacements };
  });
}

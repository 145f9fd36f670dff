import type { FastifyInstance } from "fastify";
import "@fastify/multipart";
import { MissingParameterError } from "../../domain/errors.js";
import type { Context } from "../../domain/context.js";
import { checkIdempotencyKey } from "../../domain/idempotency.js";
import type { Principal } from "../../domain/access.js";
import { addRecord, toStatus, type UploadedFile } from "../../domain/records.js";
import { currentPrincipal } from "../auth.js";
import { bodyParams } from "../body.js";
import { withMultipart, type UploadLimits } from "../multipart.js";
import { jsonObject, optionalId, present, requiredId, type Params } from "../params.js";

export function addDataRoute(app: FastifyInstance, ctx: Context, limits: UploadLimits): void {
  app.post("/api/add-data", {
    config: { endpoint: "add-data", multipart: true },
    schema: {
      summary: "Add one record to a bloc (JSON, or multipart/form-data with one part per file field)",
      tags: ["records"],
    },
  }, async (request) => {
    // Checked before any part of a multipart body is received.
    const idempotencyKey = checkIdempotencyKey(request.headers["idempotency-key"]);
    const add = async (principal: Principal, params: Params, files: UploadedFile[]): Promise<unknown> => {
      const blocId = requiredId(params, "scanStationID");
      const values = jsonObject(params, "dataToAdd");
      if (!values) throw new MissingParameterError("dataToAdd is required");
      const added = await addRecord(ctx, principal, {
        blocId, jobId: optionalId(params, "jobID"), values, files, idempotencyKey,
        submittedStatus: present(params.submittedStatus) ? toStatus("submittedStatus", params.submittedStatus) : 1,
      });
      return { returnedStationID: added.id, autogenerateReplacements: added.autogenerateReplacements };
    };
    if (request.isMultipart()) return withMultipart(ctx, request, limits, add);
    // A JSON body was read before the handler, and the token checked again after it (auth.ts).
    return add(currentPrincipal(request), bodyParams(request), []);
  });
}

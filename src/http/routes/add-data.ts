import type { FastifyInstance, FastifyRequest, FastifySchemaValidationError } from "fastify";
import "@fastify/multipart";
import { Type } from "@sinclair/typebox";
import { MissingParameterError } from "../../domain/errors.js";
import type { Context } from "../../domain/context.js";
import { checkIdempotencyKey } from "../../domain/idempotency.js";
import type { Principal } from "../../domain/access.js";
import { addRecord, toStatus, type UploadedFile } from "../../domain/records.js";
import { currentPrincipal } from "../auth.js";
import { bodyParams } from "../body.js";
import { bodyKind } from "../content-type.js";
import { errorResponses } from "../error-schemas.js";
import { withMultipart, type UploadLimits } from "../multipart.js";
import { jsonObject, optionalId, present, requiredId, type Params } from "../params.js";
import { schemaError, schemaErrorFormatter } from "../schema-errors.js";
import { AddDataAnswer, AddDataBody, AddDataMultipart } from "./record-schemas.js";

/**
 * Fastify picks a body schema by the exact media type: a JSON body sent without a
 * Content-Type, or as application/<name>+json, is checked against the same schema here;
 * a multipart body is checked once its parts are read (validate, below).
 */
async function validateBody(request: FastifyRequest): Promise<void> {
  if (request.isMultipart()) { request.body = {}; return; }
  request.body = bodyParams(request);
  if (request.mediaType !== "application/json" && bodyKind(request.headers["content-type"]) === "json") {
    validate(request, request.body as Params);
  }
}

function validate(request: FastifyRequest, params: Params): void {
  const check = request.compileValidationSchema(AddDataBody);
  if (!check(params)) throw schemaError((check.errors ?? []) as FastifySchemaValidationError[]);
}

export function addDataRoute(app: FastifyInstance, ctx: Context, limits: UploadLimits): void {
  app.post("/api/add-data", {
    config: { endpoint: "add-data", multipart: true },
    schema: {
      summary: "Add one record to a bloc (JSON, or multipart/form-data with one part per file field)",
      tags: ["records"],
      headers: Type.Object({
        "idempotency-key": Type.Optional(Type.String({ description: "1 to 255 printable ASCII characters: a retry with the same key adds nothing twice" })),
      }),
      body: { content: { "application/json": { schema: AddDataBody }, "multipart/form-data": { schema: AddDataMultipart } } },
      response: { 200: AddDataAnswer, ...errorResponses("add-data") },
    },
    schemaErrorFormatter: schemaErrorFormatter(),
    preValidation: validateBody,
  }, async (request) => {
    // Checked before any part of a multipart body is received.
    const idempotencyKey = checkIdempotencyKey(request.headers["idempotency-key"]);
    const add = async (principal: Principal, params: Params, files: UploadedFile[]): Promise<unknown> => {
      if (request.isMultipart()) validate(request, params);
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

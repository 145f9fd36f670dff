import type { FastifyInstance, FastifyRequest } from "fastify";
import "@fastify/multipart";
import { InvalidInputError, MissingParameterError, PayloadTooLargeError } from "../../domain/errors.js";
import type { Context } from "../../domain/context.js";
import { addRecord, toStatus, type UploadedFile } from "../../domain/records.js";
import { currentPrincipal } from "../auth.js";
import { bodyParams } from "../body.js";
import { jsonObject, optionalString, present, requiredId, type Params } from "../params.js";

/** A MIME type as a client may name it; anything else is served as bytes. */
const MIME = /^[A-Za-z0-9][\w.+-]*\/[A-Za-z0-9][\w.+-]*$/;

/**
 * Reads a multipart add-data: text parts become parameters, each file part is streamed
 * to disk as it arrives and held (in the store) until its record is written. If
 * anything fails, the holds are released and content no record or other upload uses
 * is removed, so a refused upload leaves nothing behind.
 */
async function withMultipart<T>(
  ctx: Context, request: FastifyRequest, work: (params: Params, files: UploadedFile[]) => Promise<T>,
): Promise<T> {
  const params: Record<string, unknown> = {};
  const files: UploadedFile[] = [];
  try {
    for await (const part of request.parts()) {
      if (part.type === "field") {
        if (typeof part.value !== "string") throw new InvalidInputError(`part ${part.fieldname} must be text`);
        params[part.fieldname] = part.value;
        continue;
      }
      const content = await ctx.blobs.receive(part.file);
      if (part.file.truncated) {
        await ctx.blobs.discard(content);
        throw new PayloadTooLargeError(`file ${part.fieldname} is larger than the limit`);
      }
      const hold = await ctx.store.holdContent(content.sha256, ctx.now());
      files.push({
        slug: part.fieldname, sha256: content.sha256, size: content.size, hold,
        name: part.filename || part.fieldname,
        type: MIME.test(part.mimetype) ? part.mimetype : "application/octet-stream",
      });
      await ctx.blobs.place(content);
    }
    return await work(params, files);
  } catch (error) {
    for (const file of files) {
      await ctx.store.releaseContent(file.hold, file.sha256, () => ctx.blobs.removeNow(file.sha256));
    }
    throw error;
  }
}

export function addDataRoute(app: FastifyInstance, ctx: Context): void {
  app.post("/api/add-data", {
    config: { endpoint: "add-data" },
    schema: {
      summary: "Add one record to a bloc (JSON, or multipart/form-data with one part per file field)",
      tags: ["records"],
    },
  }, async (request) => {
    const add = async (params: Params, files: UploadedFile[]): Promise<unknown> => {
      const blocId = requiredId(params, "scanStationID");
      const values = jsonObject(params, "dataToAdd");
      if (!values) throw new MissingParameterError("dataToAdd is required");
      const added = await addRecord(ctx, currentPrincipal(request), {
        blocId, jobId: optionalString(params, "jobID"), values, files,
        submittedStatus: present(params.submittedStatus) ? toStatus("submittedStatus", params.submittedStatus) : 1,
      });
      return { returnedStationID: added.id, autogenerateReplacements: added.autogenerateReplacements };
    };
    return request.isMultipart() ? withMultipart(ctx, request, add) : add(bodyParams(request), []);
  });
}

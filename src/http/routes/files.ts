import type { FastifyInstance } from "fastify";
import { Type, type Static } from "@sinclair/typebox";
import type { Context } from "../../domain/context.js";
import { fileForReader } from "../../domain/files.js";
import { visibleFileName } from "../../domain/file-names.js";
import { currentPrincipal } from "../auth.js";
import { errorResponses } from "../error-schemas.js";

const FileParams = Type.Object({ ref: Type.String({ maxLength: 100 }) });

export function filesRoute(app: FastifyInstance, ctx: Context): void {
  app.get<{ Params: Static<typeof FileParams> }>("/api/files/:ref", {
    schema: { summary: "A file uploaded with a record, to users who may read that record", tags: ["records"], params: FileParams,
      response: {
        ...errorResponses("public"),
        200: {
          description: "The file, as a download (Content-Disposition: attachment), with the type it was uploaded with",
          content: { "application/octet-stream": { schema: Type.String({ contentMediaType: "application/octet-stream" }) } },
        },
      },
    },
  }, async (request, reply) => {
    const file = await fileForReader(ctx, currentPrincipal(request), request.params.ref);
    const content = await ctx.blobs.open(file.sha256);
    // Names stored before uploads were cleaned are cleaned here too.
    const name = visibleFileName(file.name);
    // Always a download and never sniffed: an uploaded page must not run in the service's origin.
    return reply
      .type(file.type)
      .header("content-length", String(file.size))
      .header("content-disposition", `attachment; filename="${name.replace(/[^\x20-\x7e]|["\\]/g, "_")}"; filename*=UTF-8''${encodeURIComponent(name)}`)
      .header("x-content-type-options", "nosniff")
      .send(content);
  });
}

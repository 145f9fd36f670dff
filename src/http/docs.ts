import type { FastifyInstance } from "fastify";
import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import { setPageHeaders } from "./page-headers.js";

/** Where the interactive reference is served; its assets come from the package, never a CDN. */
export const DOCS_PREFIX = "/docs";

/**
 * The reference page runs Swagger UI's files from this origin and asks only this origin
 * (the document, "Try it out"); no inline script. Styles may be inline: Swagger UI's
 * components set them, and a style runs nothing.
 */
export const DOCS_CSP = [
  "default-src 'none'", "script-src 'self'", "style-src 'self' 'unsafe-inline'", "img-src 'self' data:", "font-src 'self' data:",
  "connect-src 'self'", "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'",
].join("; ");

/**
 * The OpenAPI 3.1 document, generated from the routes' schemas, at /api/openapi.json,
 * and the interactive reference (Swagger UI) at /docs. Register before the routes:
 * @fastify/swagger collects them as they are added.
 *
 * Response schemas describe the answers but do not serialize them: Fastify's schema
 * serializer would reorder get-data's `data` (named keys before "0", "1", …), turn a
 * null into "" or 0 where a schema says string or integer, and drop keys it does not
 * list. Answers are JSON.stringify'd as they were before the schemas; test/openapi.test.ts
 * checks real answers against the schemas instead.
 */
export async function installDocs(app: FastifyInstance): Promise<void> {
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  await app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: "Bloc Data Service",
        version: "1",
        description: "Reads, adds and updates the records of blocs. The four endpoints tagged `records` follow the spec: " +
          "their JSON-encoded string parameters, their GET bodies (also accepted as a query string or on POST) and " +
          "their per-endpoint error keys (`error` or `message`).",
      },
      components: { securitySchemes: { bearer: { type: "http", scheme: "bearer", description: "A token issued by an admin (POST /api/admin/users/{userId}/tokens or bloc-data init)" } } },
      security: [{ bearer: [] }],
    },
  });
  // In a scope of their own, so that the page's headers go with /docs and its files only.
  await app.register(async (scope) => {
    scope.addHook("onSend", async (_request, reply) => setPageHeaders(reply, DOCS_CSP));
    await scope.register(swaggerUi, {
      routePrefix: DOCS_PREFIX,
      // No online validator badge: the page asks nothing of any other host.
      validatorUrl: false,
      uiConfig: { deepLinking: true, docExpansion: "list" },
    });
  });
  app.get("/api/openapi.json", { schema: { hide: true } }, async () => app.swagger());
}

import Fastify, { type FastifyInstance } from "fastify";
import multipart from "@fastify/multipart";
import swagger from "@fastify/swagger";
import "./fastify-types.js";
import type { Context } from "../domain/context.js";
import { requireAdmin, requireUser } from "./auth.js";
import { BODY_LIMIT, installJsonParser } from "./body.js";
import { installErrorHandler } from "./error-handler.js";
import { addDataRoute } from "./routes/add-data.js";
import { adminAccessRoutes } from "./routes/admin-access.js";
import { adminBlocRoutes } from "./routes/admin-blocs.js";
import { adminUserRoutes } from "./routes/admin-users.js";
import { getDataReportRoute } from "./routes/get-data-report.js";
import { filesRoute } from "./routes/files.js";
import { getDataRoute } from "./routes/get-data.js";
import { meRoute } from "./routes/me.js";
import { updateRecordsRoute } from "./routes/update-records.js";

export interface AppOptions {
  readonly debug: boolean;
  readonly logLevel: string;
  readonly maxFileBytes: number;
}

/** The whole HTTP surface on one screen. Building does not listen; main.ts and tests do. */
export async function buildApp(ctx: Context, options: AppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: { level: options.logLevel },
    bodyLimit: BODY_LIMIT,
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, allErrors: false } },
  });
  app.decorateRequest("principal", null);
  installJsonParser(app);
  installErrorHandler(app, { debug: options.debug });
  await app.register(multipart, {
    limits: { fileSize: options.maxFileBytes, files: 20, fields: 50, fieldSize: BODY_LIMIT, parts: 100 },
  });
  await app.register(swagger, {
    openapi: { info: { title: "Bloc Data Service", version: "1" } },
  });

  // The pid tells which process of a WORKERS=N cluster answered.
  app.get("/health", { schema: { hide: true } }, async () => ({ status: "ok", pid: process.pid }));
  app.get("/api/openapi.json", { schema: { hide: true } }, async () => app.swagger());

  await app.register(async (scope) => {
    requireUser(scope, ctx);
    addDataRoute(scope, ctx);
    getDataRoute(scope, ctx);
    getDataReportRoute(scope, ctx);
    updateRecordsRoute(scope, ctx);
    meRoute(scope, ctx);
    filesRoute(scope, ctx);
  });
  await app.register(async (scope) => {
    scope.addHook("onRoute", (route) => { route.config = { ...route.config, endpoint: "admin" }; });
    requireAdmin(scope, ctx);
    adminUserRoutes(scope, ctx);
    adminBlocRoutes(scope, ctx);
    adminAccessRoutes(scope, ctx);
  });
  return app;
}

import Fastify, { type FastifyInstance } from "fastify";
import multipart from "@fastify/multipart";
import "./fastify-types.js";
import type { Context } from "../domain/context.js";
import { UnsupportedMediaTypeError } from "./http-errors.js";
import { requireAdmin, requireUser } from "./auth.js";
import { installBodyParser } from "./body.js";
import { closeUnread } from "./close.js";
import { installConsole } from "./console.js";
import { installCors } from "./cors.js";
import { installDocs } from "./docs.js";
import { installDraining } from "./draining.js";
import { hasBoundary } from "./content-type.js";
import { installErrorHandler } from "./error-handler.js";
import { installMetrics } from "./metrics.js";
import { installRateLimit } from "./rate-limit.js";
import { addDataRoute } from "./routes/add-data.js";
import { adminAccountRoutes, ownPasswordRoute, signInRoute } from "./routes/accounts.js";
import { adminAccessRoutes } from "./routes/admin-access.js";
import { adminBlocRoutes } from "./routes/admin-blocs.js";
import { adminHistoryRoutes } from "./routes/admin-history.js";
import { adminListingRoutes } from "./routes/admin-listing.js";
import { adminRecordRoutes } from "./routes/admin-records.js";
import { adminRemovalRoutes } from "./routes/admin-removals.js";
import { blocFieldsRoute } from "./routes/bloc-fields.js";
import { adminUserRoutes } from "./routes/admin-users.js";
import { adminWebhookRoutes } from "./routes/admin-webhooks.js";
import { eventsRoute } from "./routes/events.js";
import { EventRuntime } from "../events/runtime.js";
import { getDataReportRoute } from "./routes/get-data-report.js";
import { filesRoute } from "./routes/files.js";
import { getDataRoute } from "./routes/get-data.js";
import { userNamesRoute } from "./routes/user-names.js";
import { oneRecordRoute } from "./routes/one-record.js";
import { timelineRoute } from "./routes/timeline.js";
import { healthRoutes } from "./routes/health.js";
import { meRoute } from "./routes/me.js";
import { updateRecordsRoute } from "./routes/update-records.js";
import { deleteRecordsRoute } from "./routes/delete-records.js";
import { serverOptions, type AppOptions } from "./server-options.js";

export type { AppOptions };

/** The whole HTTP surface on one screen. Building does not listen; main.ts and tests do. */
export async function buildApp(ctx: Context, options: AppOptions): Promise<FastifyInstance> {
  const app = Fastify(serverOptions(options));
  app.decorateRequest("principal", null);
  installDraining(app);
  installBodyParser(app, options);
  installErrorHandler(app, options);
  await app.register(multipart, {
    limits: {
      fileSize: options.maxFileBytes, fieldSize: options.maxBodyBytes,
      parts: options.maxParts, files: options.maxParts, fields: options.maxParts,
    },
  });
  await installDocs(app);
  await installConsole(app);
  await installRateLimit(app, ctx.store, options.rateLimit ?? 0);
  await installCors(app, options.corsOrigins ?? []);
  installMetrics(app, options.metricsToken);

  app.addHook("onSend", async (request, reply) => {
    void reply.header("x-request-id", request.id);
    closeUnread(request, reply);
  });
  // Multipart bodies are streamed by the one route that takes them; any other refuses them unread.
  app.addHook("preValidation", async (request) => {
    if (request.is404 || !request.isMultipart()) return;
    if (!request.routeOptions.config.multipart) {
      throw new UnsupportedMediaTypeError("multipart/form-data is accepted by add-data only; send application/json");
    }
    if (!hasBoundary(request.headers["content-type"])) {
      throw new UnsupportedMediaTypeError("multipart/form-data needs a boundary parameter");
    }
  });

  healthRoutes(app, ctx);
  signInRoute(app, ctx, options.sessionHours);

  // Webhook delivery and the live streams' feed run as long as the server does; a stop ends
  // the streams first (they would hold it to its time limit), and delivery before the store closes.
  const events = new EventRuntime(ctx, options);
  app.addHook("preClose", async () => events.endStreams());
  app.addHook("onClose", async () => events.stop());

  await app.register(async (scope) => {
    requireUser(scope, ctx);
    addDataRoute(scope, ctx, options);
    getDataRoute(scope, ctx, options.maxResultLimit);
    getDataReportRoute(scope, ctx, options.maxReportPage);
    updateRecordsRoute(scope, ctx);
    deleteRecordsRoute(scope, ctx);
    meRoute(scope, ctx);
    ownPasswordRoute(scope, ctx);
    filesRoute(scope, ctx);
    eventsRoute(scope, ctx, events);
    blocFieldsRoute(scope, ctx);
    userNamesRoute(scope, ctx, options.maxResultLimit);
    oneRecordRoute(scope, ctx);
    timelineRoute(scope, ctx);
  });
  await app.register(async (scope) => {
    scope.addHook("onRoute", (route) => { route.config = { ...route.config, endpoint: "admin" }; });
    requireAdmin(scope, ctx);
    adminUserRoutes(scope, ctx);
    adminAccountRoutes(scope, ctx);
    adminListingRoutes(scope, ctx);
    adminBlocRoutes(scope, ctx);
    adminAccessRoutes(scope, ctx);
    adminRemovalRoutes(scope, ctx);
    adminHistoryRoutes(scope, ctx);
    adminRecordRoutes(scope, ctx);
    adminWebhookRoutes(scope, ctx, events.send);
  });
  return app;
}

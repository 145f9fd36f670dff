import type { Server } from "node:http";
import type { FastifyHttpOptions, FastifyReply } from "fastify";
import type { Config } from "../config.js";
import { clientErrorHandler, loggerOptions, newRequestId } from "./logging.js";

/** What the HTTP layer reads from the configuration (docs/configuration.md). */
export type AppOptions = Pick<Config,
  "debug" | "logLevel" | "maxFileBytes" | "maxBodyBytes" | "maxResultLimit" | "maxReportPage" | "maxParts" |
  "requestTimeoutMs" | "uploadTimeoutMs" | "headersTimeoutMs" | "idleTimeoutMs" | "rateLimit" |
  "corsOrigins" | "metricsToken" | "eventsPollMs" | "eventsKeepHours" | "eventStreamsMax" | "eventStreamsPerUser" |
  "webhookDelivery" |
  "webhookTimeoutMs" | "webhookRetryMs" | "webhookRetryForMs" | "webhookQuoteReplies" | "sessionHours">;

/** Past our own deadlines (body.ts, multipart.ts), Node's: a backstop for whatever they do not cover. */
const NODE_TIMEOUT_MARGIN_MS = 5_000;

/** Fastify's and Node's server settings: logs, request ids, body limit, timeouts, the router's refusals. */
export function serverOptions(options: AppOptions): FastifyHttpOptions<Server> {
  const requestTimeout = Math.max(options.requestTimeoutMs, options.uploadTimeoutMs) + NODE_TIMEOUT_MARGIN_MS;
  const headersTimeout = Math.min(options.headersTimeoutMs, requestTimeout);
  return {
    logger: loggerOptions(options.logLevel),
    genReqId: newRequestId,
    bodyLimit: options.maxBodyBytes,
    keepAliveTimeout: options.idleTimeoutMs,
    requestTimeout,
    // Node checks these timeouts only every connectionsCheckingInterval (30 s by default).
    http: { requestTimeout, headersTimeout, connectionsCheckingInterval: Math.min(1_000, headersTimeout) },
    clientErrorHandler,
    // Long path parameters reach the routes' schemas, which refuse IDs over MAX_ID_LENGTH with
    // the endpoint's 400, instead of the router's own 414 in another shape.
    routerOptions: { maxParamLength: 16 * 1024 },
    // The router's own refusals (a URL with bad percent-encoding) in our shape too.
    frameworkErrors: (error, request, reply) => {
      void (reply as FastifyReply).status(error.statusCode ?? 400).type("application/json; charset=utf-8")
        .header("x-request-id", request.id)
        .send({ error: `The URL is not valid: ${error.code === "FST_ERR_BAD_URL" ? "bad percent-encoding" : error.code}` });
    },
    // verbose: schema refusals quote the value and the failing schema's description (schema-errors.ts).
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, allErrors: false, verbose: true } },
  };
}

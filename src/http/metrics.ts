import crypto from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { httpDuration, httpRequests, METRICS_CONTENT_TYPE } from "../metrics/registry.js";
import { clusterMetrics } from "../metrics/cluster-metrics.js";

/** The route label of a request no route matched: its URL is the client's, not ours to label with. */
const UNMATCHED = "(unmatched)";

function sha256(text: string): Buffer {
  return crypto.createHash("sha256").update(text, "utf8").digest();
}

/** Whether the request carries the metrics token; compared in constant time (of the hashes: the lengths may differ). */
function authorised(request: FastifyRequest, expected: Buffer): boolean {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? "");
  return match !== null && crypto.timingSafeEqual(sha256(match[1]!), expected);
}

/**
 * Counts every answer by method, route pattern and status (the pattern, never the URL:
 * IDs and values stay out of the labels), and serves GET /metrics in the Prometheus
 * text format, behind BLOC_METRICS_TOKEN when it is set.
 */
export function installMetrics(app: FastifyInstance, token: string | undefined): void {
  app.addHook("onResponse", async (request: FastifyRequest, reply: FastifyReply) => {
    const labels = {
      method: request.method,
      route: request.routeOptions.url ?? UNMATCHED,
      status: String(reply.statusCode),
    };
    httpRequests.inc(labels);
    httpDuration.observe(labels, reply.elapsedTime / 1000);
  });

  const errorBody = {
    content: { "application/json": { schema: { type: "object", properties: { error: { type: "string" } }, required: ["error"] } } },
  };
  const expected = token === undefined ? undefined : sha256(token);
  app.get("/metrics", {
    schema: {
      summary: "Prometheus metrics of the service (text exposition format)",
      description: "Needs `Authorization: Bearer <BLOC_METRICS_TOKEN>` when that setting is set; open otherwise.",
      tags: ["health"],
      security: token === undefined ? [] : [{ bearer: [] }],
      response: {
        200: { description: "Prometheus text format, version 0.0.4", content: { "text/plain": { schema: { type: "string" } } } },
        401: { description: "BLOC_METRICS_TOKEN is set and the request does not carry it", ...errorBody },
        503: { description: "The cluster's workers did not answer in time", ...errorBody },
      },
    },
  }, async (request, reply) => {
    if (expected && !authorised(request, expected)) {
      return reply.status(401).header("www-authenticate", "Bearer")
        .send({ error: "GET /metrics needs an Authorization header with the Bearer token BLOC_METRICS_TOKEN names" });
    }
    let text: string;
    try {
      text = await clusterMetrics();
    } catch (error) {
      return reply.status(503).send({ error: `The cluster's metrics could not be gathered: ${(error as Error).message}` });
    }
    return reply.type(METRICS_CONTENT_TYPE).send(text);
  });
}

import type { FastifyInstance, RouteOptions } from "fastify";

/**
 * A read endpoint on GET and POST, both with a JSON body. Fastify refuses a body schema
 * on the HEAD route it would add beside GET, so that twin is added here without one (the
 * handler reads the query string, as HEAD carries no body) and left out of the OpenAPI
 * document, as every HEAD route is.
 */
export function readRoute(app: FastifyInstance, route: Omit<RouteOptions, "method">): void {
  app.route({ ...route, method: ["GET", "POST"], exposeHeadRoute: false });
  const { body: _body, ...schema } = route.schema ?? {};
  app.route({ ...route, method: "HEAD", schema: { ...schema, hide: true } });
}

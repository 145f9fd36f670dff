import type { User } from "../domain/model.js";
import type { Endpoint } from "./error-shapes.js";

declare module "fastify" {
  interface FastifyContextConfig {
    /** Which of the spec's error shapes the route answers with. */
    endpoint?: Endpoint;
  }
  interface FastifyRequest {
    user: User | null;
  }
}

import type { Principal } from "../domain/access.js";
import type { Endpoint } from "./error-shapes.js";

declare module "fastify" {
  interface FastifyContextConfig {
    /** Which of the spec's error shapes the route answers with. */
    endpoint?: Endpoint;
    /** Whether the route takes multipart/form-data (add-data); any other answers it 415. */
    multipart?: boolean;
  }
  interface FastifyRequest {
    principal: Principal | null;
  }
}

import type { FastifyInstance } from "fastify";
import { Type } from "@sinclair/typebox";
import type { Context } from "../../domain/context.js";

const Ok = Type.Object({ status: Type.Literal("ok") });
/** No token: these answer anyone. */
const open = { tags: ["health"], security: [] };

/** How long /readyz waits for the database before calling it unreachable. */
const READY_TIMEOUT_MS = 2_000;

/** Probes for load balancers and orchestrators; no token. */
export function healthRoutes(app: FastifyInstance, ctx: Context): void {
  // The pid tells which process of a WORKERS=N cluster answered.
  app.get("/health", {
    schema: { ...open, summary: "Up, and which process answered", response: { 200: Type.Object({ status: Type.Literal("ok"), pid: Type.Integer() }) } },
  }, async () => ({ status: "ok", pid: process.pid }));

  // Liveness: the process is up and serving; says nothing of the database.
  app.get("/healthz", { schema: { ...open, summary: "Liveness: the process serves", response: { 200: Ok } } }, async () => ({ status: "ok" }));

  // Readiness: the store answers a trivial query within READY_TIMEOUT_MS.
  app.get("/readyz", {
    schema: {
      ...open, summary: "Readiness: the database answers",
      response: { 200: Ok, 503: Type.Object({ status: Type.Literal("unavailable"), error: Type.String() }) },
    },
  }, async (_request, reply) => {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error("timed out")), READY_TIMEOUT_MS);
    });
    try {
      await Promise.race([ctx.store.maintenance.ping(), late]);
      return { status: "ok" };
    } catch {
      return reply.status(503).send({ status: "unavailable", error: "The database cannot be reached" });
    } finally {
      clearTimeout(timer);
    }
  });
}

import type { FastifyInstance } from "fastify";
import type { Store } from "./domain/ports/store.js";

/** How a graceful stop ended. */
export interface StopOutcome {
  /** False when requests were still running at the time limit and their connections were cut. */
  readonly drained: boolean;
}

/**
 * Stops one server process the way SIGTERM asks: the port is closed at once (a load
 * balancer or the cluster primary sends new connections elsewhere), idle keep-alive
 * connections are closed, a request arriving on a busy one is answered 503 with
 * `Connection: close` (Fastify's return503OnClosing), and every request already in
 * progress — an upload still sending its body, a report still streaming — runs to its
 * end, and its connection closes with it (http/draining.ts), so the stop ends with the last
 * request. Only after `timeoutMs` are the connections still open cut. The store is closed
 * last, once no request can use it, so that nothing a request wrote is left half done.
 */
export async function stopGracefully(app: FastifyInstance, store: Store, timeoutMs: number): Promise<StopOutcome> {
  const closed = app.close();
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<false>((resolve) => { timer = setTimeout(() => resolve(false), timeoutMs); });
  const drained = await Promise.race([closed.then(() => true as const), limit]);
  clearTimeout(timer);
  if (!drained) {
    app.log.warn({ timeoutMs }, "requests still running at the shutdown time limit; closing their connections");
    app.server.closeAllConnections();
    await closed;
  }
  await store.close();
  return { drained };
}

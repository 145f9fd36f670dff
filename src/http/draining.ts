import type { ServerResponse } from "node:http";
import type { FastifyInstance } from "fastify";

/**
 * Once a stop has begun, every connection closes as its request ends. Node closes the
 * connections idle at that moment (server.close) and Fastify answers a request that
 * arrives later with 503 and `Connection: close`, but a request already in progress
 * ends on a kept-alive connection that nobody closes: the stop then waits for it until
 * BLOC_SHUTDOWN_TIMEOUT_MS although nothing is left to do.
 *
 * So the answers still to come say `Connection: close` (Node then closes the socket once
 * the answer is written), and one already under way (a report streaming) has its socket
 * ended once the answer is written.
 */
export function installDraining(app: FastifyInstance): void {
  const inProgress = new Set<ServerResponse>();
  // The server's own 'request' event: every request, whatever route or refusal answers it.
  app.server.on("request", (_request, response: ServerResponse) => {
    inProgress.add(response);
    const done = (): void => { inProgress.delete(response); };
    response.once("finish", done);
    response.once("close", done);
  });
  // preClose runs once Fastify refuses new requests (503), so the set holds all there will be.
  app.addHook("preClose", async () => {
    for (const response of inProgress) closeAfter(response);
  });
}

function closeAfter(response: ServerResponse): void {
  if (!response.headersSent) {
    response.setHeader("connection", "close");
    return;
  }
  const socket = response.socket;
  response.once("finish", () => {
    // destroySoon ends our side after the answer's last bytes, then destroys the socket.
    if (socket && !socket.destroyed) socket.destroySoon();
  });
}

import type { IncomingMessage } from "node:http";
import type { Socket } from "node:net";
import type { FastifyReply, FastifyRequest } from "fastify";

/** How long a refused request's unread body is still read and discarded after the answer. */
export const LINGER_MS = 5_000;

/**
 * A request answered before its body was read to the end (413, 408, 415, 401, 403 …)
 * gets `Connection: close`, and the connection is closed right after the answer, so a
 * client is never left waiting on a keep-alive connection whose input nobody reads.
 *
 * Closed how: Node ends and destroys such a socket as soon as the answer is written
 * (`destroySoon`). Destroying a socket with unread input makes the kernel send a reset,
 * and a client still sending its body (Python `requests` sends all of it before reading)
 * then loses the answer it was sent. So, like nginx and Apache ("lingering close"), this
 * socket's `destroySoon` ends our side (the client sees the answer, then end of stream),
 * keeps reading and discarding what still arrives, and destroys the socket once the body
 * has ended or after LINGER_MS.
 */
export function closeUnread(request: FastifyRequest, reply: FastifyReply): void {
  const raw = request.raw;
  if (raw.complete) return;
  void reply.header("connection", "close");
  const socket = raw.socket as Socket & { destroySoon?: () => void };
  if (socket.destroyed) return;
  socket.destroySoon = () => linger(socket, raw);
}

function linger(socket: Socket, raw: IncomingMessage): void {
  if (socket.writable) socket.end();
  const stop = (): void => {
    clearTimeout(timer);
    socket.destroy();
  };
  const timer = setTimeout(stop, LINGER_MS);
  timer.unref();
  socket.once("close", () => clearTimeout(timer));
  if (raw.complete) { stop(); return; }
  raw.once("end", stop);
  raw.once("close", stop);
  raw.resume();
}

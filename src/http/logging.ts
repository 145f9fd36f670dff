import crypto from "node:crypto";
import http from "node:http";
import type { Socket } from "node:net";
import type { FastifyRequest } from "fastify";

/**
 * What the JSON logs may hold. Every line of a request carries its `reqId` (also sent to
 * the client as X-Request-Id), and never a token, an Authorization header, a query string
 * (a client may put a token there) or a record value:
 * - a request is logged as its method and path only, never its headers or query;
 * - an error is logged as its class, code and stack frames, never its message: a driver's
 *   message can quote the values of the statement that failed;
 * - headers, wherever a library logs them (at trace level), are removed.
 */
export function loggerOptions(level: string): object {
  return {
    level,
    serializers: {
      req: (request: FastifyRequest) => ({ method: request.method, path: pathOf(request.url) }),
      res: (reply: { statusCode: number }) => ({ statusCode: reply.statusCode }),
      err: safeError,
    },
    redact: { paths: ["headers", "*.headers", "*.*.headers"], remove: true },
  };
}

/** The path of a request URL, without its query string. */
function pathOf(url: string): string {
  const cut = url.indexOf("?");
  return cut < 0 ? url : url.slice(0, cut);
}

/** An error as it may be logged: what kind it is and where it was thrown, not what it says. */
function safeError(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { type: typeof error };
  const code = (error as { code?: unknown }).code;
  const frames = (error.stack ?? "").split("\n").filter((line) => /^\s+at /.test(line)).map((line) => line.trim());
  return { type: error.constructor.name, ...(typeof code === "string" || typeof code === "number" ? { code } : {}), stack: frames };
}

/** Request IDs unique across the processes of a cluster and across restarts, unlike a counter. */
export function newRequestId(): string {
  return crypto.randomUUID();
}

/**
 * Node's own refusals (headers too slow or too large, a request timeout past our own
 * deadlines, a malformed request line) as JSON, like every other
 * answer; the connection is closed.
 */
export function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === "ECONNRESET" || socket.destroyed) return;
  const status = error.code === "ERR_HTTP_REQUEST_TIMEOUT" ? 408 : error.code === "HPE_HEADER_OVERFLOW" ? 431 : 400;
  const text = status === 408 ? "The request did not arrive in time"
    : status === 431 ? "The request headers are too large" : "The request is not valid HTTP";
  const answering = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && !answering?.headersSent) {
    // Refused before a route is known, so both of the spec's error keys: every client finds its own.
    const body = JSON.stringify({ error: text, message: text });
    socket.write(`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nConnection: close\r\n` +
      `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  }
  socket.destroy();
}

import net from "node:net";
import type { JsonBody } from "./json.js";

/**
 * A bare HTTP/1.1 client over node:net, for what node:http and fetch will not do: send a
 * GET with a 2 MiB body, write a whole body before reading anything (as Python's
 * `requests` does), pause half-way through a body, trickle it a byte at a time, and see
 * whether the server closes the connection after its answer.
 */
export interface RawReply {
  readonly status: number;
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string>>;
  readonly text: string;
  /** The parsed JSON body; undefined when the body is not JSON. */
  readonly json: JsonBody;
  /** Whether the server closed the connection (end of stream) after its answer. */
  readonly closed: boolean;
}

export interface RawRequest {
  readonly method: string;
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** The body, sent with a Content-Length unless `chunked`. */
  readonly body?: string | Buffer;
  /** Send the body with Transfer-Encoding: chunked (no length announced). */
  readonly chunked?: boolean;
  /** Bytes of the body sent before `pause` runs; the rest is sent once it resolves. */
  readonly splitAt?: number;
  readonly pause?: () => Promise<void>;
  /** Send the body this many bytes at a time, waiting `everyMs` between them. */
  readonly trickle?: { readonly bytes: number; readonly everyMs: number };
  /** Wait for the server to close the connection after its answer (default true); false resolves on the answer. */
  readonly untilClosed?: boolean;
  /** Hang guard: how long to wait for the answer and for the connection to close (default 15 s). */
  readonly waitMs?: number;
}

function parseReply(raw: Buffer): { status: number; headers: Record<string, string>; body: Buffer; complete: boolean } | undefined {
  const cut = raw.indexOf("\r\n\r\n");
  if (cut < 0) return undefined;
  const [statusLine = "", ...lines] = raw.subarray(0, cut).toString("latin1").split("\r\n");
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = raw.subarray(cut + 4);
  let complete = false;
  if (headers["content-length"] !== undefined) {
    const length = Number(headers["content-length"]);
    complete = body.length >= length;
    body = body.subarray(0, length);
  } else if (headers["transfer-encoding"] === "chunked") {
    const chunks: Buffer[] = [];
    let at = 0;
    for (;;) {
      const end = body.indexOf("\r\n", at);
      if (end < 0) break;
      const size = parseInt(body.subarray(at, end).toString("latin1"), 16);
      if (size === 0) { complete = true; break; }
      if (body.length < end + 2 + size) break;
      chunks.push(body.subarray(end + 2, end + 2 + size));
      at = end + 2 + size + 2;
    }
    body = Buffer.concat(chunks);
  }
  return { status: Number(statusLine.split(" ")[1]), headers, body, complete };
}

const wait = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Sends one request on a new connection; resolves once the answer is in and the connection closed, or the hang guard passes. */
export function rawRequest(base: string, request: RawRequest): Promise<RawReply> {
  const url = new URL(base);
  const body = request.body === undefined ? Buffer.alloc(0) : Buffer.from(request.body);
  const head = [`${request.method} ${request.path} HTTP/1.1`, `Host: ${url.host}`];
  for (const [name, value] of Object.entries(request.headers ?? {})) head.push(`${name}: ${value}`);
  if (request.body !== undefined) head.push(request.chunked ? "Transfer-Encoding: chunked" : `Content-Length: ${body.length}`);
  const waitMs = request.waitMs ?? 15_000;

  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(url.port), url.hostname);
    const received: Buffer[] = [];
    let closed = false;
    let settled = false;
    const settle = (): void => {
      if (settled) return;
      const reply = parseReply(Buffer.concat(received));
      if (!reply) return;
      if (!reply.complete && !closed) return;
      if (!closed && request.untilClosed !== false) return;
      settled = true;
      clearTimeout(guard);
      socket.destroy();
      const text = reply.body.toString("utf8");
      let json: unknown;
      try { json = JSON.parse(text); } catch { json = undefined; }
      resolve({ status: reply.status, headers: reply.headers, text, json, closed });
    };
    const guard = setTimeout(() => {
      if (settled) return;
      settled = true;
      socket.destroy();
      const reply = parseReply(Buffer.concat(received));
      if (!reply?.complete) { reject(new Error(`no complete answer within ${waitMs} ms: ${Buffer.concat(received).toString().slice(0, 300)}`)); return; }
      const text = reply.body.toString("utf8");
      let json: unknown;
      try { json = JSON.parse(text); } catch { json = undefined; }
      resolve({ status: reply.status, headers: reply.headers, text, json, closed: false });
    }, waitMs);
    socket.on("data", (chunk: Buffer) => { received.push(chunk); settle(); });
    socket.on("end", () => { closed = true; settle(); });
    socket.on("close", () => { closed = true; settle(); });
    // A server that stops reading may reset the connection while we still write: what it answered first still counts.
    socket.on("error", () => { closed = true; settle(); });

    const frame = (part: Buffer): Buffer => request.chunked
      ? Buffer.concat([Buffer.from(`${part.length.toString(16)}\r\n`), part, Buffer.from("\r\n")]) : part;
    const send = async (): Promise<void> => {
      socket.write(`${head.join("\r\n")}\r\n\r\n`);
      const first = request.splitAt ?? body.length;
      if (request.trickle) {
        for (let at = 0; at < body.length && !socket.destroyed; at += request.trickle.bytes) {
          socket.write(frame(body.subarray(at, at + request.trickle.bytes)));
          await wait(request.trickle.everyMs);
        }
      } else {
        if (first > 0) socket.write(frame(body.subarray(0, first)));
        if (request.pause) await request.pause();
        if (first < body.length && !socket.destroyed) socket.write(frame(body.subarray(first)));
      }
      if (request.chunked && !socket.destroyed) socket.write("0\r\n\r\n");
    };
    socket.once("connect", () => { send().catch(reject); });
  });
}

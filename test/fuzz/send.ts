import http from "node:http";
import net from "node:net";
import { BODY_LIMIT, type FuzzRequest } from "./request.js";

/** What came back, and how the connection behaved. */
export interface Answer {
  /** 0 when no answer came. */
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
  readonly ms: number;
  /** What went wrong on the wire; undefined when an answer came and the connection behaved. */
  readonly wireFailure?: string | undefined;
  /** The server closed the connection without answering (a truncated body may be answered that way). */
  readonly closedWithoutAnswer?: boolean;
  /**
   * For a request on a reused keep-alive connection that failed on the wire: the
   * request the connection served before, which may have left it unusable.
   */
  readonly reusedAfter?: Sent | undefined;
}

/** A request and its place in the run. */
export interface Sent {
  readonly index: number;
  readonly request: FuzzRequest;
}

export interface SendOptions {
  /** The hang guard: an answer that takes longer is a failure. */
  readonly deadlineMs: number;
}

/**
 * Sends one request the way its transport says: most through node:http on a keep-alive
 * agent, the others on a socket of their own so that the client can behave like one
 * that writes its whole body before reading, sends less than it promised, or trickles.
 */
export async function send(base: URL, agent: http.Agent | false, sent: Sent, options: SendOptions): Promise<Answer> {
  const kind = sent.request.transport.kind;
  if (kind === "http") return sendHttp(base, agent, sent, options);
  const answer = await sendRaw(base, sent.request, options, false);
  if ((kind === "whole-body-first" || kind === "chunked") && answer.closedWithoutAnswer) {
    // The server answered and closed while the body was still being written: a client
    // that reads after a failed send (Python's urllib3, curl) finds the answer in its
    // socket, but Node discards it on the write error. So this client never waited;
    // the answer itself is read again by a client that sends just over the limit and
    // then only reads.
    return sendRaw(base, sent.request, options, true);
  }
  return answer;
}

/** The last request each keep-alive connection carried. */
const lastOnSocket = new WeakMap<net.Socket, Sent>();

function sendHttp(base: URL, agent: http.Agent | false, sent: Sent, options: SendOptions): Promise<Answer> {
  const request = sent.request;
  const started = performance.now();
  const headers: Record<string, string> = { ...request.headers };
  if (request.body !== undefined) headers["content-length"] = String(request.body.length);
  return new Promise((resolve) => {
    let settled = false;
    let previous: Sent | undefined;
    const done = (answer: Omit<Answer, "ms">): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      const reusedAfter = answer.wireFailure !== undefined ? previous : undefined;
      resolve({ ...answer, ms: performance.now() - started, reusedAfter });
    };
    const outgoing = http.request({
      host: base.hostname, port: base.port, method: request.method, path: request.path, headers, agent,
    }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => done({ status: response.statusCode ?? 0, headers: flatHeaders(response.headers), body: Buffer.concat(chunks) }));
      response.on("error", (error) => done({ status: 0, headers: {}, body: Buffer.alloc(0), wireFailure: `answer cut off: ${error.message}` }));
    });
    const timer = setTimeout(() => {
      done({ status: 0, headers: {}, body: Buffer.alloc(0), wireFailure: `no answer within ${options.deadlineMs / 1000} s` });
      outgoing.destroy();
    }, options.deadlineMs);
    outgoing.on("socket", (socket) => {
      previous = lastOnSocket.get(socket);
      lastOnSocket.set(socket, sent);
    });
    outgoing.on("error", (error) => done({ status: 0, headers: {}, body: Buffer.alloc(0), wireFailure: `connection failed: ${error.message}` }));
    if (request.body !== undefined) outgoing.write(request.body);
    outgoing.end();
  });
}

function flatHeaders(headers: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) out[name] = Array.isArray(value) ? value.join(", ") : value;
  return out;
}

/** An HTTP/1.1 response read off a socket, byte by byte as it arrives. */
class ResponseReader {
  private buffer = Buffer.alloc(0);
  status = 0;
  headers: Record<string, string> = {};
  body = Buffer.alloc(0);
  complete = false;
  /** Bytes after the first response: the start of a second one (the health check on a reused connection). */
  rest = Buffer.alloc(0);

  push(chunk: Buffer): void {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    this.parse();
  }

  /** The server closed: a body without a length ends here. */
  end(): void {
    if (this.status !== 0 && !this.complete && this.headers["content-length"] === undefined && !this.chunked()) {
      this.body = this.buffer;
      this.complete = true;
    }
  }

  private chunked(): boolean {
    return (this.headers["transfer-encoding"] ?? "").toLowerCase().includes("chunked");
  }

  private parse(): void {
    if (this.complete) return;
    if (this.status === 0) {
      const end = this.buffer.indexOf("\r\n\r\n");
      if (end < 0) return;
      const lines = this.buffer.subarray(0, end).toString("latin1").split("\r\n");
      this.status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? "")?.[1] ?? -1);
      for (const line of lines.slice(1)) {
        const colon = line.indexOf(":");
        if (colon > 0) this.headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      this.buffer = this.buffer.subarray(end + 4);
    }
    const length = this.headers["content-length"];
    if (length !== undefined) {
      if (this.buffer.length >= Number(length)) {
        this.body = this.buffer.subarray(0, Number(length));
        this.rest = this.buffer.subarray(Number(length));
        this.complete = true;
      }
    } else if (this.chunked()) {
      this.parseChunks();
    }
  }

  private parseChunks(): void {
    const parts: Buffer[] = [];
    let at = 0;
    for (;;) {
      const lineEnd = this.buffer.indexOf("\r\n", at);
      if (lineEnd < 0) return;
      const size = parseInt(this.buffer.subarray(at, lineEnd).toString("latin1"), 16);
      if (Number.isNaN(size)) return;
      if (size === 0) {
        const trailerEnd = this.buffer.indexOf("\r\n\r\n", lineEnd);
        if (trailerEnd < 0 && this.buffer.length < lineEnd + 4) return;
        this.body = Buffer.concat(parts);
        this.rest = this.buffer.subarray(Math.max(lineEnd + 4, trailerEnd + 4));
        this.complete = true;
        return;
      }
      if (this.buffer.length < lineEnd + 2 + size + 2) return;
      parts.push(this.buffer.subarray(lineEnd + 2, lineEnd + 2 + size));
      at = lineEnd + 2 + size + 2;
    }
  }
}

/**
 * Writes the whole body, 64 KiB at a time, each step waiting until the kernel took the
 * last: between steps the answer is read as it arrives, as a client that sends before
 * reading still has it in its socket when it comes to read.
 */
async function writeInSteps(socket: net.Socket, bytes: Buffer, stop: () => boolean, upTo = bytes.length): Promise<void> {
  for (let at = 0; at < Math.min(upTo, bytes.length); at += 64 * 1024) {
    if (socket.destroyed) throw new Error("closed");
    if (stop()) return;
    await new Promise<void>((resolve, reject) => socket.write(bytes.subarray(at, at + 64 * 1024), (error) => (error ? reject(error) : resolve())));
  }
}

function head(base: URL, request: FuzzRequest, framing: Record<string, string>): Buffer {
  const lines = [`${request.method} ${request.path} HTTP/1.1`, `host: ${base.host}`, "connection: keep-alive"];
  for (const [name, value] of Object.entries({ ...request.headers, ...framing })) lines.push(`${name}: ${value}`);
  return Buffer.from(`${lines.join("\r\n")}\r\n\r\n`, "latin1");
}

function chunkedBody(body: Buffer): Buffer {
  const parts: Buffer[] = [];
  for (let at = 0; at < body.length; at += 64 * 1024) {
    const chunk = body.subarray(at, at + 64 * 1024);
    parts.push(Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from("\r\n"));
  }
  parts.push(Buffer.from("0\r\n\r\n"));
  return Buffer.concat(parts);
}

/**
 * One request on a socket of its own. The client only counts as served when it could
 * do what a real one does next: for a whole body, finish writing it (or see the server
 * close) and then use the connection again; for a cut-off body, see an answer or a close;
 * for a trickling body, get an answer while still sending.
 */
function sendRaw(base: URL, request: FuzzRequest, options: SendOptions, readingClient: boolean): Promise<Answer> {
  const started = performance.now();
  const transport = request.transport;
  const body = request.body ?? Buffer.alloc(0);
  const slow = transport.kind === "slow";
  const deadline = options.deadlineMs;
  return new Promise((resolve) => {
    const socket = net.connect({ host: base.hostname, port: Number(base.port), allowHalfOpen: true });
    const first = new ResponseReader();
    let second: ResponseReader | undefined;
    let written = false;
    let closed = false;
    let settled = false;
    let trickle: NodeJS.Timeout | undefined;
    const stopWriting = (): boolean => readingClient && first.complete;
    // A reading client sends only what takes the body over the limit, then waits for the answer.
    const upTo = readingClient ? BODY_LIMIT + 64 * 1024 : Number.POSITIVE_INFINITY;

    const finish = (failure?: string): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (trickle) clearInterval(trickle);
      socket.destroy();
      resolve({
        status: first.complete ? first.status : 0, headers: first.headers, body: first.body, ms: performance.now() - started,
        wireFailure: failure, closedWithoutAnswer: !first.complete && closed,
      });
    };

    /** Decides, after each event, whether the exchange is over. */
    const check = (): void => {
      if (settled) return;
      if (transport.kind === "truncated" || transport.kind === "slow") {
        if (first.complete) return finish();
        if (closed) return finish(slow ? "the server closed the connection without an answer" : undefined);
        return;
      }
      if (readingClient) {
        if (first.complete) return finish();
        if (closed) finish("the server closed the connection without an answer");
        return;
      }
      // A whole body: the answer, and then either the body all written or the connection closed.
      if (!first.complete) {
        if (closed) finish("the server closed the connection without an answer");
        return;
      }
      if (closed) return finish();
      if (!written) return;
      if (!second) {
        // The connection stays open: it must serve the next request (a body left unread would be read as one).
        second = new ResponseReader();
        if (first.rest.length > 0) second.push(first.rest);
        socket.write(`GET /health HTTP/1.1\r\nhost: ${base.host}\r\n\r\n`);
        return;
      }
      if (second.complete) {
        finish(second.status === 200 ? undefined : `the connection was unusable after the answer: the next request got ${second.status}`);
      }
    };

    const timer = setTimeout(() => {
      let why = `no answer within ${deadline / 1000} s`;
      if (first.complete && !written) why = `answered ${first.status} but left the connection open with the body unread for ${deadline / 1000} s`;
      else if (first.complete && second) why = `answered ${first.status}, then the reused connection did not answer for ${deadline / 1000} s`;
      else if (!first.complete && transport.kind === "truncated") why = `no answer and no close ${deadline / 1000} s after the client cut its body short`;
      finish(why);
    }, deadline);

    socket.on("data", (chunk: Buffer) => {
      if (!first.complete) first.push(chunk);
      else second?.push(chunk);
      check();
    });
    socket.on("end", () => { closed = true; first.end(); check(); });
    socket.on("close", () => { closed = true; first.end(); check(); });
    socket.on("error", () => { closed = true; check(); });
    socket.on("connect", () => {
      if (transport.kind === "chunked") {
        socket.write(head(base, request, { "transfer-encoding": "chunked" }));
        void writeInSteps(socket, chunkedBody(body), stopWriting, upTo).then(() => { written = true; check(); }, () => { closed = true; check(); });
        return;
      }
      socket.write(head(base, request, { "content-length": String(body.length) }));
      if (transport.kind === "whole-body-first") {
        // A reading client gives the server a moment to refuse on the headers alone, as
        // curl does with "Expect: 100-continue" for a large body.
        const pause = readingClient ? new Promise((resolve) => setTimeout(resolve, 500)) : Promise.resolve();
        void pause.then(() => writeInSteps(socket, body, stopWriting, upTo)).then(() => { written = true; check(); }, () => { closed = true; check(); });
        return;
      }
      if (transport.kind !== "truncated" && transport.kind !== "slow") return;
      // Never the whole body: a request that arrived complete would be a valid one.
      const sent = Math.min(Math.floor(body.length * transport.keep), Math.max(0, body.length - 1));
      socket.write(body.subarray(0, sent));
      if (transport.kind === "truncated") {
        socket.end();
        return;
      }
      let at = sent;
      trickle = setInterval(() => {
        if (at >= body.length - 1 || first.status !== 0 || closed) { clearInterval(trickle); return; }
        socket.write(body.subarray(at, at + 1));
        at += 1;
      }, transport.intervalMs);
    });
  });
}

import http from "node:http";
import net from "node:net";

/**
 * Requests held in flight on purpose, to see what a server does with them while it
 * stops: a report whose answer the client does not read yet, and an upload whose body
 * the client has not finished sending. Each on a connection of its own unless given a
 * (keep-alive) agent.
 */

export interface Finished {
  readonly status: number;
  readonly body: Buffer;
  /** Whether the answer arrived whole (the server ended it), rather than cut off. */
  readonly complete: boolean;
}

export interface HeldReport {
  readonly status: number;
  /** Bytes of the answer the client has read so far. */
  received(): number;
  /** Reads the rest of the answer. */
  finish(): Promise<Finished>;
}

/**
 * Asks for a report (a GET with a JSON body) and stops reading once its headers are
 * in: the server is then in the middle of streaming it, held back by the client.
 */
export function holdReport(base: string, token: string, json: unknown, agent: http.Agent | false = false): Promise<HeldReport> {
  const payload = JSON.stringify(json);
  return new Promise((resolve, reject) => {
    const request = http.request(new URL("/api/get-data-report", base), {
      method: "GET", agent,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "content-length": Buffer.byteLength(payload) },
    }, (response) => {
      response.pause();
      const chunks: Buffer[] = [];
      let ended = false;
      let result: Promise<Finished> | undefined;
      response.on("end", () => { ended = true; });
      resolve({
        status: response.statusCode ?? 0,
        received: () => chunks.reduce((sum, c) => sum + c.length, 0),
        finish: () => result ??= new Promise((done) => {
          const settle = (): void => done({ status: response.statusCode ?? 0, body: Buffer.concat(chunks), complete: ended });
          response.on("data", (chunk: Buffer) => chunks.push(chunk));
          response.once("close", settle);
          response.once("error", settle);
          response.resume();
        }),
      });
    });
    request.on("error", reject);
    request.end(payload);
  });
}

export interface HeldUpload {
  /** Sends the rest of the body and reads the whole answer. */
  finish(): Promise<Finished>;
}

/**
 * Starts an add-data whose body is sent in two halves. `Expect: 100-continue` makes the
 * server say when it has taken the request in (the request is then in progress there,
 * not waiting in a socket buffer); the first half follows, the second on `finish`.
 */
export function holdUpload(base: string, token: string, json: unknown, agent: http.Agent | false = false): Promise<HeldUpload> {
  const payload = Buffer.from(JSON.stringify(json));
  const half = Math.floor(payload.length / 2);
  return new Promise((resolve, reject) => {
    const request = http.request(new URL("/api/add-data", base), {
      method: "POST", agent,
      headers: {
        authorization: `Bearer ${token}`, "content-type": "application/json", "content-length": payload.length, expect: "100-continue",
      },
    });
    const answer = new Promise<Finished>((done, fail) => {
      request.on("response", (response) => {
        const chunks: Buffer[] = [];
        let ended = false;
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => { ended = true; });
        response.once("close", () => done({ status: response.statusCode ?? 0, body: Buffer.concat(chunks), complete: ended }));
      });
      request.on("error", fail);
    });
    answer.catch(() => undefined); // seen by finish()
    request.on("error", reject);
    request.once("continue", () => {
      request.write(payload.subarray(0, half), () => resolve({
        finish: () => {
          request.end(payload.subarray(half));
          return answer;
        },
      }));
    });
    request.flushHeaders();
  });
}

/** Whether a new connection to the server's port is refused (it stopped listening). */
export function refused(base: string): Promise<boolean> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname);
    socket.once("connect", () => { socket.destroy(); resolve(false); });
    socket.once("error", () => resolve(true));
  });
}

/** Waits until the server's port refuses new connections. */
export async function untilRefused(base: string, deadlineMs = 60_000): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (!(await refused(base))) {
    if (Date.now() > deadline) throw new Error(`${base} still accepts connections after ${deadlineMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

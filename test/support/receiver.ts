import crypto from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Conditions } from "./conditions.js";

/** One POST a receiver got: its headers, its raw body, and the body parsed. */
export interface Received {
  readonly headers: http.IncomingHttpHeaders;
  readonly raw: string;
  readonly body: { id: string; type: string; blocId: string; seq: number; at: string; [key: string]: unknown };
  /** The status it was answered with (0: not answered, the connection was cut). */
  status: number;
}

/** How the receiver answers the n-th request (1-based): a status, or "hang" to never answer. */
export type Answer = (n: number, received: Received) => number | "hang";

/**
 * A real webhook receiver on an ephemeral port of this machine: it keeps every request in
 * arrival order and answers as its `answer` says (200 by default). Hung requests stay open
 * until the sender gives up or `close` cuts them.
 */
export class Receiver {
  readonly received: Received[] = [];
  answer: Answer = () => 200;
  private readonly server: http.Server;
  private readonly conditions = new Conditions();

  private constructor() {
    this.server = http.createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        const raw = Buffer.concat(chunks).toString("utf8");
        const entry: Received = { headers: request.headers, raw, body: JSON.parse(raw) as Received["body"], status: 0 };
        this.received.push(entry);
        const status = this.answer(this.received.length, entry);
        if (status !== "hang") {
          entry.status = status;
          response.writeHead(status, { "content-type": "text/plain" }).end(status < 300 ? "ok" : "not now");
        }
        this.conditions.check();
      });
    });
  }

  static async start(): Promise<Receiver> {
    const receiver = new Receiver();
    await new Promise<void>((resolve) => receiver.server.listen(0, "127.0.0.1", resolve));
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }

  /** Requests answered 2xx, in arrival order. */
  get acknowledged(): Received[] {
    return this.received.filter((r) => r.status >= 200 && r.status < 300);
  }

  /** Resolves once `ready()` holds, checking after each request; fails after `timeoutMs`. */
  until(ready: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
    return this.conditions.until(ready, what, timeoutMs, () => `${this.received.length} requests received`);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** Whether a delivery's X-Bloc-Signature is the HMAC-SHA256 of its raw body under `secret`. */
export function signedWith(secret: string, received: Received): boolean {
  const expected = `sha256=${crypto.createHmac("sha256", secret).update(received.raw).digest("hex")}`;
  const sent = String(received.headers["x-bloc-signature"] ?? "");
  return sent.length === expected.length && crypto.timingSafeEqual(Buffer.from(sent), Buffer.from(expected));
}

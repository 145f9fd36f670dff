import http from "node:http";
import https from "node:https";
import { Readable } from "node:stream";
import { buffer } from "node:stream/consumers";
import { jsonAnswer, refusedAnswer } from "./errors.js";

export interface Outgoing {
  readonly method: string;
  /** Path from the service's root, e.g. `/api/get-data`. */
  readonly path: string;
  /** Sent as a JSON body (GET included: node:http sends what fetch refuses). */
  readonly json?: unknown;
  /** A body sent as is, with its own content type (multipart uploads). */
  readonly stream?: { readonly body: Readable; readonly contentType: string };
  readonly headers?: Readonly<Record<string, string>>;
}

export interface Incoming {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: Readable;
  readonly endpoint: string;
}

/**
 * What the admin API (admin.ts) needs of a transport: a request answered with JSON. Two
 * implement it: NodeTransport below, and FetchTransport (fetch-transport.ts) for browsers,
 * whose bundle must not load node:http.
 */
export interface Transport {
  json<T>(request: Outgoing, ok?: readonly number[]): Promise<T>;
}

/**
 * Requests over node:http(s), which (unlike fetch) send a body with GET, as the spec's
 * two read endpoints expect. One keep-alive agent per client: paging through a large
 * bloc reuses its connections.
 */
export class NodeTransport implements Transport {
  private readonly base: URL;
  private readonly agent: http.Agent;

  constructor(baseUrl: string, private readonly token: string, private readonly timeoutMs: number) {
    this.base = new URL(baseUrl.endsWith("/") ? baseUrl : `${baseUrl}/`);
    if (this.base.protocol !== "http:" && this.base.protocol !== "https:") {
      throw new TypeError(`The service URL must be http: or https:, got ${JSON.stringify(baseUrl)}`);
    }
    this.agent = this.base.protocol === "https:" ? new https.Agent({ keepAlive: true }) : new http.Agent({ keepAlive: true });
  }

  send(request: Outgoing): Promise<Incoming> {
    const url = new URL(request.path.replace(/^\//, ""), this.base);
    // No token: a client made only to sign in (BlocClient.authenticate) sends no Authorization header.
    const headers: Record<string, string> = { ...(this.token === "" ? {} : { authorization: `Bearer ${this.token}` }), ...request.headers };
    let payload: Buffer | undefined;
    if (request.json !== undefined) {
      payload = Buffer.from(JSON.stringify(request.json));
      headers["content-type"] = "application/json";
      headers["content-length"] = String(payload.length);
    } else if (request.stream) {
      headers["content-type"] = request.stream.contentType;
    }
    const module = url.protocol === "https:" ? https : http;
    return new Promise((resolve, reject) => {
      const outgoing = module.request(url, { method: request.method, headers, agent: this.agent }, (response) => {
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: response, endpoint: url.pathname });
      });
      outgoing.on("error", reject);
      if (this.timeoutMs > 0) {
        outgoing.setTimeout(this.timeoutMs, () => outgoing.destroy(new Error(`${url.pathname}: no answer within ${this.timeoutMs} ms`)));
      }
      if (payload) outgoing.end(payload);
      else if (request.stream) {
        request.stream.body.on("error", (error) => outgoing.destroy(error));
        request.stream.body.pipe(outgoing);
      } else outgoing.end();
    });
  }

  /** The JSON answer of a request expected to succeed with `ok`; anything else is a BlocApiError. */
  async json<T>(request: Outgoing, ok: readonly number[] = [200, 201]): Promise<T> {
    const incoming = await this.send(request);
    return jsonAnswer<T>(incoming.status, incoming.endpoint, (await buffer(incoming.body)).toString("utf8"), ok);
  }

  /** A streamed answer; a refusal (any status but 200) is read whole and thrown. */
  async stream(request: Outgoing): Promise<Incoming> {
    const incoming = await this.send(request);
    if (incoming.status === 200) return incoming;
    throw refusedAnswer(incoming.status, incoming.endpoint, (await buffer(incoming.body)).toString("utf8"));
  }

  close(): void {
    this.agent.destroy();
  }
}

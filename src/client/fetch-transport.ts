import { jsonAnswer, refusedAnswer } from "./errors.js";
import type { Outgoing, Transport } from "./transport.js";

/** A request as fetch sends it: a JSON body, or a FormData body for multipart uploads. */
export interface FetchOutgoing extends Outgoing {
  /** multipart/form-data; fetch writes the content type and its boundary. */
  readonly form?: FormData;
  /** Cancels the request, or the reading of its answer. */
  readonly signal?: AbortSignal;
}

type Fetch = (input: URL, init: RequestInit) => Promise<Response>;

/**
 * Requests over fetch, for browsers (and any runtime with fetch). fetch refuses a body
 * with GET, so a GET that carries JSON — the spec's two read endpoints — is sent as POST
 * with the same body, which this service documents as equivalent. Nothing here imports a
 * Node module, so a browser bundle can hold it.
 */
export class FetchTransport implements Transport {
  private readonly base: URL;
  private readonly fetcher: Fetch;

  constructor(baseUrl: string, private readonly token: string, fetcher?: Fetch) {
    this.base = new URL(baseUrl.endsWith("/") ? baseUrl : `${baseUrl}/`);
    if (this.base.protocol !== "http:" && this.base.protocol !== "https:") {
      throw new TypeError(`The service URL must be http: or https:, got ${JSON.stringify(baseUrl)}`);
    }
    // Bound: a browser's fetch called as a method of another object throws "Illegal invocation".
    this.fetcher = fetcher ?? ((input, init) => globalThis.fetch(input, init));
  }

  private url(request: Outgoing): URL {
    return new URL(request.path.replace(/^\//, ""), this.base);
  }

  /** The answer, whatever its status. */
  send(request: FetchOutgoing): Promise<Response> {
    if (request.stream) throw new TypeError("A streamed body needs the Node client (BlocClient); send FormData here");
    const url = this.url(request);
    const headers: Record<string, string> = { authorization: `Bearer ${this.token}`, ...request.headers };
    let method = request.method;
    let body: string | FormData | undefined;
    if (request.json !== undefined) {
      body = JSON.stringify(request.json);
      headers["content-type"] = "application/json";
      if (method === "GET") method = "POST";
    } else if (request.form) {
      body = request.form;
    }
    // The token travels in the header only: never in the URL, and no cookie is sent or kept.
    return this.fetcher(url, {
      method, headers, body, credentials: "omit", cache: "no-store", ...(request.signal ? { signal: request.signal } : {}),
    });
  }

  /** The JSON answer of a request expected to succeed with `ok`; anything else is a BlocApiError. */
  async json<T>(request: FetchOutgoing, ok: readonly number[] = [200, 201]): Promise<T> {
    const response = await this.send(request);
    return jsonAnswer<T>(response.status, this.url(request).pathname, await response.text(), ok);
  }

  /** A 200 answer, unread, for the caller to stream or take as a Blob; a refusal is read whole and thrown. */
  async ok(request: FetchOutgoing): Promise<Response> {
    const response = await this.send(request);
    if (response.status === 200) return response;
    throw refusedAnswer(response.status, this.url(request).pathname, await response.text());
  }
}

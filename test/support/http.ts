import http from "node:http";
import type { JsonBody } from "./json.js";

export interface Reply {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: Buffer;
  readonly text: string;
  /** The parsed JSON body; undefined when the body is not JSON. */
  readonly json: JsonBody;
}

export interface CallOptions {
  readonly token?: string;
  /** Sent as a JSON body, whatever the method (GET included). */
  readonly json?: unknown;
  /** Sent as is. */
  readonly body?: string | Buffer;
  readonly headers?: Record<string, string>;
  /** Node's global agent (keep-alive since Node 19) unless told. */
  readonly agent?: http.Agent;
}

/**
 * A plain node:http request, because fetch() refuses a GET with a body and the
 * spec's clients send exactly that.
 */
export function call(base: string, method: string, path: string, options: CallOptions = {}): Promise<Reply> {
  const headers: Record<string, string> = { ...options.headers };
  let payload: string | Buffer | undefined = options.body;
  if (options.json !== undefined) {
    payload = JSON.stringify(options.json);
    headers["content-type"] ??= "application/json";
  }
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  if (payload !== undefined) headers["content-length"] = String(Buffer.byteLength(payload));
  return new Promise((resolve, reject) => {
    const request = http.request(new URL(path, base), { method, headers, agent: options.agent }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => {
        const body = Buffer.concat(chunks);
        const text = body.toString("utf8");
        let json: unknown;
        try { json = JSON.parse(text); } catch { json = undefined; }
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body, text, json });
      });
      response.on("error", reject);
    });
    request.on("error", reject);
    if (payload !== undefined) request.write(payload);
    request.end();
  });
}

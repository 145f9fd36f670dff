import http from "node:http";
import https from "node:https";
import type { Send, SendResult } from "../domain/webhooks.js";

/** Bytes of a receiver's answer read before it is let go: enough to quote its first line in the log. */
const ANSWER_BYTES = 4096;
/** Characters of a receiver's answer quoted in a failed attempt's error, when quoting is on. */
const QUOTED = 200;

/** One line of at most QUOTED characters. */
function oneLine(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > QUOTED ? `${line.slice(0, QUOTED - 1)}…` : line;
}

/**
 * POSTs webhook deliveries over node:http(s), with connections kept alive per receiver.
 * Each attempt is bounded: `timeoutMs` for the whole exchange, and at most ANSWER_BYTES
 * of the answer read (the rest is discarded unread), so that a slow or talkative receiver
 * costs a bounded amount of time and memory. Redirects are not followed: a receiver that
 * moved is a failed attempt.
 *
 * A failed attempt's error gives the receiver's status and the size of its answer, never
 * its content: a webhook may name any address the service can reach, and its log must
 * not let an admin read internal answers through it. With `quoteReplies`
 * (BLOC_WEBHOOK_QUOTE_REPLIES=1) it quotes the answer's first 200 characters and a
 * redirect's location, to debug a receiver.
 */
export function makeSender(timeoutMs: number, quoteReplies = false): Send {
  const agents = { "http:": new http.Agent({ keepAlive: true }), "https:": new https.Agent({ keepAlive: true }) };
  return (url, body, headers, signal) => new Promise<SendResult>((resolve) => {
    const started = performance.now();
    const done = (statusCode: number | null, error: string | null): void => {
      resolve({ statusCode, error, durationMs: Math.round(performance.now() - started) });
    };
    const target = new URL(url);
    const module = target.protocol === "https:" ? https : http;
    const payload = Buffer.from(body);
    const request = module.request(target, {
      method: "POST",
      headers: { ...headers, "content-length": String(payload.length) },
      agent: target.protocol === "https:" ? agents["https:"] : agents["http:"],
      timeout: timeoutMs,
      signal,
    }, (response) => {
      const status = response.statusCode ?? 0;
      const chunks: Buffer[] = [];
      let size = 0;
      response.on("data", (chunk: Buffer) => {
        if (size < ANSWER_BYTES) chunks.push(chunk);
        size += chunk.length;
      });
      response.on("end", () => {
        if (status >= 200 && status < 300) { done(status, null); return; }
        const redirect = status >= 300 && status < 400;
        if (!quoteReplies) {
          done(status, `HTTP ${status}${redirect ? " (redirects are not followed)" : ""}, ${size} bytes`);
          return;
        }
        const text = oneLine(Buffer.concat(chunks).subarray(0, ANSWER_BYTES).toString("utf8"));
        const moved = redirect ? ` (redirects are not followed: ${response.headers.location ?? "no location"})` : "";
        done(status, `HTTP ${status}${moved}${text === "" ? "" : `: ${text}`}`);
      });
      response.on("error", (error) => done(status, oneLine(error.message)));
    });
    // The whole exchange, not only each quiet spell (the socket's own timeout), is bounded.
    const timer = setTimeout(() => request.destroy(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    request.on("close", () => clearTimeout(timer));
    request.on("timeout", () => request.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    request.on("error", (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      done(null, oneLine(error.code && !error.message.includes(error.code) ? `${error.code}: ${error.message}` : error.message));
    });
    request.end(payload);
  });
}

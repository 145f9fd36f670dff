import http from "node:http";
import { Conditions } from "./conditions.js";
import type { JsonBody } from "./json.js";

/** One Server-Sent Event as a client sees it. */
export interface SseEvent {
  readonly id: string | undefined;
  readonly event: string;
  readonly data: string;
}

/**
 * A live stream opened with node:http, parsed as EventSource parses it (the text/event-stream
 * format: `id:`, `event:`, `data:` lines, a blank line ends an event, `:` lines are comments).
 */
export class SseClient {
  readonly events: SseEvent[] = [];
  status = 0;
  /** The body of a refusal (not a stream). */
  text = "";
  ended = false;
  private request: http.ClientRequest | undefined;
  private readonly conditions = new Conditions();

  private constructor() {}

  /** Opens the stream; resolves once its answer's head has arrived (and, for a refusal, its body). */
  static open(base: string, path: string, token: string, lastEventId?: string): Promise<SseClient> {
    const client = new SseClient();
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: "text/event-stream" };
    if (lastEventId !== undefined) headers["last-event-id"] = lastEventId;
    return new Promise((resolve, reject) => {
      client.request = http.get(new URL(path, base), { headers }, (response) => {
        client.status = response.statusCode ?? 0;
        response.setEncoding("utf8");
        let buffer = "";
        response.on("data", (chunk: string) => {
          if (client.status !== 200) { client.text += chunk; return; }
          buffer += chunk;
          let end: number;
          while ((end = buffer.indexOf("\n\n")) >= 0) {
            client.parse(buffer.slice(0, end));
            buffer = buffer.slice(end + 2);
          }
        });
        response.on("end", () => { client.ended = true; client.wake(); if (client.status !== 200) resolve(client); });
        response.on("error", () => { client.ended = true; client.wake(); });
        if (client.status === 200) resolve(client);
      });
      client.request.on("error", (error) => { client.ended = true; client.wake(); reject(error); });
    });
  }

  private parse(block: string): void {
    let id: string | undefined;
    let event = "message";
    const data: string[] = [];
    for (const line of block.split("\n")) {
      if (line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "id") id = value;
      else if (field === "event") event = value;
      else if (field === "data") data.push(value);
    }
    if (data.length === 0 && id === undefined) return;
    this.events.push({ id, event, data: data.join("\n") });
    this.wake();
  }

  private wake(): void {
    this.conditions.check();
  }

  /** Events of these types, their data parsed. */
  of(...types: string[]): { id: string | undefined; event: string; body: JsonBody }[] {
    return this.events.filter((e) => types.includes(e.event)).map((e) => ({ id: e.id, event: e.event, body: JSON.parse(e.data) }));
  }

  /** The ID of the last event that carried one, as EventSource would send it on reconnecting. */
  get lastEventId(): string | undefined {
    return [...this.events].reverse().find((e) => e.id !== undefined)?.id;
  }

  until(ready: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
    return this.conditions.until(ready, what, timeoutMs,
      () => `${this.events.length} events: ${this.events.map((e) => e.event).join(", ")}`);
  }

  close(): void {
    this.request?.destroy();
  }
}

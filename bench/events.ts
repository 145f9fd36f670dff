import http from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startProcess } from "../test/support/process.js";
import { load, type Load } from "./measure.js";

const here = path.dirname(fileURLToPath(import.meta.url));

export interface EventsRun {
  /** add-data alone, and with one webhook and one live stream attached, interleaved rounds. */
  readonly without: Load[];
  readonly with: Load[];
  /** Deliveries the receiver acknowledged during the rounds with listeners, and events the stream received. */
  readonly delivered: number;
  readonly streamed: number;
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

export function eventsRatio(run: EventsRun): number {
  return median(run.with.map((l) => l.rps)) / median(run.without.map((l) => l.rps));
}

async function json(url: string, method: string, token: string, body?: unknown): Promise<{ status: number; json: any }> {
  const response = await fetch(url, {
    method, headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, json: text === "" ? undefined : JSON.parse(text) };
}

/** A live stream held open by this process, counting the record events it receives. */
function listen(url: string, token: string): { count(): number; close(): void } {
  let events = 0;
  const request = http.get(url, { headers: { authorization: `Bearer ${token}`, accept: "text/event-stream" } }, (response) => {
    response.setEncoding("utf8");
    response.on("data", (chunk: string) => { events += chunk.split("event: record.").length - 1; });
    response.on("error", () => undefined);
  });
  request.on("error", () => undefined);
  return { count: () => events, close: () => request.destroy() };
}

/**
 * add-data's throughput alone and with one webhook (to a receiver process on this
 * machine that acknowledges at once) and one live stream (held by this process, as a
 * dashboard's would be, by the admin so that every event is shown), in alternating
 * rounds so that both face the same machine. Each round with listeners attaches them
 * afresh, so that it starts with no backlog.
 */
export async function measureEvents(api: (p: string) => string, admin: string, blocId: string, body: unknown,
  connections: number, seconds: number, rounds: number, cwd: string): Promise<EventsRun> {
  const receiver = await startProcess({}, cwd, path.join(here, "webhook-receiver.js"));
  const count = async (): Promise<number> => Number(await (await fetch(receiver.url)).text());
  const adds = (): Promise<Load> => load({ url: api("/api/add-data"), method: "POST", token: admin, connections, seconds, body });
  const without: Load[] = [];
  const withListeners: Load[] = [];
  let delivered = 0;
  let streamed = 0;
  try {
    for (let round = 0; round < rounds; round += 1) {
      without.push(await adds());
      const hook = await json(api("/api/admin/webhooks"), "POST", admin, { url: `${receiver.url}/hook`, blocs: [blocId] });
      if (hook.status !== 201) throw new Error(`creating the webhook answered ${hook.status}`);
      const stream = listen(api(`/api/events?blocId=${encodeURIComponent(blocId)}`), admin);
      const before = await count();
      withListeners.push(await adds());
      delivered += (await count()) - before;
      streamed += stream.count();
      stream.close();
      await json(api(`/api/admin/webhooks/${hook.json.id}`), "DELETE", admin);
    }
  } finally {
    await receiver.stop();
  }
  return { without, with: withListeners, delivered, streamed };
}

import path from "node:path";
import { fileURLToPath } from "node:url";
import { startProcess } from "../test/support/process.js";
import { cpuMs, load, type Load } from "./measure.js";

const here = path.dirname(fileURLToPath(import.meta.url));

export interface EventsRun {
  /** add-data alone, and with one webhook and one live stream attached, interleaved rounds. */
  readonly without: Load[];
  readonly with: Load[];
  /** Deliveries the receiver acknowledged during the rounds with listeners, and events the stream received. */
  readonly delivered: number;
  readonly streamed: number;
  /**
   * CPU time per add-data request (µs) of the server, the listeners' process and the load
   * generator together, per round: unlike throughput, it does not move with whatever else
   * the machine runs.
   */
  readonly cpuWithout: number[];
  readonly cpuWith: number[];
}

export const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

export function eventsRatio(run: EventsRun): number {
  return median(run.with.map((l) => l.rps)) / median(run.without.map((l) => l.rps));
}

/** The throughput ratio the CPU figures imply on a machine these processes have to themselves. */
export function eventsCpuRatio(run: EventsRun): number {
  return median(run.cpuWithout) / median(run.cpuWith);
}

async function json(url: string, method: string, token: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  const response = await fetch(url, {
    method, headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, json: text === "" ? undefined : JSON.parse(text) };
}

/**
 * add-data's throughput alone and with one webhook and one live stream attached (both held
 * by a process of their own, bench/listeners.ts, as real receivers and dashboards would be;
 * the stream is the admin's, so every event is shown), in alternating rounds so that both
 * face the same machine. Each round with listeners attaches them afresh, so that it starts
 * with no backlog.
 */
export async function measureEvents(api: (p: string) => string, admin: string, blocId: string, body: unknown,
  connections: number, seconds: number, rounds: number, cwd: string, serverPid: number): Promise<EventsRun> {
  const receiver = await startProcess({}, cwd, path.join(here, "listeners.js"));
  const counts = async (): Promise<{ delivered: number; streamed: number }> => (await fetch(receiver.url)).json() as Promise<{ delivered: number; streamed: number }>;
  const pids = [serverPid, receiver.child.pid!];
  const cpuNow = (): number => pids.reduce((sum, pid) => sum + cpuMs(pid), 0) + (process.cpuUsage().user + process.cpuUsage().system) / 1000;
  const cpuWithout: number[] = [];
  const cpuWith: number[] = [];
  const adds = async (cpu: number[]): Promise<Load> => {
    const before = cpuNow();
    const result = await load({ url: api("/api/add-data"), method: "POST", token: admin, connections, seconds, body });
    // The warm-up's requests are not counted: its CPU is spread over the counted ones, alike for both.
    cpu.push(((cpuNow() - before) * 1000) / (result.requests * (1 + 0.5 / seconds)));
    return result;
  };
  const without: Load[] = [];
  const withListeners: Load[] = [];
  let delivered = 0;
  let streamed = 0;
  try {
    for (let round = 0; round < rounds; round += 1) {
      without.push(await adds(cpuWithout));
      const hook = await json(api("/api/admin/webhooks"), "POST", admin, { url: `${receiver.url}/hook`, blocs: [blocId] });
      if (hook.status !== 201) throw new Error(`creating the webhook answered ${hook.status}`);
      await fetch(`${receiver.url}/stream`, {
        method: "POST", body: JSON.stringify({ url: api(`/api/events?blocId=${encodeURIComponent(blocId)}`), token: admin }),
      });
      const before = await counts();
      withListeners.push(await adds(cpuWith));
      const after = await counts();
      delivered += after.delivered - before.delivered;
      streamed += after.streamed - before.streamed;
      await fetch(`${receiver.url}/stream`, { method: "DELETE" });
      await json(api(`/api/admin/webhooks/${(hook.json as { id: string }).id}`), "DELETE", admin);
    }
  } finally {
    await receiver.stop();
  }
  return { without, with: withListeners, delivered, streamed, cpuWithout, cpuWith };
}

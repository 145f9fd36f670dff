import cluster from "node:cluster";
import client from "prom-client";
import { processMetrics } from "./registry.js";

/**
 * With WORKERS=N, GET /metrics answers for the whole cluster: the worker that took the
 * request asks the primary, which gathers every worker's registry through prom-client's
 * AggregatorRegistry (counters and histograms summed, gauges as prom-client's default
 * metrics say) and sends the text back. A single process answers with its own.
 */

const REQUEST = "bloc-data-service:metrics-request";
const ANSWER = "bloc-data-service:metrics-answer";
/** Past prom-client's own 5 s wait for the workers. */
const ANSWER_TIMEOUT_MS = 10_000;

interface Request { readonly type: typeof REQUEST; readonly id: number }
interface Answer { readonly type: typeof ANSWER; readonly id: number; readonly text?: string; readonly error?: string }

function isMessage<T extends { type: string }>(message: unknown, type: T["type"]): message is T {
  return typeof message === "object" && message !== null && (message as { type?: unknown }).type === type;
}

/** In a cluster's primary: answers the workers' requests for the cluster's metrics. */
export function serveClusterMetrics(): void {
  const aggregator = new client.AggregatorRegistry();
  cluster.on("message", (worker, message: unknown) => {
    if (!isMessage<Request>(message, REQUEST)) return;
    const reply = (answer: Answer): void => { if (worker.isConnected()) worker.send(answer); };
    aggregator.clusterMetrics().then(
      (text) => reply({ type: ANSWER, id: message.id, text }),
      (error: unknown) => reply({ type: ANSWER, id: message.id, error: error instanceof Error ? error.message : String(error) }),
    );
  });
}

interface Waiting {
  readonly resolve: (text: string) => void;
  readonly reject: (error: Error) => void;
  readonly timer: NodeJS.Timeout;
}
const waiting = new Map<number, Waiting>();
let nextId = 0;

if (cluster.isWorker) {
  // Makes this worker answer the primary's AggregatorRegistry with its own registry.
  new client.AggregatorRegistry();
  process.on("message", (message: unknown) => {
    if (!isMessage<Answer>(message, ANSWER)) return;
    const entry = waiting.get(message.id);
    if (!entry) return;
    waiting.delete(message.id);
    clearTimeout(entry.timer);
    if (message.text !== undefined) entry.resolve(message.text);
    else entry.reject(new Error(message.error ?? "no answer"));
  });
}

/** The metrics GET /metrics serves: the whole cluster's in a worker, this process's otherwise. */
export function clusterMetrics(): Promise<string> {
  const send = process.send?.bind(process);
  if (!cluster.isWorker || !send) return processMetrics();
  const id = nextId++;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      waiting.delete(id);
      reject(new Error("the cluster's primary did not answer in time"));
    }, ANSWER_TIMEOUT_MS);
    waiting.set(id, { resolve, reject, timer });
    send({ type: REQUEST, id } satisfies Request);
  });
}

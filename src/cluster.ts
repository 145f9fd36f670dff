import cluster, { type Worker } from "node:cluster";
import net from "node:net";
import type { Config } from "./config.js";
import { serveClusterMetrics } from "./metrics/cluster-metrics.js";
import { openContext, warnOfWeakDurability } from "./open-context.js";
import { listenFailure } from "./start-up-errors.js";
import { whenStoreReachable } from "./wait-for-store.js";

/**
 * WORKERS=N: N server processes on one port (node:cluster). The primary serves no
 * request; it prepares the store, forks the workers, replaces one that dies, and stops
 * them all on SIGTERM/SIGINT. Each worker runs the ordinary server (main.ts).
 */

const LISTENING = "bloc-data-service:listening";
/**
 * How long past BLOC_SHUTDOWN_TIMEOUT_MS a stopping worker may take (to cut its last
 * connections and close its store) before the primary kills it.
 */
const STOP_MARGIN_MS = 5_000;

interface ListeningMessage {
  readonly type: typeof LISTENING;
  readonly address: string;
}

function isListening(message: unknown): message is ListeningMessage {
  return typeof message === "object" && message !== null && (message as { type?: unknown }).type === LISTENING;
}

/**
 * Says where the server listens: on stdout in a single process, to the primary in a
 * worker, so that the line is printed once however many workers there are.
 */
export function announceListening(address: string): void {
  if (cluster.isWorker && process.send) {
    process.send({ type: LISTENING, address } satisfies ListeningMessage);
  } else {
    process.stdout.write(`Bloc Data Service listening on ${address}\n`);
  }
}

function log(message: string): void {
  process.stderr.write(`bloc-data-service: ${message}\n`);
}

/**
 * The port the workers are to listen on, tried here first: PORT=0 asks for a free one, and
 * a port in use is said once, by the primary, rather than by every worker.
 */
function probePort(host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once("error", (error) => reject(listenFailure(error, { host, port })));
    probe.listen(port, host, () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

export async function runPrimary(config: Config): Promise<void> {
  // Migrations and the admin token run once, here, before any worker opens the store:
  // workers starting together would otherwise race to create the admin.
  const ctx = await whenStoreReachable(() => openContext(config), log);
  await warnOfWeakDurability(ctx.store);
  await ctx.store.close();

  const listened = new Set<Worker>();
  let announced = false;
  let stopping = false;

  const stopAll = (code: number): void => {
    if (stopping) return;
    stopping = true;
    const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined && !w.isDead());
    if (workers.length === 0) process.exit(code);
    let left = workers.length;
    // Each worker drains its own requests (shutdown.ts); the primary only waits for them to exit.
    const timer = setTimeout(() => {
      for (const w of workers) if (!w.isDead()) w.process.kill("SIGKILL");
    }, config.shutdownTimeoutMs + STOP_MARGIN_MS);
    for (const worker of workers) {
      worker.once("exit", () => {
        left -= 1;
        if (left === 0) { clearTimeout(timer); process.exit(code); }
      });
      worker.process.kill("SIGTERM");
    }
  };

  // Every worker, replacements included, gets the same port. For PORT=0 the primary picks
  // it: workers listening on 0 would share one only while at least one of them is alive.
  const port = await probePort(config.host, config.port);
  const fork = (): void => { cluster.fork({ PORT: String(port) }); };

  cluster.on("message", (worker, message: unknown) => {
    if (!isListening(message)) return;
    listened.add(worker);
    // Once every worker listens, so that the line means the whole cluster is ready.
    if (!announced && listened.size === config.workers) {
      announced = true;
      process.stdout.write(`Bloc Data Service listening on ${message.address} (${config.workers} workers)\n`);
    }
  });
  cluster.on("exit", (worker, code, signal) => {
    const how = signal ? `signal ${signal}` : `code ${code}`;
    if (stopping) return;
    if (!listened.has(worker)) {
      // It never started (the store unreachable, the port taken): another would fail alike.
      log(`a worker (pid ${worker.process.pid}) exited with ${how} before listening; stopping`);
      stopAll(1);
      return;
    }
    listened.delete(worker);
    log(`worker ${worker.process.pid} exited with ${how}; starting another`);
    fork();
  });
  // `on`, not `once`: a second signal (a process group signalled twice) must not kill the primary mid-drain.
  process.on("SIGINT", () => stopAll(0));
  process.on("SIGTERM", () => stopAll(0));
  serveClusterMetrics();

  for (let i = 0; i < config.workers; i += 1) fork();
}

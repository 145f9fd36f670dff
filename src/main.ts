import cluster from "node:cluster";
import { announceListening, runPrimary } from "./cluster.js";
import { ConfigError, readConfig } from "./config.js";
import { ServiceError } from "./domain/errors.js";
import { buildApp } from "./http/app.js";
import { openContext, warnOfWeakDurability } from "./open-context.js";
import { stopGracefully } from "./shutdown.js";
import { listenFailure } from "./start-up-errors.js";
import { whenStoreReachable } from "./wait-for-store.js";

function say(line: string): void {
  process.stderr.write(`bloc-data-service: ${line}\n`);
}

async function main(): Promise<void> {
  const config = readConfig();
  if (config.workers > 1 && cluster.isPrimary) return runPrimary(config);
  const ctx = await whenStoreReachable(() => openContext(config), say);
  // A cluster's primary has said it once for all its workers.
  if (cluster.isPrimary) await warnOfWeakDurability(ctx.store);
  const app = await buildApp(ctx, config);
  const address = await app.listen({ port: config.port, host: config.host }).catch((error: unknown) => { throw listenFailure(error, config); });
  announceListening(address);
  let stopping: Promise<void> | undefined;
  // SIGTERM (and SIGINT) drain: see shutdown.ts. A second signal changes nothing.
  const stop = (): Promise<void> => stopping ??= stopGracefully(app, ctx.store, config.shutdownTimeoutMs)
    .then(() => process.exit(0), (error: unknown) => {
      process.stderr.write(`bloc-data-service: stopping failed: ${error instanceof Error ? error.stack : String(error)}\n`);
      process.exit(1);
    });
  process.on("SIGINT", () => void stop());
  process.on("SIGTERM", () => void stop());
}

main().catch((error: unknown) => {
  // Configuration mistakes are the operator's to fix: one line, no stack.
  if (error instanceof ConfigError || error instanceof ServiceError) {
    process.stderr.write(`bloc-data-service: ${error.message}\n`);
  } else {
    process.stderr.write(`bloc-data-service: ${error instanceof Error ? error.stack : String(error)}\n`);
  }
  process.exit(1);
});

import cluster from "node:cluster";
import { announceListening, runPrimary } from "./cluster.js";
import { ConfigError, readConfig } from "./config.js";
import { ServiceError } from "./domain/errors.js";
import { buildApp } from "./http/app.js";
import { openContext } from "./open-context.js";

async function main(): Promise<void> {
  const config = readConfig();
  if (config.workers > 1 && cluster.isPrimary) return runPrimary(config);
  const ctx = await openContext(config);
  const app = await buildApp(ctx, { debug: config.debug, logLevel: config.logLevel, maxFileBytes: config.maxFileBytes });
  announceListening(await app.listen({ port: config.port, host: config.host }));
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => stopping ??= (async () => {
    await app.close();
    await ctx.store.close();
    process.exit(0);
  })();
  process.once("SIGINT", () => void stop());
  process.once("SIGTERM", () => void stop());
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

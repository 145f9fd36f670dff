import { ConfigError, readConfig } from "./config.js";
import { ServiceError } from "./domain/errors.js";
import { buildApp } from "./http/app.js";
import { openContext } from "./open-context.js";

async function main(): Promise<void> {
  const config = readConfig();
  const ctx = await openContext(config);
  const app = await buildApp(ctx, { debug: config.debug, logLevel: config.logLevel, maxFileBytes: config.maxFileBytes });
  const address = await app.listen({ port: config.port, host: config.host });
  process.stdout.write(`Bloc Data Service listening on ${address}\n`);
  const stop = async (): Promise<void> => {
    await app.close();
    await ctx.store.close();
    process.exit(0);
  };
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

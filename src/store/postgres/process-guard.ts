import { isDriverWriteFault } from "./driver-fault.js";
import { unavailable } from "./errors.js";

/**
 * What the PostgreSQL driver throws or rejects where no caller can catch it, kept from
 * ending the process; everything else uncaught ends it as Node would (its stack on
 * stderr, exit code 1).
 *
 * - Its write to a connection that has closed, from a timer (driver-fault.ts).
 * - A lost connection's error rejecting a promise nobody awaits: the driver looks up the
 *   array types on every connection it opens, before the connection takes a statement
 *   (node_modules/postgres/src/connection.js, fetchArrayTypes), and a connection reset
 *   during that lookup, or cut by the store for sending nothing (sockets.ts), rejected it
 *   unhandled. The connection is gone and the driver has failed what was queued on it (or
 *   that fails at BLOC_STORE_TIMEOUT_MS); the next connection looks the types up afresh.
 *   Only errors of a lost connection are so kept (errors.ts: unavailable), and told on
 *   stderr.
 */
let installed = false;

export function guardDriverFaults(): void {
  if (installed) return;
  installed = true;
  process.on("uncaughtException", (error, origin) => {
    if (isDriverWriteFault(error)) {
      process.stderr.write("bloc-data-service: warning: the PostgreSQL driver wrote to a closed connection (porsager/postgres#1154); ignored\n");
      return;
    }
    if (origin === "unhandledRejection" && unavailable(error)) {
      process.stderr.write(`bloc-data-service: warning: a connection to PostgreSQL was lost with nothing waiting on it (${error.message}); ignored\n`);
      return;
    }
    process.stderr.write(`${origin === "unhandledRejection" ? "Unhandled rejection: " : ""}${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  });
}

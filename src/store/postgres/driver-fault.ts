/**
 * postgres.js 3.4.9 (the latest release; fixes proposed in porsager/postgres#1168 and
 * #1209 are not released) writes to a connection's socket from a setImmediate after the
 * socket has closed: `TypeError: Cannot read properties of null (reading 'write')` in
 * connection.js nextWrite (porsager/postgres#1154, #1208). Thrown from a timer, no query
 * can catch it, and it ended the process. The store no longer writes to or releases a
 * connection it knows to be lost (write-transaction.ts), which is what triggered it here; this
 * guard is for what remains.
 *
 * Only that one error is kept from ending the process, and it is safe to: the write was
 * for a connection that is already closed, whose pending statements the driver failed
 * when it closed (or that fail at BLOC_STORE_TIMEOUT_MS), so nothing is left half done.
 * The bytes go nowhere, as they would have. Every other uncaught exception ends the
 * process as Node would: its stack on stderr, exit code 1.
 */

let installed = false;

export function isDriverWriteFault(error: unknown): boolean {
  if (!(error instanceof TypeError)) return false;
  const stack = error.stack ?? "";
  return /reading 'write'/.test(error.message) && /\bnextWrite\b/.test(stack) && /postgres[\\/]src[\\/]connection\.js/.test(stack);
}

export function guardDriverFaults(): void {
  if (installed) return;
  installed = true;
  process.on("uncaughtException", (error, origin) => {
    if (isDriverWriteFault(error)) {
      process.stderr.write("bloc-data-service: warning: the PostgreSQL driver wrote to a closed connection (porsager/postgres#1154); ignored\n");
      return;
    }
    process.stderr.write(`${origin === "unhandledRejection" ? "Unhandled rejection: " : ""}${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  });
}

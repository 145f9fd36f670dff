/**
 * postgres.js 3.4.9 (the latest release; fixes proposed in porsager/postgres#1168 and
 * #1209 are not released) writes to a connection's socket from a setImmediate after the
 * socket has closed: `TypeError: Cannot read properties of null (reading 'write')` in
 * connection.js nextWrite (porsager/postgres#1154, #1208). Thrown from a timer, no query
 * can catch it, and it ended the process. The store no longer writes to or releases a
 * connection it knows to be lost (write-transaction.ts), which is what triggered it here; this
 * guard is for what remains.
 *
 * It is safe to go on after it (process-guard.ts): the write was for a connection that is
 * already closed, whose pending statements the driver failed when it closed (or that fail
 * at BLOC_STORE_TIMEOUT_MS), so nothing is left half done. The bytes go nowhere, as they
 * would have.
 */

export function isDriverWriteFault(error: unknown): boolean {
  if (!(error instanceof TypeError)) return false;
  const stack = error.stack ?? "";
  return /reading 'write'/.test(error.message) && /\bnextWrite\b/.test(stack) && /postgres[\\/]src[\\/]connection\.js/.test(stack);
}

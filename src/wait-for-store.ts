import { StoreUnavailableError } from "./domain/errors.js";

/** How often a start that found the database out of reach tries again. */
const RETRY_MS = 1_000;
/** How often the wait is said again in the log. */
const REMIND_MS = 30_000;

/**
 * Opens what needs the store, waiting for the database while it is out of reach (the
 * server down or restarting, the network cut) instead of giving up: a worker replaced
 * during an outage would otherwise fail to start, and with it the whole service. A
 * setting that is wrong (no such database, refused credentials, no such host) is not
 * waited for: it fails at once, in one line. SIGTERM or SIGINT while waiting stop the
 * process, as they would a running one.
 */
export async function whenStoreReachable<T>(open: () => Promise<T>, say: (line: string) => void): Promise<T> {
  let said = 0;
  const stop = (): never => process.exit(0);
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
  try {
    for (;;) {
      try {
        return await open();
      } catch (error) {
        if (!(error instanceof StoreUnavailableError)) throw error;
        if (Date.now() - said >= REMIND_MS) {
          const why = error.cause instanceof Error ? error.cause.message : error.message;
          say(`the database is out of reach (${why}); waiting for it (trying every ${RETRY_MS / 1000} s)`);
          said = Date.now();
        }
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
      }
    }
  } finally {
    process.off("SIGTERM", stop);
    process.off("SIGINT", stop);
  }
}

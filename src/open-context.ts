import crypto from "node:crypto";
import type { Config } from "./config.js";
import { makeClock } from "./domain/clock.js";
import type { Context } from "./domain/context.js";
import { EventSignal } from "./domain/event-signal.js";
import { ensureAdminToken } from "./domain/users.js";
import { recountMissing } from "./domain/counting/recount.js";
import { setCountingThreshold } from "./domain/counting/keys.js";
import { telemetry } from "./metrics/registry.js";
import { timedStore } from "./metrics/timed-store.js";
import { filesDirFailure } from "./start-up-errors.js";
import { FileBlobs } from "./store/file-blobs.js";
import { openStore } from "./store/open-store.js";
import { refreshStatistics } from "./domain/capabilities.js";

/** The context a configuration describes: store opened, admin token ensured. */
export async function openContext(config: Config): Promise<Context> {
  setCountingThreshold(config.countedAbove);
  const ctx: Context = {
    store: timedStore(await openStore(config)),
    blobs: openBlobs(config.filesDir),
    now: makeClock(config.timezone),
    idStyle: config.idStyle,
    fieldCountsLimit: config.fieldCountsLimit,
    idempotencyMs: config.idempotencySeconds * 1000,
    limits: { maxValueBytes: config.maxValueBytes, maxFieldsPerRecord: config.maxFieldsPerRecord },
    newFileRef: () => crypto.randomUUID(),
    telemetry,
    events: new EventSignal(),
  };
  if (config.adminToken) await ensureAdminToken(ctx, config.adminToken);
  // Blocs an upgrade left without counters are counted before anything is answered from them.
  if (await recountMissing(ctx.store) > 0) await refreshStatistics(ctx.store);
  return ctx;
}

function openBlobs(dir: string): FileBlobs {
  try {
    return new FileBlobs(dir);
  } catch (error) {
    throw filesDirFailure(error, dir);
  }
}

/**
 * Says at start-up, on stderr, which of the store's settings weaken durability. It does
 * not refuse to start: the operator may have chosen them (a test database), and a
 * service that will not start is an outage of its own.
 */
export async function warnOfWeakDurability(store: Context["store"]): Promise<void> {
  for (const warning of (await store.maintenance.durability()).warnings) {
    process.stderr.write(`bloc-data-service: warning: ${warning}\n`);
  }
}

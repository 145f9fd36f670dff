import crypto from "node:crypto";
import type { Config } from "./config.js";
import { makeClock } from "./domain/clock.js";
import type { Context } from "./domain/context.js";
import { ensureAdminToken } from "./domain/users.js";
import { FileBlobs } from "./store/file-blobs.js";
import { openStore } from "./store/open-store.js";

/** The context a configuration describes: store opened, admin token ensured. */
export async function openContext(config: Config): Promise<Context> {
  const ctx: Context = {
    store: await openStore(config),
    blobs: new FileBlobs(config.filesDir),
    now: makeClock(config.timezone),
    idStyle: config.idStyle,
    fieldCountsLimit: config.fieldCountsLimit,
    newFileRef: () => crypto.randomUUID(),
  };
  if (config.adminToken) await ensureAdminToken(ctx, config.adminToken);
  return ctx;
}

import { AccessDeniedError, NotFoundError } from "./errors.js";
import { RECORD_ID_KEY, type StoredFile } from "./model.js";
import type { Context } from "./context.js";
import { requireAccess, type Principal } from "./access.js";
import { countVisibleRecords } from "./record-queries.js";

/**
 * The file behind a reference, if the principal may read the record it was uploaded
 * with (restrictions and profile filters included). Anyone else, and any unknown
 * reference, gets the same "not found".
 */
export async function fileForReader(ctx: Context, principal: Principal, ref: string): Promise<StoredFile> {
  const missing = new NotFoundError("File not found");
  const file = await ctx.store.files.findFile(ref);
  if (!file) throw missing;
  let visibility;
  try {
    ({ visibility } = await requireAccess(ctx, principal, file.blocId, "read"));
  } catch (error) {
    if (error instanceof AccessDeniedError || error instanceof NotFoundError) throw missing;
    throw error;
  }
  const visible = await countVisibleRecords(ctx.store, {
    blocId: file.blocId, visibility, match: [{ key: RECORD_ID_KEY, values: [String(file.recordId)] }],
  });
  if (visible === 0) throw missing;
  return file;
}

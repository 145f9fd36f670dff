import type { Context } from "./context.js";
import { requireAccess, type Principal } from "./access.js";
import { NotFoundError } from "./errors.js";
import { RECORD_ID_KEY, type Bloc, type StoredRecord } from "./model.js";

/**
 * One record of a bloc by its ID, as the principal may read it (a record page links here).
 * A record that is hidden from the reader, deleted or never made answers the same 404, so
 * that a hidden record cannot be told apart from a missing one.
 */
export async function readOneRecord(ctx: Context, principal: Principal, blocId: string, recordId: string): Promise<{ bloc: Bloc; record: StoredRecord }> {
  const { bloc, visibility } = await requireAccess(ctx, principal, blocId, "read");
  const missing = new NotFoundError(`Bloc "${bloc.id}" has no record ${recordId} that you can see`);
  if (!/^[1-9][0-9]{0,15}$/.test(recordId) || visibility.none) throw missing;
  const [record] = await ctx.store.records.findRecords({ blocId: bloc.id, visibility, match: [{ key: RECORD_ID_KEY, values: [recordId] }] });
  if (!record) throw missing;
  return { bloc, record };
}

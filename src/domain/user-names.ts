import type { Context } from "./context.js";
import { requireAccess, type Principal } from "./access.js";
import { listVisibleRows } from "./record-queries.js";
import type { Visibility } from "./model.js";
import type { StoreReads } from "./ports/store.js";

/**
 * The names of the users who created records the principal can see in a bloc, for the
 * IDs asked about; an ID that created no such record is left out, so that a restricted
 * reader learns no name (nor whether a user exists) through it. Each ID costs one
 * existence read of at most one record, on the records' (bloc, user, time) index.
 */
export async function userNames(ctx: Context, principal: Principal, blocId: string, ids: readonly string[]): Promise<Record<string, string>> {
  const { bloc, visibility } = await requireAccess(ctx, principal, blocId, "read");
  const names: Record<string, string> = Object.create(null) as Record<string, string>;
  const asked = [...new Set(ids)].filter((id) => visibility.ownerId === undefined || visibility.ownerId === id);
  if (visibility.none || asked.length === 0) return names;
  const creators = await ctx.store.snapshot(async (view) => {
    const found: string[] = [];
    for (const id of asked) if (await createdVisible(view, bloc.id, visibility, id)) found.push(id);
    return found;
  });
  for (const id of creators) {
    const user = await ctx.store.accounts.findUser(id);
    if (user) names[id] = user.name;
  }
  return names;
}

async function createdVisible(view: StoreReads, blocId: string, visibility: Visibility, userId: string): Promise<boolean> {
  const rows = await listVisibleRows(view, { blocId, visibility: { ...visibility, ownerId: userId } }, { order: "newest", limit: 1, offset: 0 }, []);
  return rows.length > 0;
}

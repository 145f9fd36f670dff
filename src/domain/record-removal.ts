import { ConflictError, NotFoundError } from "./errors.js";
import { STATUS_KEY, type Bloc, type RecordFilter, type StoredRecord } from "./model.js";
import type { Context } from "./context.js";
import type { Changes, HistoryEntry, Tx } from "./ports/store.js";
import { layoutOf } from "./counting/keys.js";
import { recordRemovedOrRestored } from "./events.js";
import type { Actor } from "./history.js";
import { requireAccess, type Principal } from "./access.js";
import { searchConditions, uniqueKeys } from "./records.js";
import { ownValue } from "./values.js";
import { lockBloc } from "./capabilities.js";

/**
 * Deleting and restoring records. A deleted record moves whole out of the records (to the
 * store's deleted records), so every read, count, report and update stops seeing it with
 * no query changed; its counters lose it in the same transaction, as an update's lose an
 * old value. Its files, history and ID stay: a restore brings it back as it was.
 */

/** Every value of the record, and its status, from `held` to "" (or back, restoring). */
function valuesAsChanges(record: StoredRecord, restoring: boolean): Changes {
  const changes: Record<string, { from: string; to: string }> = {};
  const change = (value: string): { from: string; to: string } => (restoring ? { from: "", to: value } : { from: value, to: "" });
  for (const [slug, value] of Object.entries(record.values)) changes[slug] = change(value);
  changes[STATUS_KEY] = change(String(record.submittedStatus));
  return changes;
}

function entryOf(record: StoredRecord, actor: Actor, restoring: boolean): HistoryEntry {
  return { recordId: record.id, action: restoring ? "restored" : "deleted", ...actor, changes: valuesAsChanges(record, restoring) };
}

/** Deletes every record the filter selects; returns their IDs ascending. */
async function deleteMatching(tx: Tx, bloc: Bloc, filter: RecordFilter, actor: Actor): Promise<number[]> {
  await lockBloc(tx, bloc.id);
  const found = await tx.records.findRecords(filter);
  if (found.length === 0) return [];
  // The bloc as of the lock: its profile-filtered fields decide which counters the records leave.
  const layout = layoutOf((await tx.blocs.findBloc(bloc.id)) ?? bloc);
  for (const record of found) tx.deltas.add({ ...record, blocId: bloc.id }, layout, -1);
  const ids = found.map((record) => record.id).sort((a, b) => a - b);
  await tx.records.insertHistory(bloc.id, found.map((record) => entryOf(record, actor, false)));
  await tx.records.moveToDeleted(bloc.id, ids, actor.at, actor.userId);
  await tx.events.appendEvents(bloc.id, found.map((record) =>
    recordRemovedOrRestored("record.deleted", record, { userId: actor.userId, tokenId: actor.tokenId }, actor.at)));
  return ids;
}

/**
 * Brings a deleted record back with its ID, values and counters. A value another record
 * has taken since in a field kept distinct refuses it (ConflictError), changing nothing.
 */
async function restoreDeleted(tx: Tx, blocId: string, id: number, actor: Actor): Promise<boolean> {
  await lockBloc(tx, blocId);
  const bloc = await tx.blocs.findBloc(blocId);
  const record = bloc && await tx.records.findDeletedRecord(blocId, id);
  if (!bloc || !record) return false;
  for (const { field, groupBy } of uniqueKeys(bloc)) {
    const value = ownValue(record.values, field.slug) ?? "";
    if (value === "") continue;
    const group = groupBy === null ? undefined : { slug: groupBy, value: ownValue(record.values, groupBy) ?? "" };
    if ((await tx.records.holders(bloc.id, { slug: field.slug, value, group }, 1)).length > 0) {
      throw new ConflictError(`Record ${id} cannot be restored: its ${field.slug} (${field.name}) "${value}" `
        + "is now held by another record, and that field's values must be unique");
    }
  }
  await tx.records.moveFromDeleted(bloc.id, id);
  tx.deltas.add({ ...record, blocId: bloc.id }, layoutOf(bloc), 1);
  await tx.records.insertHistory(bloc.id, [entryOf(record, actor, true)]);
  await tx.events.appendEvents(bloc.id, [
    recordRemovedOrRestored("record.restored", record, { userId: actor.userId, tokenId: actor.tokenId }, actor.at),
  ]);
  return true;
}

export interface DeleteRecordsInput {
  readonly blocId: string;
  readonly search: Readonly<Record<string, unknown>>;
}

/**
 * Deletes every record the principal may see whose values equal all of `search`
 * exactly (as update-records matches them); returns their IDs ascending.
 */
export async function deleteRecords(ctx: Context, principal: Principal, input: DeleteRecordsInput): Promise<number[]> {
  const { bloc, visibility } = await requireAccess(ctx, principal, input.blocId, "delete");
  const match = searchConditions(bloc, input.search, ctx.limits);
  const actor = { userId: principal.user.id, tokenId: principal.tokenId, at: ctx.now() };
  const ids = await ctx.store.transaction((tx) => deleteMatching(tx, bloc, { blocId: bloc.id, visibility, match }, actor));
  if (ids.length > 0) ctx.events.appended(bloc.id);
  return ids;
}

/** Restores a deleted record of a bloc (the admin API); an unknown bloc, or no such deleted record, is not found. */
export async function restoreRecord(ctx: Context, principal: Principal, blocId: string, recordId: string): Promise<{ blocId: string; recordId: number }> {
  const bloc = await ctx.store.blocs.findBloc(blocId);
  if (!bloc) throw new NotFoundError(`Bloc "${blocId}" does not exist`);
  const id = /^[1-9]\d{0,14}$/.test(recordId) ? Number(recordId) : undefined;
  const actor = { userId: principal.user.id, tokenId: principal.tokenId, at: ctx.now() };
  const restored = id !== undefined && await ctx.store.transaction((tx) => restoreDeleted(tx, bloc.id, id, actor));
  if (!restored) throw new NotFoundError(`Bloc "${bloc.id}" holds no deleted record "${recordId}"`);
  ctx.events.appended(bloc.id);
  return { blocId: bloc.id, recordId: id };
}

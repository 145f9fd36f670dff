import { NotFoundError } from "./errors.js";
import { STATUS_KEY, type StoredRecord } from "./model.js";
import type { Context } from "./context.js";
import type { Changes, HistoryAction, HistoryEntry } from "./ports/store.js";

/**
 * Record history: each update of a record keeps who made it, when, through which token,
 * and each value it changed, from what to what, written in the update's transaction
 * (record-writes.ts); a deletion keeps every value the record held (from it to ""), a
 * restore every value it holds again (from "" to it) (record-removal.ts). A value set to what it already was is no change, and an update
 * that changes nothing in a record adds nothing to its history.
 */

/** Who makes an update, and when. */
export interface Actor {
  readonly userId: string;
  readonly tokenId: string | null;
  readonly at: string;
}

/**
 * What setting `fields` (and `status`, when given) changes in `record`. A field never
 * set reads "", as everywhere: setting it to "" changes nothing.
 */
function changesOf(record: StoredRecord, fields: Readonly<Record<string, string>>, status: string | undefined): Changes {
  const changes: Record<string, { from: string; to: string }> = {};
  for (const [slug, to] of Object.entries(fields)) {
    const from = record.values[slug] ?? "";
    if (from !== to) changes[slug] = { from, to };
  }
  if (status !== undefined && String(record.submittedStatus) !== status) {
    changes[STATUS_KEY] = { from: String(record.submittedStatus), to: status };
  }
  return changes;
}

/** One history entry per record that the update changes. */
export function historyOf(
  before: readonly StoredRecord[], fields: Readonly<Record<string, string>>, status: string | undefined, actor: Actor,
): HistoryEntry[] {
  return before.flatMap((record) => {
    const changes = changesOf(record, fields, status);
    return Object.keys(changes).length === 0 ? [] : [{ recordId: record.id, action: "updated" as const, ...actor, changes }];
  });
}

export interface HistoryItem {
  readonly action: HistoryAction;
  readonly at: string;
  readonly userId: string;
  readonly tokenId: string | null;
  readonly changes: Changes;
}

/** A record's history, oldest first. An unknown bloc, or a record it does not hold, is not found. */
export async function recordHistory(ctx: Context, blocId: string, recordId: string): Promise<{ history: HistoryItem[] }> {
  const bloc = await ctx.store.blocs.findBloc(blocId);
  if (!bloc) throw new NotFoundError(`Bloc "${blocId}" does not exist`);
  const id = /^[1-9]\d{0,14}$/.test(recordId) ? Number(recordId) : undefined;
  const entries = id === undefined ? undefined : await ctx.store.records.recordHistory(bloc.id, id);
  if (!entries) throw new NotFoundError(`Record "${recordId}" does not exist in bloc "${bloc.id}"`);
  return { history: entries.map(({ action, at, userId, tokenId, changes }) => ({ action, at, userId, tokenId, changes })) };
}

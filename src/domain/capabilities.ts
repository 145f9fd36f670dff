import type { Store, TxViews } from "./ports/store.js";

/*
 * Where the domain's behaviour differs by engine, read from the capabilities each engine
 * declares (ports/capabilities.ts). An engine without a capability has no method for it.
 */

/** The port's method a capability promises, or an error naming the engine's broken promise. */
function promised<T>(method: T | undefined, name: string): T {
  if (method === undefined) throw new Error(`the store declares the capability behind ${name} but has no ${name}`);
  return method;
}

/**
 * Holds the bloc's other writers off until the transaction ends: what the unit reads of
 * the bloc's records from now on stays true until it commits. Where every write
 * transaction holds the whole database's writers off, that is already so.
 */
export async function lockBloc(tx: TxViews, blocId: string): Promise<void> {
  if (!tx.capabilities.perBlocLocks) return;
  await promised(tx.records.lockBloc, "records.lockBloc").call(tx.records, blocId);
}

/**
 * Claims a user's Idempotency-Key for the transaction; false when another transaction
 * holds it. Where every write transaction holds the whole database's writers off, no
 * other can.
 */
export async function claimIdempotencyKey(tx: TxViews, userId: string, keyHash: string): Promise<boolean> {
  if (!tx.capabilities.claimsIdempotencyKeys) return true;
  return promised(tx.idempotency.claimIdempotencyKey, "idempotency.claimIdempotencyKey").call(tx.idempotency, userId, keyHash);
}

/** Brings the planner's statistics up to date after a large load, on an engine that keeps them. */
export async function refreshStatistics(store: Store): Promise<void> {
  if (!store.capabilities.plannerStatistics) return;
  await promised(store.maintenance.refreshStatistics, "maintenance.refreshStatistics").call(store.maintenance);
}

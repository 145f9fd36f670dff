import type { Store, TxViews } from "./ports/store.js";

/*
 * Where the domain's behaviour differs by engine, read from the capabilities each engine
 * declares (ports/capabilities.ts). An engine without a capability has no method for it.
 */

/** An engine that declares a capability without the method it promises. */
function broken(name: string): Error {
  return new Error(`the store declares the capability behind ${name} but has no ${name}`);
}

/**
 * Holds the bloc's other writers off until the transaction ends: what the unit reads of
 * the bloc's records from now on stays true until it commits. Where every write
 * transaction holds the whole database's writers off, that is already so.
 */
export async function lockBloc(tx: TxViews, blocId: string): Promise<void> {
  if (!tx.capabilities.perBlocLocks) return;
  if (!tx.records.lockBloc) throw broken("records.lockBloc");
  await tx.records.lockBloc(blocId);
}

/**
 * Claims a user's Idempotency-Key for the transaction; false when another transaction
 * holds it. Where every write transaction holds the whole database's writers off, no
 * other can.
 */
export async function claimIdempotencyKey(tx: TxViews, userId: string, keyHash: string): Promise<boolean> {
  if (!tx.capabilities.claimsIdempotencyKeys) return true;
  if (!tx.idempotency.claimIdempotencyKey) throw broken("idempotency.claimIdempotencyKey");
  return tx.idempotency.claimIdempotencyKey(userId, keyHash);
}

/** Brings the planner's statistics up to date after a large load, on an engine that keeps them. */
export async function refreshStatistics(store: Store): Promise<void> {
  if (!store.capabilities.plannerStatistics) return;
  if (!store.maintenance.refreshStatistics) throw broken("maintenance.refreshStatistics");
  await store.maintenance.refreshStatistics();
}

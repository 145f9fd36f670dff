import type { Bloc } from "../model.js";
import type { StoreReads, TxViews } from "../ports/store.js";
import { ownerSegment, ownReadersOf, readAsOwn, type OwnReaders } from "./keys.js";

/*
 * Which owners of a bloc are read as `own`, for the rules in keys.ts (keepsScopes,
 * countsValues): read as committed in every settling, recount and restriction change.
 */

export async function ownReaders(view: Pick<TxViews, "access">, bloc: Pick<Bloc, "id" | "restriction">): Promise<OwnReaders> {
  // A user whose own restriction lifts the bloc's `own` still counts: a little kept for nothing, never a wrong answer.
  return ownReadersOf(bloc.restriction, bloc.restriction === "own" ? [] : await view.access.ownRestricted(bloc.id));
}

/**
 * Whether an owner's segment has scopes to answer from, for a reader (answers.ts): the
 * same rule as ownReaders, from the reads cached for access checks (an owner's restriction
 * changes their scopes in the transaction that changes it: settle.ts, followOwner).
 */
export async function ownerHasScopes(view: Pick<StoreReads, "access">, bloc: Pick<Bloc, "id" | "restriction">, userId: string): Promise<boolean> {
  const facts = bloc.restriction === "own" ? undefined : await view.access.accessFacts(bloc.id, userId);
  return readAsOwn(ownerSegment(userId).key, ownReadersOf(bloc.restriction, facts?.restriction === "own" ? [userId] : []));
}

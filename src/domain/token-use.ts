import type { Context } from "./context.js";

/**
 * How fresh a token's "last used" time is: it is written at most once per this
 * interval per token and process, so a busy token costs one small write a minute, not
 * one per request. The time kept is that of the first request of each interval.
 */
export const TOKEN_USE_INTERVAL_MS = 60_000;

/** Past this many tokens remembered, those not written within the interval are forgotten. */
const PRUNE_AT = 10_000;

/** Per store (a test process opens several): token ID → when its use was last written, ms. */
const written = new WeakMap<object, Map<string, number>>();

/**
 * Notes that a token authenticated a request. The write runs on its own, outside the
 * request and any transaction, and the request does not wait for it; a failed write
 * (the store closing) is dropped, and the next request tries again.
 */
export function noteTokenUse(ctx: Context, tokenId: string): void {
  let seen = written.get(ctx.store);
  if (!seen) written.set(ctx.store, seen = new Map<string, number>());
  const nowMs = Date.now();
  const last = seen.get(tokenId);
  if (last !== undefined && nowMs - last < TOKEN_USE_INTERVAL_MS) return;
  if (seen.size >= PRUNE_AT) {
    for (const [id, at] of seen) if (nowMs - at >= TOKEN_USE_INTERVAL_MS) seen.delete(id);
  }
  seen.set(tokenId, nowMs);
  const map = seen;
  ctx.store.tokens.noteTokenUse(tokenId, ctx.now()).catch(() => {
    if (map.get(tokenId) === nowMs) map.delete(tokenId);
  });
}

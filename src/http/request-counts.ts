/**
 * Requests per token in the current time window, in this process's memory: how they are
 * counted on an engine whose capabilities say rateLimitScope "process" (SQLite). Only the current window is kept,
 * one entry per token seen in it, and only valid tokens are counted: it is bounded by
 * the tokens in use.
 */
export class RequestCounts {
  private window = -1;
  private current = new Map<string, number>();

  count(tokenId: string, window: number): number {
    // A later window starts empty; an earlier one (the clock stepped back) counts in the current one.
    if (window > this.window) {
      this.window = window;
      this.current = new Map();
    }
    const n = (this.current.get(tokenId) ?? 0) + 1;
    this.current.set(tokenId, n);
    return n;
  }
}

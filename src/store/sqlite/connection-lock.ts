/**
 * Hands the one SQLite connection of a process to one user at a time, the way a pool
 * of one would: a transaction or snapshot holds it across its awaits, so that no other
 * request's statement can run inside it (and see, or join, what it has not committed).
 * Correctness between processes comes from SQLite's own locks, not from this.
 */
export class ConnectionLock {
  private busy = false;
  private readonly waiting: (() => void)[] = [];

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.busy) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.busy = true;
    try {
      return await work();
    } finally {
      // Handed straight to the next in line, so that nobody can slip in between.
      const next = this.waiting.shift();
      if (next) next(); else this.busy = false;
    }
  }
}

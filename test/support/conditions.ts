/**
 * Waits on a condition that something else makes true (a request arriving, an event
 * streamed): `check()` after each change, `until` resolves once the condition holds.
 */
export class Conditions {
  private readonly waiters = new Set<() => void>();

  /** Something changed: every waiter looks at its condition again. */
  check(): void {
    for (const wake of [...this.waiters]) wake();
  }

  /** Resolves once `ready()` holds; fails after `timeoutMs`, saying `what` and the state `describe` gives. */
  async until(ready: () => boolean, what: string, timeoutMs: number, describe: () => string): Promise<void> {
    if (ready()) return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`${what}: not within ${timeoutMs} ms (${describe()})`));
      }, timeoutMs);
      const check = (): void => {
        if (!ready()) return;
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve();
      };
      this.waiters.add(check);
    });
  }
}

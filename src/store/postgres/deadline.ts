import { StoreUnavailableError } from "../../domain/errors.js";
import type { Sockets } from "./sockets.js";

/**
 * BLOC_STORE_TIMEOUT_MS for one piece of a request's store work: past it the work's
 * promise fails as the store being unavailable (503), whatever the driver is still
 * waiting for. `abandon` makes sure the work can no longer commit (a transaction's
 * connection is cut, so PostgreSQL rolls it back), and every connection that has waited
 * for an answer for half the deadline or more is cut too: a statement is answered in
 * milliseconds, so such a connection is on a dead route, and left alone it would hold its
 * place in the pool for the minutes TCP takes to give up.
 */
export class Deadline {
  private constructor(readonly at: number, readonly ms: number, private readonly sockets: Sockets | undefined) {}

  /** No deadline: work outside requests (migrations, bulk imports, backups, a CLI's copy). */
  static readonly NONE = new Deadline(Infinity, 0, undefined);

  static in(ms: number, sockets: Sockets): Deadline {
    return new Deadline(performance.now() + ms, ms, sockets);
  }

  static at(at: number, ms: number, sockets: Sockets): Deadline {
    return new Deadline(at, ms, sockets);
  }

  get passed(): boolean {
    return performance.now() >= this.at;
  }

  /** Runs `work`, failing it with StoreUnavailableError once the deadline passes. */
  async run<T>(work: () => Promise<T>, abandon?: () => void): Promise<T> {
    if (this.at === Infinity) return work();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => {
        abandon?.();
        this.sockets?.dropSilent(this.ms / 2);
        reject(new StoreUnavailableError(undefined, { cause: Object.assign(new Error(`no answer from PostgreSQL within ${this.ms} ms`), { code: "BLOC_STORE_TIMEOUT" }) }));
      }, Math.max(0, this.at - performance.now()));
    });
    try {
      return await Promise.race([work(), late]);
    } finally {
      clearTimeout(timer);
    }
  }
}

import type { Db } from "./driver.js";

/** How often the sessions left behind are asked to end, while any are. */
const RETRY_MS = 1_000;

/**
 * Server sessions of connections this process lost or cut mid-transaction. PostgreSQL
 * rolls such a transaction back, and lets go of its bloc lock, only when it learns the
 * connection is gone; across a partition that dropped packets without a reset it learns
 * that from TCP keepalives, by default hours later, and every write to that bloc waits
 * for the lock meanwhile. So each one is ended from a fresh connection as soon as the
 * server can be reached again (`pg_terminate_backend`: allowed on sessions of one's own
 * role). Only this service's sessions that are not idle are ended: a pid the server has
 * since given to another session of ours, idle in the pool, is left alone.
 */
export class Orphans {
  private readonly pids = new Set<number>();
  private timer: NodeJS.Timeout | undefined;
  private running = false;

  constructor(private readonly db: Db) {}

  /** The backend pid of a connection lost in a transaction (null: never learnt). */
  add(pid: number | null | undefined): void {
    if (pid === null || pid === undefined) return;
    this.pids.add(pid);
    this.timer ??= setInterval(() => void this.endThem(), RETRY_MS).unref();
    void this.endThem();
  }

  /** Stops trying (the store is closing). */
  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.pids.clear();
  }

  private async endThem(): Promise<void> {
    if (this.running || this.pids.size === 0) return;
    this.running = true;
    const asked = [...this.pids];
    try {
      await this.db.run(`SELECT pg_terminate_backend(a.pid) FROM pg_stat_activity a
        WHERE a.pid = ANY($1::int[]) AND a.pid <> pg_backend_pid() AND a.application_name = 'bloc-data' AND a.state <> 'idle'`, [asked]);
      for (const pid of asked) this.pids.delete(pid);
      if (this.pids.size === 0) {
        clearInterval(this.timer);
        this.timer = undefined;
      }
    } catch {
      // The server is still out of reach: the next tick asks again.
    } finally {
      this.running = false;
    }
  }
}

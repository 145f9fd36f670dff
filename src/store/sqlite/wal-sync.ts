import fs from "node:fs";

/** Flushes a file's data to disk (fdatasync) on libuv's thread pool, never blocking the event loop. */
export function syncFileData(file: string): Promise<void> {
  return new Promise((resolve, reject) => {
    // Opened by path each time: whatever the file at that path is now is what gets flushed.
    fs.open(file, "r", (openError, fd) => {
      if (openError) { reject(openError); return; }
      fs.fdatasync(fd, (syncError) => {
        fs.close(fd, (closeError) => {
          const error = syncError ?? closeError;
          if (error) reject(error); else resolve();
        });
      });
    });
  });
}

/** A failed flush: what was committed since the last good one may not be on disk. */
export class WalSyncFailedError extends Error {
  constructor(override readonly cause: unknown) {
    super(`could not flush the SQLite write-ahead log to disk (${cause instanceof Error ? cause.message : String(cause)}); ` +
      "writes are refused until the service is restarted");
  }
}

/**
 * The commit's sync, taken off the event loop and shared by every commit that waits for
 * it. The connection runs WAL with synchronous = NORMAL: a COMMIT writes its frames to the
 * -wal file without syncing it (SQLite still syncs the WAL before every checkpoint, the
 * database after it, and the WAL's header when the file starts over). After each write
 * transaction the store calls `committed`, hands the connection on, and waits for
 * `flushed` before answering: an fdatasync of the -wal file on the thread pool, started
 * after the commit, so that every answered write is on disk as under FULL. Meanwhile
 * the event loop goes on parsing and checking the next requests, and the next
 * transaction runs; commits that end while a flush runs share the next one.
 *
 * A failed flush fails the answers waiting for it, and every later write: after an
 * fsync error the kernel may have dropped the unwritten pages and report the next
 * fsync as a success, so nothing written since can be vouched for (PostgreSQL stops
 * on such an error for the same reason).
 */
export class WalSync {
  /** Write transactions committed, and how many of them a finished flush has covered. */
  private commits = 0;
  private flushedCommits = 0;
  /** The latest flush started, and how many commits it covers. */
  private latest: { readonly covers: number; readonly done: Promise<void> } | undefined;
  private failure: WalSyncFailedError | undefined;

  constructor(private readonly walFile: string, private readonly sync: (file: string) => Promise<void> = syncFileData) {}

  /** Throws if a flush failed: called before a write transaction begins. */
  check(): void {
    if (this.failure) throw this.failure;
  }

  /** Called right after each write transaction's COMMIT. */
  committed(): void {
    this.commits += 1;
  }

  /**
   * Resolves once every commit made so far is on disk; throws if a flush failed. A
   * commit does not wait for a flush that started before it to end: it starts its own
   * at once (the thread pool runs several), and later commits share it.
   */
  async flushed(): Promise<void> {
    const target = this.commits;
    if (this.flushedCommits >= target) return;
    this.check();
    if (!this.latest || this.latest.covers < target) this.latest = { covers: target, done: this.flush(target) };
    await this.latest.done;
    this.check();
  }

  private async flush(covers: number): Promise<void> {
    try {
      await this.sync(this.walFile);
      this.flushedCommits = Math.max(this.flushedCommits, covers);
    } catch (error) {
      this.failure ??= new WalSyncFailedError(error);
    }
  }
}

import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { GenerationCache } from "../generation-cache.js";
import { ConnectionLock } from "./connection-lock.js";
import { translate } from "./errors.js";
import { migrate } from "./schema.js";
import { Statements } from "./statements.js";
import { WalSync } from "./wal-sync.js";

/** WAL pages after which a COMMIT checkpoints (wal_autocheckpoint). */
export const CHECKPOINT_PAGES = 4000;
/** Bytes the -wal file is cut back to when the WAL starts over (journal_size_limit): twice what CHECKPOINT_PAGES fill. */
export const WAL_FILE_LIMIT = 32 * 1024 * 1024;

export interface SqliteConnectionOptions {
  /** Flushes the -wal file after each write transaction (wal-sync.ts); replaced only by tests. */
  readonly syncFile?: (file: string) => Promise<void>;
}

/**
 * A process's one connection to the SQLite file, opened and migrated, with what runs work
 * on it: held by one transaction or snapshot at a time (`lock`), and answering only once
 * what the work wrote, or may have read, is on disk (`durable`).
 */
export class SqliteConnection {
  readonly db: Database.Database;
  readonly sql: Statements;
  readonly lock = new ConnectionLock();
  readonly cache: GenerationCache;
  /** Flushes the WAL after each write transaction; undefined when the database runs another journal mode. */
  readonly walSync: WalSync | undefined;

  constructor(readonly file: string, options: SqliteConnectionOptions = {}) {
    if (file !== ":memory:") fs.mkdirSync(path.dirname(file), { recursive: true });
    this.db = new Database(file);
    const journal = String(this.db.pragma("journal_mode = WAL", { simple: true }));
    // FULL: an answered write must survive a power cut, not only a crash (durability.ts).
    this.db.pragma("synchronous = FULL");
    this.db.pragma("busy_timeout = 5000");
    this.db.pragma("foreign_keys = ON");
    migrate(this.db);
    // In WAL mode the commit's sync moves off the event loop (wal-sync.ts): NORMAL writes
    // the frames, WalSync flushes them before anyone is answered. Any other journal mode
    // (a file system that cannot hold a WAL, an in-memory database) stays FULL.
    if (journal === "wal" && !this.db.memory) {
      this.walSync = new WalSync(`${path.resolve(file)}-wal`, options.syncFile);
      this.db.pragma("synchronous = NORMAL");
      // A checkpoint copies the pages the WAL holds into the database, on the event loop,
      // in the COMMIT that crosses this many pages. The counters' pages change in every
      // commit, so at SQLite's default (1,000: every few group commits of a bloc in use)
      // the same pages were copied again and again; at 4,000 (16 MB of WAL) each is copied
      // about a quarter as often (add-data into a bloc in use: docs/performance.md).
      this.db.pragma(`wal_autocheckpoint = ${CHECKPOINT_PAGES}`);
      // One transaction larger than that (a bulk import, a restore) grows the -wal file past
      // it, and SQLite keeps the file at its largest unless told to cut it back when the WAL
      // starts over.
      this.db.pragma(`journal_size_limit = ${WAL_FILE_LIMIT}`);
    }
    this.sql = new Statements(this.db);
    const generation = this.sql.get("SELECT n FROM generation WHERE id = 1");
    this.cache = new GenerationCache(async () => (generation.get() as { n: number }).n);
  }

  /**
   * Resolves once every commit of this process so far is on disk. Whatever is answered
   * waits for it: a write's answer, and a read's, which may show a write that is not
   * answered yet.
   */
  durable(): Promise<void> {
    return this.walSync ? this.walSync.flushed() : Promise.resolve();
  }

  /** A write transaction, answered once durable; the connection is handed on at COMMIT. */
  async write<T>(work: () => Promise<T>): Promise<T> {
    const result = await this.lock.run(() => this.inTransaction("BEGIN IMMEDIATE", work));
    await this.durable();
    return result;
  }

  /**
   * A write whose caller need not wait for the disk: webhook bookkeeping, which a crash
   * can only roll back to an earlier position (its events are then sent again).
   */
  bookkeeping<T>(work: () => T): Promise<T> {
    return this.lock.run(() => this.inTransaction("BEGIN IMMEDIATE", async () => work()));
  }

  /** A read, answered once what it may have seen is durable. */
  async read<T>(work: () => Promise<T>): Promise<T> {
    const result = await this.lock.run(work);
    await this.durable();
    return result;
  }

  /**
   * Runs `work` between `begin` and COMMIT; anything thrown rolls it all back. A write
   * transaction (BEGIN IMMEDIATE) is counted for the WAL's flush (wal-sync.ts), which its
   * caller awaits before answering.
   */
  async inTransaction<T>(begin: string, work: () => Promise<T>): Promise<T> {
    const writes = begin !== "BEGIN";
    if (writes) this.walSync?.check();
    this.db.exec(begin);
    try {
      const result = await work();
      this.db.exec("COMMIT");
      if (writes) this.walSync?.committed();
      return result;
    } catch (error) {
      if (this.db.inTransaction) this.db.exec("ROLLBACK");
      this.cache.invalidate();
      throw translate(error);
    }
  }

  /**
   * `view` with every method run while holding the connection, outside any transaction,
   * and answering only once durable (what it read is then on disk): a Store's reads.
   */
  locked<T extends object>(view: T): T {
    return new Proxy(view, {
      get: (object, key) => {
        const value: unknown = Reflect.get(object, key);
        if (typeof value !== "function") return value;
        return async (...args: unknown[]) => {
          const result = await this.lock.run(async () => {
            try {
              return await (value as (...a: unknown[]) => unknown).apply(object, args);
            } catch (error) {
              throw translate(error);
            }
          });
          await this.durable();
          return result;
        };
      },
    });
  }
}

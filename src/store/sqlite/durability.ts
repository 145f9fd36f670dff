import type Database from "better-sqlite3";
import type { Durability } from "../../domain/ports/store.js";

/** PRAGMA synchronous levels by number. */
const SYNCHRONOUS = ["off", "normal", "full", "extra"];
const NORMAL = 1;
/** FULL: in WAL mode, every commit syncs the write-ahead log before it returns. */
const FULL = 2;

/**
 * The settings one connection runs with. The store asks for journal_mode = WAL (readers
 * and the one writer do not block each other). Each commit's frames must be on disk
 * before the write is answered: either SQLite syncs the WAL in the COMMIT itself
 * (synchronous = FULL), or the connection runs NORMAL and the store flushes the -wal
 * file after every write transaction, before answering, off the event loop (`walSynced`,
 * wal-sync.ts). NORMAL without that flush may lose the last commits in a power cut.
 * The settings are read back, not assumed: a file system that cannot hold a WAL leaves
 * the database in another journal mode.
 */
export function sqliteDurability(db: Database.Database, walSynced: boolean): Durability {
  const journal = String(db.pragma("journal_mode", { simple: true }));
  const level = Number(db.pragma("synchronous", { simple: true }));
  const synchronous = SYNCHRONOUS[level] ?? String(level);
  const flushed = walSynced && journal === "wal" && level >= NORMAL;
  const warnings: string[] = [];
  if (level < FULL && !flushed) {
    warnings.push(`SQLite runs with synchronous = ${synchronous}: a power cut can lose writes that were answered`);
  }
  if (journal === "off" || journal === "memory") {
    warnings.push(`SQLite runs with journal_mode = ${journal}: a crash can lose or corrupt the database` +
      (db.memory ? " (an in-memory database keeps nothing after the process ends)" : ""));
  }
  const settings: Record<string, string> = { journal_mode: journal, synchronous };
  if (flushed) settings.wal_flush = "after every write transaction, before its answers";
  return { settings, warnings };
}

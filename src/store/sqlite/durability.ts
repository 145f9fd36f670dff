import type Database from "better-sqlite3";
import type { Durability } from "../store.js";

/** PRAGMA synchronous levels by number. */
const SYNCHRONOUS = ["off", "normal", "full", "extra"];
/** FULL: in WAL mode, every commit syncs the write-ahead log before it returns. */
const FULL = 2;

/**
 * The settings one connection runs with. The store asks for journal_mode = WAL (readers
 * and the one writer do not block each other) and synchronous = FULL (a commit returns
 * only once the log is on disk; NORMAL, WAL's usual companion, may lose the last
 * commits in a power cut). They are read back, not assumed: a file system that cannot
 * hold a WAL leaves the database in another journal mode.
 */
export function sqliteDurability(db: Database.Database): Durability {
  const journal = String(db.pragma("journal_mode", { simple: true }));
  const level = Number(db.pragma("synchronous", { simple: true }));
  const synchronous = SYNCHRONOUS[level] ?? String(level);
  const warnings: string[] = [];
  if (level < FULL) {
    warnings.push(`SQLite runs with synchronous = ${synchronous}: a power cut can lose writes that were answered`);
  }
  if (journal === "off" || journal === "memory") {
    warnings.push(`SQLite runs with journal_mode = ${journal}: a crash can lose or corrupt the database` +
      (db.memory ? " (an in-memory database keeps nothing after the process ends)" : ""));
  }
  return { settings: { journal_mode: journal, synchronous }, warnings };
}

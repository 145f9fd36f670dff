import type { Durability } from "../../domain/ports/store.js";
import type { Db } from "./driver.js";

/**
 * What makes an answered write survive on PostgreSQL, and what the service does when a
 * server weakens it. A COMMIT answered with synchronous_commit on (any value but `off`)
 * has flushed the write-ahead log to disk, provided fsync really flushes; full_page_writes
 * lets recovery repair a page torn by a power cut in the middle of its write.
 *
 * fsync and full_page_writes are the server's (postgresql.conf), so the service can only
 * warn. synchronous_commit may be set per role or database, and also per connection: when
 * the service's role and database default to `off`, the service opens its connections
 * with `on` (see PostgresStore.open) and says so, since other clients stay unprotected.
 */

export interface PgDurabilitySettings {
  readonly fsync: string;
  readonly synchronous_commit: string;
  readonly full_page_writes: string;
}

/** The settings as in force on one connection of `db`. */
export async function readDurability(db: Db): Promise<PgDurabilitySettings> {
  const [row] = await db.run<PgDurabilitySettings>(`SELECT current_setting('fsync') AS fsync,
    current_setting('synchronous_commit') AS synchronous_commit, current_setting('full_page_writes') AS full_page_writes`);
  return row!;
}

/** Whether connections must ask for synchronous_commit = on themselves. */
export function needsSynchronousCommit(defaults: PgDurabilitySettings): boolean {
  return defaults.synchronous_commit === "off";
}

/**
 * One warning per weakening setting. `settings` are the service's connections' own,
 * `defaults` what the server gives a connection that asks for nothing.
 */
export function durabilityOf(settings: PgDurabilitySettings, defaults: PgDurabilitySettings): Durability {
  const warnings: string[] = [];
  if (settings.fsync !== "on") {
    warnings.push("PostgreSQL runs with fsync = off: an operating-system crash or power cut can lose answered writes " +
      "and corrupt the database; set fsync = on in postgresql.conf");
  }
  if (settings.full_page_writes !== "on") {
    warnings.push("PostgreSQL runs with full_page_writes = off: a power cut during a page write can leave a page " +
      "recovery cannot repair; set full_page_writes = on in postgresql.conf");
  }
  if (settings.synchronous_commit === "off") {
    warnings.push("PostgreSQL runs with synchronous_commit = off: a crash can lose the last answered writes; " +
      "set it to on");
  } else if (needsSynchronousCommit(defaults)) {
    warnings.push("PostgreSQL's synchronous_commit is off for this role and database: the service sets it to on for " +
      "its own connections, so its answered writes are on disk, but other clients of the database are not protected");
  }
  return { settings: { ...settings }, warnings };
}

import crypto from "node:crypto";
import { onPool, type Db, type Pg } from "./driver.js";
import { translate } from "./errors.js";
import { lockContent } from "./record-writes.js";

/*
 * Holds on uploaded content. Files are stored by content, so one file on disk may serve
 * several records and uploads. A hold, a release and a record taking the file each take
 * a transaction lock on the content's hash first: a release that finds the content
 * unused removes it before any new hold on it can be taken, and a new hold taken after
 * that sees it gone and puts the content back.
 */

async function inTransaction<T>(pool: Pg, work: (db: Db) => Promise<T>): Promise<T> {
  try {
    return await pool.begin((tx) => work(onPool(tx))) as T;
  } catch (error) {
    throw translate(error);
  }
}

export function holdContent(pool: Pg, sha256: string, createdAt: string): Promise<string> {
  return inTransaction(pool, async (db) => {
    await lockContent(db, sha256);
    const id = crypto.randomUUID();
    await db.run("INSERT INTO content_holds (id, sha256, created_at) VALUES ($1::text, $2::text, $3::text)", [id, sha256, createdAt]);
    return id;
  });
}

export function releaseContent(pool: Pg, hold: string, sha256: string, remove: () => void): Promise<void> {
  return inTransaction(pool, async (db) => {
    await lockContent(db, sha256);
    await db.run("DELETE FROM content_holds WHERE id = $1::text", [hold]);
    const used = await db.run(`SELECT 1 FROM files WHERE sha256 = $1::text
      UNION ALL SELECT 1 FROM content_holds WHERE sha256 = $1::text LIMIT 1`, [sha256]);
    // Removed while the lock is held: an upload of the same content takes its hold only after this commits.
    if (used.length === 0) remove();
  });
}

/** Holds on uploads' content (Store.files), each within the store's deadline when it has one. */
export class PgContentHolds {
  constructor(private readonly pool: Pg, private readonly within: <T>(work: () => Promise<T>) => Promise<T>) {}

  holdContent(sha256: string, createdAt: string): Promise<string> {
    return this.within(() => holdContent(this.pool, sha256, createdAt));
  }

  releaseContent(hold: string, sha256: string, remove: () => void): Promise<void> {
    return this.within(() => releaseContent(this.pool, hold, sha256, remove));
  }
}

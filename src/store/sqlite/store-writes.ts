import crypto from "node:crypto";
import type { ContentHolds, IdempotencyPurge } from "../../domain/ports/store.js";
import type { SqliteConnection } from "./connection.js";
import { purgeIdempotencyKeys } from "./idempotency.js";

/* Writes the SQLite Store makes outside any unit of work, each a write transaction of its own, answered once durable. */

/** Holds on uploads' content (Store.files), beside the files' rows read under the connection's lock. */
export class SqliteContentHolds implements Omit<ContentHolds, "findFile"> {
  constructor(private readonly connection: SqliteConnection) {}

  holdContent(sha256: string, createdAt: string): Promise<string> {
    return this.connection.write(async () => {
      const id = crypto.randomUUID();
      this.connection.sql.get("INSERT INTO content_holds (id, sha256, created_at) VALUES (?, ?, ?)").run(id, sha256, createdAt);
      return id;
    });
  }

  releaseContent(hold: string, sha256: string, remove: () => void): Promise<void> {
    return this.connection.write(async () => {
      this.connection.sql.get("DELETE FROM content_holds WHERE id = ?").run(hold);
      const used = this.connection.sql.get(`SELECT 1 FROM files WHERE sha256 = ?
        UNION ALL SELECT 1 FROM content_holds WHERE sha256 = ? LIMIT 1`).get(sha256, sha256) !== undefined;
      // Removed inside the transaction: an upload of the same content takes its hold only after this commits.
      if (!used) remove();
    });
  }
}

/** When tokens were last used (Store.tokens). */
export class SqliteTokenUse {
  constructor(private readonly connection: SqliteConnection) {}

  noteTokenUse(tokenId: string, at: string): Promise<void> {
    return this.connection.write(async () => {
      this.connection.sql.get("UPDATE tokens SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)")
        .run(at, tokenId, at);
    });
  }
}

/** Idempotency entries past their time (Store.idempotency). */
export class SqliteIdempotencyPurge implements IdempotencyPurge {
  constructor(private readonly connection: SqliteConnection) {}

  purgeIdempotencyKeys(before: number): Promise<number> {
    return this.connection.write(async () => purgeIdempotencyKeys(this.connection.sql, before));
  }
}

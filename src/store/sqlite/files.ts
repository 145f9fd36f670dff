import type { StoredFile } from "../../domain/model.js";
import type { FileWrites, NewFile } from "../../domain/ports/store.js";
import type { Statements } from "./statements.js";

/** Uploaded files' rows in the SQLite engine. */
export class SqliteFiles implements FileWrites {
  constructor(private readonly sql: Statements) {}

  async findFile(ref: string): Promise<StoredFile | undefined> {
    const row = this.sql.get(`SELECT ref, bloc_id, record_id, slug, sha256, name, type, size FROM files WHERE ref = ?`)
      .get(ref) as { ref: string; bloc_id: string; record_id: number; slug: string; sha256: string; name: string; type: string; size: number } | undefined;
    return row && {
      ref: row.ref, blocId: row.bloc_id, recordId: row.record_id, slug: row.slug,
      sha256: row.sha256, name: row.name, type: row.type, size: row.size,
    };
  }

  async insertFile(file: NewFile, blocId: string, recordId: number, createdAt: string): Promise<void> {
    this.sql.get(`INSERT INTO files (ref, bloc_id, record_id, slug, sha256, name, type, size, created_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`)
      .run(file.ref, blocId, recordId, file.slug, file.sha256, file.name, file.type, file.size, createdAt);
    this.sql.get("DELETE FROM content_holds WHERE id = ?").run(file.hold);
  }
}

import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import type { RowSource } from "../../domain/ports/store.js";
import { exportRows } from "./copy-rows.js";
import { Statements } from "./statements.js";

/** Pages per backup step: all of them, so that the copy is made in one step, under one read transaction. */
export const ALL_PAGES = 0x7fffffff;

/**
 * Runs `work` over a consistent copy of a live database, made with SQLite's online
 * backup API (`copyTo`). The copy is taken in one step: SQLite holds one read
 * transaction for it, so it is the state after one commit, and in WAL mode writers
 * (this process's or others') go on meanwhile. Reading the rows from the copy, not from
 * the live file, keeps that read transaction as short as a page copy: a long one would
 * stop checkpoints and let the live write-ahead log grow for as long as `work` runs.
 * The copy goes beside the database (same file system, room for the database already)
 * and is removed afterwards.
 */
export async function withSnapshotCopy<T>(
  databaseFile: string, copyTo: (file: string) => Promise<void>, work: (rows: RowSource) => Promise<T>,
): Promise<T> {
  const near = databaseFile === ":memory:" ? os.tmpdir() : path.dirname(databaseFile);
  const dir = await fs.mkdtemp(path.join(near, ".bloc-snapshot-"));
  try {
    const file = path.join(dir, "snapshot.db");
    await copyTo(file);
    const copy = new Database(file);
    try {
      const sql = new Statements(copy);
      return await work({ exportRows: async (table, after, limit) => exportRows(sql, table, after, limit) });
    } finally {
      copy.close();
    }
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

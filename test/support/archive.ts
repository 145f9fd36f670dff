import { openStoreAt } from "../../src/cli/copy.js";
import { importRecords } from "../../src/domain/record-writes.js";
import type { Workspace } from "./process.js";

/**
 * Fills the bloc "archive" of a child process's store with `records` records whose second
 * field holds `value`: a report of it streams long enough to be caught mid-answer.
 */
export async function seedArchive(workspace: Pick<Workspace, "databaseUrl" | "cwd">, records: number, value: string): Promise<void> {
  // The child resolves a relative SQLite path against its cwd; this process must open the same file.
  const store = await openStoreAt(workspace.databaseUrl.replace(/^sqlite:\.\//, `sqlite:${workspace.cwd}/`));
  try {
    for (let from = 0; from < records; from += 2_000) {
      await store.transaction((tx) => importRecords(tx, Array.from({ length: Math.min(2_000, records - from) }, (_, i) => ({
        blocId: "archive", createdAt: "2026-01-01 00:00:00", userId: "1", submittedStatus: 1, jobId: null,
        values: { field_1: `seed-${from + i}`, field_2: value },
      }))));
    }
  } finally {
    await store.close();
  }
}

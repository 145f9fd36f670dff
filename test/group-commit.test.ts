import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { openStoreAt } from "../src/cli/copy.js";
import { freshDatabaseUrl } from "./support/database.js";

/**
 * A group commit's units share one transaction. On PostgreSQL a unit's insert is sent
 * without waiting for its answer (src/store/postgres/write-transaction.ts), so the unit may be
 * over before PostgreSQL refuses it. Whatever the engine, a unit answered as a success
 * must be in the database afterwards, and a refused one must not be.
 */

const AT = "2026-01-01 00:00:00";

test("a unit refused by the database after it ended never leaves another unit answered but lost", async () => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "bloc-group-commit-"));
  const database = await freshDatabaseUrl(dir, "group-commit");
  try {
    const store = await openStoreAt(database.url);
    try {
      for (let round = 0; round < 3; round += 1) {
        // Issued in one turn: they share one transaction, the bad insert between good units.
        const before = store.transaction((tx) => tx.accounts.createUser(`before ${round}`, "member", AT), { group: "g" });
        const refused = store.transaction((tx) => tx.records.insertRecord({
          blocId: "no-such-bloc", createdAt: AT, userId: "1", submittedStatus: 1, jobId: null, values: { a: "1" },
        }), { group: "g" });
        const after = store.transaction((tx) => tx.accounts.createUser(`after ${round}`, "member", AT), { group: "g" });
        const [b, r, a] = await Promise.allSettled([before, refused, after]);
        assert.equal(r.status, "rejected", "a record of a bloc that does not exist is refused");
        for (const [outcome, name] of [[b, `before ${round}`], [a, `after ${round}`]] as const) {
          const found = await store.snapshot(async (view) => {
            for (let id = 1; id <= 20; id += 1) if ((await view.accounts.findUser(String(id)))?.name === name) return true;
            return false;
          });
          assert.equal(found, outcome.status === "fulfilled", `${name}: answered ${outcome.status}, in the database: ${found}`);
        }
      }
    } finally {
      await store.close();
    }
  } finally {
    await database.drop();
    await fs.rm(dir, { recursive: true, force: true });
  }
});

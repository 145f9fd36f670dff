import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import postgres from "postgres";
import { openStoreAt } from "../src/cli/copy.js";
import type { Store } from "../src/domain/ports/store.js";
import { durabilityOf } from "../src/store/postgres/durability.js";
import { CHECKPOINT_PAGES, WAL_FILE_LIMIT } from "../src/store/sqlite/connection.js";
import { freshDatabaseUrl, postgresServerUrl, testEngine } from "./support/database.js";
import { call } from "./support/http.js";
import { freshWorkspace, startProcess } from "./support/process.js";

/**
 * An answered write is on disk: the settings each engine needs are in force on the
 * service's own connections, read back from the engine rather than assumed, and a
 * server that weakens them is named at start-up (and, where the service can, overridden).
 */

const pgOnly = testEngine() === "postgres" ? false : "PostgreSQL only";
const sqliteOnly = testEngine() === "sqlite" ? false : "SQLite only";

/** One setting as a new plain connection to `url` sees it. */
async function showOn(url: string, name: string): Promise<string> {
  const sql = postgres(url, { max: 1, onnotice: () => undefined });
  try {
    const [row] = await sql.unsafe(`SELECT current_setting('${name}') AS value`);
    return String(row!.value);
  } finally {
    await sql.end({ timeout: 5 });
  }
}

const AT = "2026-01-01 00:00:00";

/** A user name that fills most of a page: about a page of WAL per user written. */
function longName(i: number): string {
  return `${i} ${"x".repeat(3000)}`;
}

/** `work` on a store over a new SQLite file in a folder of its own, removed afterwards. */
async function onSqliteStore(work: (store: Store, file: string) => Promise<void>): Promise<void> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "bloc-durability-"));
  try {
    const file = path.join(dir, "bloc.db");
    const store = await openStoreAt(`sqlite:${file}`);
    try {
      await work(store, file);
    } finally {
      await store.close();
    }
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

test("SQLite: WAL, synchronous = NORMAL and the -wal file flushed before every write's answer, no warning", { skip: sqliteOnly }, async () => {
  await onSqliteStore(async (store) => {
    // NORMAL alone would risk the last commits in a power cut; the store's own flush
    // (test/wal-sync.test.ts) is what makes it as safe as FULL, and the settings say so.
    assert.deepEqual(await store.maintenance.durability(), {
      settings: { journal_mode: "wal", synchronous: "normal", wal_flush: "after every write transaction, before its answers" },
      warnings: [],
    });
  });
});

test("SQLite: the WAL is checkpointed after 4,000 pages, not SQLite's default 1,000, and then starts over", { skip: sqliteOnly }, async () => {
  await onSqliteStore(async (store, file) => {
    const framesInWal = (): number => {
      // Another connection's passive checkpoint answers how many frames the WAL holds (and copies them).
      const other = new Database(file);
      try {
        return (other.pragma("wal_checkpoint(PASSIVE)") as { log: number }[])[0]!.log;
      } finally {
        other.close();
      }
    };
    const write = async (users: number, from: number): Promise<void> => {
      for (let i = 0; i < users; i += 50) {
        await store.transaction(async (tx) => {
          for (let j = i; j < Math.min(users, i + 50); j += 1) await tx.accounts.createUser(longName(from + j), "member", AT);
        });
      }
    };
    await write(1_800, 0);
    const held = framesInWal();
    assert.ok(held >= 1_800 && held < CHECKPOINT_PAGES, `1,800 pages written are all still in the WAL: ${held} frames`);
    await write(6_000, 10_000);
    const after = framesInWal();
    assert.ok(after < CHECKPOINT_PAGES, `past ${CHECKPOINT_PAGES} pages the WAL was checkpointed and started over: ${after} frames`);
  });
});

test("SQLite: a -wal file grown by one large transaction is cut back to 32 MiB once the WAL starts over", { skip: sqliteOnly }, async () => {
  await onSqliteStore(async (store, file) => {
    const walBytes = async (): Promise<number> => (await fs.stat(`${file}-wal`)).size;
    // About 48 MB of pages in one transaction: a bulk load's size.
    await store.transaction(async (tx) => {
      for (let i = 0; i < 12_000; i += 1) await tx.accounts.createUser(longName(i), "member", AT);
    });
    const grown = await walBytes();
    assert.ok(grown > WAL_FILE_LIMIT, `the transaction grew the -wal file past the limit: ${grown} bytes`);
    // Its COMMIT checkpointed it (past CHECKPOINT_PAGES); the next write starts the WAL over.
    await store.transaction((tx) => tx.accounts.createUser(longName(-1), "member", AT));
    const after = await walBytes();
    assert.ok(after <= WAL_FILE_LIMIT, `cut back to ${WAL_FILE_LIMIT} bytes: ${after}`);
  });
});

test("PostgreSQL: the settings in force are read from the server; warnings only for those that are off", { skip: pgOnly }, async () => {
  const database = await freshDatabaseUrl("", "durability");
  try {
    const store = await openStoreAt(database.url);
    try {
      const { settings, warnings } = await store.maintenance.durability();
      assert.equal(settings.synchronous_commit, "on");
      // fsync and full_page_writes are the server's; whatever it runs with is reported as it is.
      const fsync = await showOn(database.url, "fsync");
      const fullPageWrites = await showOn(database.url, "full_page_writes");
      assert.equal(settings.fsync, fsync);
      assert.equal(settings.full_page_writes, fullPageWrites);
      assert.equal(warnings.some((w) => w.includes("fsync = off")), fsync === "off");
      assert.equal(warnings.some((w) => w.includes("full_page_writes = off")), fullPageWrites === "off");
      assert.equal(warnings.some((w) => w.includes("synchronous_commit")), false);
    } finally {
      await store.close();
    }
  } finally {
    await database.drop();
  }
});

test("PostgreSQL: a database whose synchronous_commit is off still gets durable writes from the service, with a warning at start-up", { skip: pgOnly }, async () => {
  const workspace = await freshWorkspace("durability-sync-off");
  const name = new URL(workspace.databaseUrl).pathname.slice(1);
  const admin = postgres(postgresServerUrl(), { max: 1, onnotice: () => undefined });
  try {
    await admin.unsafe(`ALTER DATABASE "${name}" SET synchronous_commit = off`);
    assert.equal(await showOn(workspace.databaseUrl, "synchronous_commit"), "off", "a plain connection gets off");

    const store = await openStoreAt(workspace.databaseUrl);
    try {
      const { settings, warnings } = await store.maintenance.durability();
      assert.equal(settings.synchronous_commit, "on", "the service's connections commit synchronously");
      assert.equal(warnings.length, 1);
      assert.match(warnings[0]!, /synchronous_commit is off for this role and database: the service sets it to on/);
    } finally {
      await store.close();
    }

    // The server says so once at start-up, and starts.
    const server = await startProcess({ DATABASE_URL: workspace.databaseUrl }, workspace.cwd);
    try {
      assert.match(server.output(), /bloc-data-service: warning: PostgreSQL's synchronous_commit is off/);
      assert.equal((await call(server.url, "GET", "/health")).status, 200);
    } finally {
      await server.stop();
    }
  } finally {
    await admin.end({ timeout: 5 });
    await workspace.remove();
  }
});

test("a server without a weakening setting starts without a warning", async () => {
  const workspace = await freshWorkspace("durability-quiet");
  try {
    const server = await startProcess({ DATABASE_URL: workspace.databaseUrl }, workspace.cwd);
    try {
      const store = await openStoreAt(workspace.databaseUrl.replace(/^sqlite:\.\//, `sqlite:${workspace.cwd}/`));
      const expected = await store.maintenance.durability().finally(() => store.close());
      // On a PostgreSQL server run with fsync off (some CI machines), that warning is expected, and only it.
      for (const warning of expected.warnings) assert.ok(server.output().includes(warning));
      assert.equal((server.output().match(/warning:/g) ?? []).length, expected.warnings.length);
    } finally {
      await server.stop();
    }
  } finally {
    await workspace.remove();
  }
});

test("each PostgreSQL setting that weakens durability is named, with what it risks and the fix", () => {
  const on = { fsync: "on", synchronous_commit: "on", full_page_writes: "on" };
  assert.deepEqual(durabilityOf(on, on).warnings, []);
  // Every value but off flushes the local log before COMMIT returns.
  for (const value of ["local", "remote_write", "remote_apply"]) {
    assert.deepEqual(durabilityOf({ ...on, synchronous_commit: value }, on).warnings, [], value);
  }
  const [fsync] = durabilityOf({ ...on, fsync: "off" }, on).warnings;
  assert.match(fsync!, /fsync = off: .*lose answered writes.*set fsync = on in postgresql.conf/);
  const [pages] = durabilityOf({ ...on, full_page_writes: "off" }, on).warnings;
  assert.match(pages!, /full_page_writes = off: .*set full_page_writes = on/);
  const [commit] = durabilityOf({ ...on, synchronous_commit: "off" }, { ...on, synchronous_commit: "off" }).warnings;
  assert.match(commit!, /synchronous_commit = off: a crash can lose the last answered writes/);
});

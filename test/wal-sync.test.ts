import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { SqliteStore } from "../src/store/sqlite/sqlite-store.js";
import { syncFileData, WalSyncFailedError } from "../src/store/sqlite/wal-sync.js";
import { testEngine } from "./support/database.js";

/**
 * SQLite commits with synchronous = NORMAL and the store flushes the -wal file itself,
 * off the event loop, before answering (src/store/sqlite/wal-sync.ts). These tests hold
 * the flush (the real fdatasync, run when the test lets it) to check the order that
 * makes every answer durable: committed, then flushed, then answered — and that a
 * failed flush is never answered as a success.
 */

const sqliteOnly = testEngine() === "sqlite" ? false : "SQLite only";
const AT = "2026-01-01 00:00:00";

/** A flush that waits for the test: each call is recorded, and runs the real fdatasync once released. */
class HeldFlush {
  readonly files: string[] = [];
  private readonly waiting: (() => void)[] = [];
  private open = false;
  fail: Error | undefined;

  readonly sync = async (file: string): Promise<void> => {
    this.files.push(file);
    if (!this.open) await new Promise<void>((resolve) => this.waiting.push(resolve));
    if (this.fail) throw this.fail;
    await syncFileData(file);
  };

  /** Lets the flushes waiting, and every later one, run. */
  release(): void {
    this.open = true;
    for (const go of this.waiting.splice(0)) go();
  }

  async called(times: number): Promise<void> {
    await until(() => this.files.length >= times);
    assert.equal(this.files.length, times, "flushes started");
  }
}

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !condition(); i += 1) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.ok(condition(), "waited 5 s");
}

/** Whether `promise` has settled, after letting pending callbacks run. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(() => { done = true; }, () => { done = true; });
  await new Promise((resolve) => setTimeout(resolve, 50));
  return done;
}

async function withStore(work: (store: SqliteStore, file: string, flush: HeldFlush) => Promise<void>): Promise<void> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "bloc-wal-sync-"));
  const file = path.join(dir, "bloc.db");
  const flush = new HeldFlush();
  const store = new SqliteStore(file, { syncFile: flush.sync });
  try {
    await work(store, file, flush);
  } finally {
    flush.release();
    await store.close();
    await fs.rm(dir, { recursive: true, force: true });
  }
}

/** Users as another connection sees them: what is committed, flushed or not. */
function committedUsers(file: string): { id: string; name: string }[] {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare("SELECT CAST(id AS TEXT) AS id, name FROM users ORDER BY name").all() as { id: string; name: string }[];
  } finally {
    db.close();
  }
}

test("a group commit is answered only after the -wal file is flushed; reads wait too; the next batch commits meanwhile", { skip: sqliteOnly }, async () => {
  await withStore(async (store, file, flush) => {
    const first = [
      store.transaction((tx) => tx.accounts.createUser("ada", "member", AT), { group: "g" }),
      store.transaction((tx) => tx.accounts.createUser("bob", "member", AT), { group: "g" }),
    ];
    await flush.called(1);
    assert.equal(flush.files[0], `${file}-wal`, "the database's own write-ahead log is flushed");
    // Committed (another connection sees both) but not answered: the flush has not run.
    assert.deepEqual(committedUsers(file).map((u) => u.name), ["ada", "bob"]);
    assert.equal(await settled(Promise.all(first)), false, "no answer before the flush");
    // A read of this process could show them: it is answered after the flush as well.
    const read = store.accounts.findUser(committedUsers(file)[0]!.id);
    assert.equal(await settled(read), false, "no read answer before the flush");
    // The connection was handed on at COMMIT: the group's next batch commits now, and
    // starts its own flush (the one running began before that commit).
    const second = store.transaction((tx) => tx.accounts.createUser("cy", "member", AT), { group: "g" });
    await until(() => committedUsers(file).length === 3);
    await flush.called(2);
    assert.equal(await settled(second), false);
    flush.release();
    const users = await Promise.all([...first, second]);
    assert.deepEqual(users.map((u) => u.name), ["ada", "bob", "cy"]);
    assert.equal((await read)?.name, "ada");
  });
});

test("a failed flush answers an error, never a success, and refuses every later write", { skip: sqliteOnly }, async () => {
  await withStore(async (store, file, flush) => {
    flush.fail = new Error("EIO: i/o error, fdatasync");
    const write = store.transaction((tx) => tx.accounts.createUser("dee", "member", AT), { group: "g" });
    await flush.called(1);
    flush.release();
    await assert.rejects(write, (error: unknown) => error instanceof WalSyncFailedError && /EIO/.test(error.message));
    // Nothing written after it can be vouched for (the kernel may have dropped the pages
    // and report the next flush as a success): later writes are refused, not attempted.
    await assert.rejects(store.transaction((tx) => tx.accounts.createUser("eve", "member", AT), { group: "g" }), WalSyncFailedError);
    await assert.rejects(store.transaction((tx) => tx.accounts.createUser("fay", "member", AT)), WalSyncFailedError);
    assert.deepEqual(committedUsers(file).map((u) => u.name), ["dee"]);
    assert.equal(flush.files.length, 1);
  });
});

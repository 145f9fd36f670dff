import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs/promises";
import path from "node:path";
import zlib from "node:zlib";
import { openStoreAt } from "../src/cli/copy.js";
import { call, type Reply } from "./support/http.js";
import { CLI_ENTRY, freshWorkspace, runToEnd, startProcess, type Workspace } from "./support/process.js";
import { allRows } from "./support/recount.js";
import type { JsonBody } from "./support/json.js";

/*
 * Backups and deleted records (issue 21): a deleted record travels in a backup and can be
 * restored on the new instance with its ID, which no new record there takes; and a backup
 * made before records could be deleted (no deleted_records, grants without can_delete,
 * history without action) still restores, its grants without delete, its history updates.
 */

const ADMIN = "backup-deletes-admin-token-0123456789";

function cli(workspace: Workspace, ...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runToEnd(CLI_ENTRY, args, { DATABASE_URL: workspace.databaseUrl }, workspace.cwd);
}

async function ok(reply: Promise<Reply>, status = 200): Promise<Reply> {
  const answered = await reply;
  assert.equal(answered.status, status, answered.text);
  return answered;
}

/** A bloc with three records (the last one deleted), one updated, and a member's grant. */
async function fill(url: string): Promise<{ memberId: string; ids: number[] }> {
  await ok(call(url, "POST", "/api/admin/blocs", { token: ADMIN, json: { name: "Parts", id: "parts", fields: [{ name: "Part", unique: true }] } }), 201);
  const user = await ok(call(url, "POST", "/api/admin/users", { token: ADMIN, json: { name: "Ann", role: "member" } }), 201);
  await ok(call(url, "PUT", `/api/admin/blocs/parts/access/${user.json.id}`, { token: ADMIN, json: { read: true, delete: true } }));
  const ids: number[] = [];
  for (const part of ["A", "B", "C"]) {
    const added = await ok(call(url, "POST", "/api/add-data", { token: ADMIN, json: { scanStationID: "parts", dataToAdd: { field_1: part } } }));
    ids.push(added.json.returnedStationID as number);
  }
  await ok(call(url, "POST", "/api/update-records-by-matching-values", {
    token: ADMIN, json: { blocId: "parts", fieldsToUpdate: { field_1: "A2" }, searchItems: { field_1: "A" } },
  }));
  await ok(call(url, "POST", "/api/delete-records-by-matching-values", {
    token: ADMIN, json: { blocId: "parts", searchItems: { service_entry_row_id: ids[2] } },
  }));
  return { memberId: user.json.id as string, ids };
}

async function withTwoInstances(name: string, work: (source: Workspace, target: Workspace, url: string) => Promise<void>): Promise<void> {
  const source = await freshWorkspace(`${name}-source`);
  const target = await freshWorkspace(`${name}-target`);
  const server = await startProcess({ DATABASE_URL: source.databaseUrl, BLOC_ADMIN_TOKEN: ADMIN }, source.cwd);
  try {
    await work(source, target, server.url);
  } finally {
    await server.stop();
    await source.remove();
    await target.remove();
  }
}

test("a deleted record travels in a backup; restored there, it keeps its ID, which no new record took", { timeout: 120_000 }, async () => {
  await withTwoInstances("backup-deleted", async (source, target, url) => {
    const { ids } = await fill(url);
    const file = path.join(source.cwd, "backup.bloc.gz");
    const made = await cli(source, "backup", file);
    assert.equal(made.code, 0, made.stderr);
    assert.equal(JSON.parse(made.stdout).tables.deleted_records, 1);
    const restored = await cli(target, "restore", file);
    assert.equal(restored.code, 0, restored.stderr);
    const server = await startProcess({ DATABASE_URL: target.databaseUrl, BLOC_ADMIN_TOKEN: ADMIN }, target.cwd);
    try {
      const added = await ok(call(server.url, "POST", "/api/add-data", { token: ADMIN, json: { scanStationID: "parts", dataToAdd: { field_1: "D" } } }));
      assert.ok((added.json.returnedStationID as number) > ids[2]!, "a new record gets an ID after the deleted one's");
      const back = await ok(call(server.url, "POST", `/api/admin/blocs/parts/records/${ids[2]}/restore`, { token: ADMIN }));
      assert.deepEqual(back.json, { blocId: "parts", recordId: ids[2] });
      const history = await ok(call(server.url, "GET", `/api/admin/blocs/parts/records/${ids[2]}/history`, { token: ADMIN }));
      assert.deepEqual(history.json.history.map((h: { action: string }) => h.action), ["deleted", "restored"]);
    } finally {
      await server.stop();
    }
  });
});

test("a backup made before records could be deleted restores: grants without delete, history as updates", { timeout: 120_000 }, async () => {
  await withTwoInstances("backup-before-deletes", async (source, target, url) => {
    const { memberId, ids } = await fill(url);
    // Restore C first: the backup of before had no deleted records.
    await ok(call(url, "POST", `/api/admin/blocs/parts/records/${ids[2]}/restore`, { token: ADMIN }));
    const file = path.join(source.cwd, "backup.bloc.gz");
    const made = await cli(source, "backup", file);
    assert.equal(made.code, 0, made.stderr);
    // The same backup as a version before deletes wrote it: no deleted_records, no can_delete, no action.
    const lines = zlib.gunzipSync(await fs.readFile(file)).toString("utf8").split("\n").filter((l) => l !== "");
    const rewritten = lines.flatMap((line) => {
      const value = JSON.parse(line) as { tables?: string[]; table?: string; row?: Record<string, unknown>; end?: boolean; rows?: Record<string, number> };
      if (value.tables) value.tables = value.tables.filter((t) => t !== "deleted_records");
      if (value.table === "deleted_records") return [];
      if (value.row && (value.table === "grants" || value.table === "role_grants")) delete value.row.can_delete;
      if (value.row && value.table === "record_history") {
        if (value.row.action !== "updated") return [];
        delete value.row.action;
      }
      if (value.end && value.rows) {
        delete value.rows.deleted_records;
        value.rows.record_history = 1;
      }
      return [value];
    });
    assert.ok(rewritten.some((v: JsonBody) => v.table === "grants" && !("can_delete" in v.row)), "the rewritten backup holds a grant of before");
    const old = path.join(target.cwd, "old.bloc.gz");
    await fs.writeFile(old, zlib.gzipSync(rewritten.map((v) => JSON.stringify(v)).join("\n") + "\n"));
    const restored = await cli(target, "restore", old);
    assert.equal(restored.code, 0, restored.stderr);
    const store = await openStoreAt(target.databaseUrl.replace(/^sqlite:\.\//, `sqlite:${target.cwd}/`));
    try {
      assert.deepEqual((await store.access.accessFacts("parts", memberId)).grants,
        [{ read: true, add: false, update: false, delete: false, seeHidden: false }]);
      const history = await store.records.recordHistory("parts", ids[0]!);
      assert.deepEqual(history?.map((h) => h.action), ["updated"]);
      assert.equal((await allRows(store, "deleted_records")).length, 0);
      assert.equal((await allRows(store, "records")).length, 3);
    } finally {
      await store.close();
    }
  });
});

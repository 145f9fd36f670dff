import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { freshWorkspace, runToEnd, SERVER_ENTRY } from "./support/process.js";

/**
 * A server that cannot start says why in one line on stderr, naming the variable or path
 * to fix, and exits non-zero: no stack trace. Before, a port in use printed Node's
 * EADDRINUSE stack, an unusable SQLite folder "unable to open database file" without the
 * path, and `npm start` before `npm ci` a "Cannot find module" stack.
 */

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** The one line a failed start printed, checked to be the only one. */
function oneLine(stderr: string): string {
  const lines = stderr.split("\n").filter((line) => line.trim() !== "");
  assert.equal(lines.length, 1, `one line on stderr, not:\n${stderr}`);
  assert.doesNotMatch(stderr, /^\s+at /m, "no stack trace");
  return lines[0]!;
}

/** A port something else holds for the duration of `work`. */
async function withPortTaken(work: (port: number) => Promise<void>): Promise<void> {
  const holder = net.createServer();
  await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
  try {
    await work((holder.address() as net.AddressInfo).port);
  } finally {
    await new Promise((resolve) => holder.close(resolve));
  }
}

for (const workers of ["1", "2"]) {
  test(`WORKERS=${workers}: a port in use is one line naming PORT`, { timeout: 60_000 }, async () => {
    const workspace = await freshWorkspace(`port-taken-${workers}`);
    try {
      await withPortTaken(async (port) => {
        const { code, stderr } = await runToEnd(SERVER_ENTRY, [], {
          DATABASE_URL: workspace.databaseUrl, PORT: String(port), HOST: "127.0.0.1", WORKERS: workers,
        }, workspace.cwd);
        assert.notEqual(code, 0);
        assert.match(oneLine(stderr), new RegExp(`^bloc-data-service: PORT: port ${port} on 127\\.0\\.0\\.1 is already in use.*set PORT.*PORT=0`));
      });
    } finally {
      await workspace.remove();
    }
  });
}

test("a SQLite path that cannot be opened is one line naming DATABASE_URL and the path", { timeout: 60_000 }, async () => {
  const cwd = await fs.mkdtemp(path.join(os.tmpdir(), "bloc-unopenable-"));
  try {
    // A folder where the database file should be: SQLite's bare "unable to open database file".
    await fs.mkdir(path.join(cwd, "folder", "bloc.db"), { recursive: true });
    // A file where a folder of the path should be.
    await fs.writeFile(path.join(cwd, "a-file"), "");
    for (const file of [path.join(cwd, "folder", "bloc.db"), path.join(cwd, "a-file", "bloc.db")]) {
      const { code, stderr } = await runToEnd(SERVER_ENTRY, [], { DATABASE_URL: `sqlite:${file}`, PORT: "0" }, cwd);
      assert.notEqual(code, 0);
      const line = oneLine(stderr);
      assert.ok(line.startsWith(`bloc-data-service: DATABASE_URL: cannot open the SQLite database ${file}: `), line);
    }
    // A relative URL is named by the path it resolves to, where the operator will look.
    const { stderr } = await runToEnd(SERVER_ENTRY, [], { DATABASE_URL: "sqlite:./folder/bloc.db", PORT: "0" }, cwd);
    assert.match(oneLine(stderr), new RegExp(`SQLite database ${path.join(cwd, "folder", "bloc.db")}: unable to open database file`));
  } finally {
    await fs.rm(cwd, { recursive: true, force: true });
  }
});

test("a SQLite folder without write permission is one line naming DATABASE_URL and the path", {
  // root writes through any permission; the test can only be made to fail as another user.
  skip: process.getuid?.() === 0 ? "running as root, which ignores folder permissions" : false,
  timeout: 60_000,
}, async () => {
  const cwd = await fs.mkdtemp(path.join(os.tmpdir(), "bloc-unwritable-"));
  try {
    await fs.mkdir(path.join(cwd, "locked"), { mode: 0o555 });
    const file = path.join(cwd, "locked", "data", "bloc.db");
    const { code, stderr } = await runToEnd(SERVER_ENTRY, [], { DATABASE_URL: `sqlite:${file}`, PORT: "0" }, cwd);
    assert.notEqual(code, 0);
    assert.match(oneLine(stderr), new RegExp(`^bloc-data-service: DATABASE_URL: cannot open the SQLite database ${file}: EACCES`));
  } finally {
    await fs.chmod(path.join(cwd, "locked"), 0o755).catch(() => undefined);
    await fs.rm(cwd, { recursive: true, force: true });
  }
});

test("an uploads folder that cannot be created is one line naming BLOC_FILES_DIR", { timeout: 60_000 }, async () => {
  const workspace = await freshWorkspace("files-dir");
  try {
    await fs.writeFile(path.join(workspace.cwd, "a-file"), "");
    const dir = path.join(workspace.cwd, "a-file", "files");
    const { code, stderr } = await runToEnd(SERVER_ENTRY, [], {
      DATABASE_URL: workspace.databaseUrl, BLOC_FILES_DIR: dir, PORT: "0",
    }, workspace.cwd);
    assert.notEqual(code, 0);
    assert.ok(oneLine(stderr).startsWith(`bloc-data-service: BLOC_FILES_DIR: cannot create the uploads folder ${dir}: `), stderr);
  } finally {
    await workspace.remove();
  }
});

test("`npm start` before `npm ci` (a fresh clone: no dist/) says to run npm ci, in one line", { timeout: 60_000 }, async () => {
  const clone = await fs.mkdtemp(path.join(os.tmpdir(), "bloc-fresh-clone-"));
  try {
    // What `npm start` reads of a fresh clone: the package's scripts and the check they run.
    await fs.copyFile(path.join(root, "package.json"), path.join(clone, "package.json"));
    await fs.mkdir(path.join(clone, "scripts"));
    await fs.copyFile(path.join(root, "scripts", "check-built.js"), path.join(clone, "scripts", "check-built.js"));
    const env = { ...process.env, npm_config_update_notifier: "false", PORT: "0" };
    const child = spawn("npm", ["start"], { cwd: clone, env, stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => { stderr += chunk.toString(); });
    child.stdout.resume();
    const code = await new Promise<number | null>((resolve) => child.once("close", resolve));
    assert.notEqual(code, 0);
    assert.equal(oneLine(stderr), "bloc-data-service: the service is not built (dist/src/main.js is missing): run npm ci first");
  } finally {
    await fs.rm(clone, { recursive: true, force: true });
  }
});

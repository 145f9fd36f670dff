import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

/* The checkout's `./bloc-data` (README): the compiled CLI, without npx and its cache. */

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const script = path.join(root, "bloc-data");

test("./bloc-data runs the checkout's CLI, from the checkout or through a link elsewhere", async () => {
  const direct = spawnSync(script, ["--help"], { cwd: root, encoding: "utf8" });
  assert.equal(direct.status, 0, direct.stderr);
  assert.match(direct.stdout, /bloc-data/);
  assert.match(direct.stdout, /init/);
  const elsewhere = await fs.mkdtemp(path.join(os.tmpdir(), "bloc-cli-script-"));
  try {
    await fs.symlink(script, path.join(elsewhere, "bloc-data"));
    const linked = spawnSync("./bloc-data", ["--help"], { cwd: elsewhere, encoding: "utf8" });
    assert.equal(linked.status, 0, linked.stderr);
    assert.equal(linked.stdout, direct.stdout);
  } finally {
    await fs.rm(elsewhere, { recursive: true, force: true });
  }
});

test("./bloc-data before npm ci says what to do in one line", async () => {
  // A checkout that was never built: the script alone.
  const clone = await fs.mkdtemp(path.join(os.tmpdir(), "bloc-cli-unbuilt-"));
  try {
    await fs.copyFile(script, path.join(clone, "bloc-data"));
    await fs.chmod(path.join(clone, "bloc-data"), 0o755);
    const run = spawnSync("./bloc-data", ["--help"], { cwd: clone, encoding: "utf8" });
    assert.equal(run.status, 1);
    assert.equal(run.stdout, "");
    assert.match(run.stderr, /^bloc-data: the tool is not built \(.*dist\/src\/cli\/main\.js is missing\): run npm ci first\n$/);
  } finally {
    await fs.rm(clone, { recursive: true, force: true });
  }
});

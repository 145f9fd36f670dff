import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { testEngine } from "./support/database.js";
import { SERVER_ENTRY, startProcess } from "./support/process.js";

/*
 * The README's examples, run as a new user runs them: every ```sh block, in the order the
 * README gives them, in one bash session (so the shell variables one block sets serve the
 * next), in a fresh folder where a server runs on the default store (SQLite under ./data,
 * as `npm start` uses it). Blocks fenced ```shell are shown, not run: the two commands
 * that install and start the service (this test stands in for them) and moves between
 * machines that cannot exist here.
 *
 * Substitutions, and only these: `localhost:8080` becomes the test server's address and
 * port 8081 (a second server some examples start) a free port (either may be taken here);
 * `npm start` runs the checkout's compiled server (npm would resolve it from the checkout's
 * package.json, which the fresh folder lacks), and the folder gets the checkout's
 * `./bloc-data` script linked in. For the same reason the folder gets
 * node_modules/bloc-data-service linked to the checkout, as `npm install <checkout>` would,
 * so that `import "bloc-data-service/client"` resolves.
 */

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

interface Block {
  readonly line: number;
  readonly text: string;
}

/** The README's ```sh blocks, in order, with the line each starts on. */
function runnableBlocks(markdown: string): Block[] {
  const blocks: Block[] = [];
  const lines = markdown.split("\n");
  for (let i = 0; i < lines.length; i += 1) {
    const fence = /^(`{3,})(.*)$/.exec(lines[i]!);
    if (!fence) continue;
    const end = lines.findIndex((line, k) => k > i && line.startsWith(fence[1]!) && line.trim() === fence[1]);
    assert.ok(end > i, `README line ${i + 1}: a code block that never closes`);
    if (fence[2]!.trim() === "sh") blocks.push({ line: i + 1, text: lines.slice(i + 1, end).join("\n") });
    i = end;
  }
  return blocks;
}

/** A port nothing listens on now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer().once("error", reject).listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

function runBash(script: string, cwd: string): Promise<{ code: number | null; output: string }> {
  const env = { ...process.env };
  delete env.DATABASE_URL;
  delete env.BLOC_FILES_DIR;
  const child = spawn("bash", ["-c", script], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => { output += chunk.toString(); });
  child.stderr.on("data", (chunk: Buffer) => { output += chunk.toString(); });
  return new Promise((resolve) => child.once("close", (code) => resolve({ code, output })));
}

test("the README's examples run as written, in order, on a fresh store", {
  skip: testEngine() === "postgres" ? "the README's examples use the default store, SQLite; the SQLite run covers them" : false,
  timeout: 180_000,
}, async () => {
  const readme = await fs.readFile(path.join(root, "README.md"), "utf8");
  const blocks = runnableBlocks(readme);
  assert.ok(blocks.length >= 10, `only ${blocks.length} runnable blocks found`);
  const cwd = await fs.mkdtemp(path.join(os.tmpdir(), "bloc-readme-"));
  await fs.mkdir(path.join(cwd, "node_modules"));
  await fs.symlink(root, path.join(cwd, "node_modules", "bloc-data-service"), "dir");
  // The README's `./bloc-data` is the checkout's own script, linked here as it is.
  await fs.symlink(path.join(root, "bloc-data"), path.join(cwd, "bloc-data"));
  // No DATABASE_URL: the server and the README's CLI commands share ./data/bloc.db in cwd.
  const server = await startProcess({}, cwd);
  try {
    const address = new URL(server.url).host;
    const second = String(await freePort());
    const script = [
      "set -euo pipefail",
      // A server an example starts in the background must not outlive the examples.
      "trap 'kill $(jobs -p) 2>/dev/null || true' EXIT",
      // exec, as the start script does: a server started with `npm start &` is then the background job itself, so `kill $!` stops it.
      `npm() { if [ "$1" = start ]; then exec node ${JSON.stringify(SERVER_ENTRY)}; else command npm "$@"; fi; }`,
      ...blocks.map((block) => [
        // On a line of its own: an answer printed by curl ends without a line feed.
        `printf '\\n%s\\n' ${JSON.stringify(`### README.md line ${block.line}`)}`,
        block.text.replaceAll("localhost:8080", address).replaceAll("localhost:8081", `127.0.0.1:${second}`)
          .replaceAll("PORT=8081", `PORT=${second}`),
      ].join("\n")),
      "printf '\\n### README done\\n'",
    ].join("\n");
    const { code, output } = await runBash(script, cwd);
    const last = output.split("\n").filter((line) => line.startsWith("### README")).pop();
    assert.equal(code, 0, `the block after "${last}" failed (exit ${code}):\n${output.slice(-4000)}`);
    assert.equal(last, "### README done");
    assert.equal(output.split("\n").filter((line) => line.startsWith("### README.md line")).length, blocks.length);
    // What the examples promise in their comments, checked on their output.
    assert.match(output, /"returnedStationID":\s*\d+/);
    assert.match(output, /"updated_record_ids":\s*\[\d+/);
    assert.match(output, /access-control-allow-origin: https:\/\/app\.example\.com/i);
    assert.match(output, /^bloc_records_added_total \d+/m);
    assert.match(output, /^walked \d+ records$/m);
    assert.match(output, /"added": 2/);
    assert.match(output, /verified record\.added #\d+ of scans: \{"service_entry_row_id":\d+,.*"field_1":"P-500"/, "the receiver verified a delivery");
    assert.match(await fs.readFile(path.join(cwd, "live.txt"), "utf8"), /^event: record\.added\ndata: .*"P-501"/m, "the live stream carried the add");
    const report = await fs.readFile(path.join(cwd, "report.xlsx"));
    assert.equal(report.subarray(0, 2).toString(), "PK", "report.xlsx is a zip (an .xlsx)");
    assert.equal(await fs.readFile(path.join(cwd, "downloads", "photo.jpg"), "utf8"), "not really a JPEG\n");
  } finally {
    await server.stop();
    await fs.rm(cwd, { recursive: true, force: true });
  }
});

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { testEngine } from "./support/database.js";
import { fencedBlocks } from "./support/markdown.js";
import { SERVER_ENTRY, startProcess } from "./support/process.js";

/*
 * The examples of the README and of its guides, run as a new user runs them: every ```sh
 * block of README.md, then of each guide in docs/ in the order the README's "Guides" lists
 * it (a guide's examples use what the README's first record and the guides before it made,
 * and say so at its top), in one bash session (so the shell variables one block sets serve
 * the next), in a fresh folder where a server runs on the default store (SQLite under
 * ./data, as `npm start` uses it). Blocks fenced ```shell are shown, not run: the two
 * commands that install and start the service (this test stands in for them), moves
 * between machines that cannot exist here, and the benchmark.
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
  /** The page it is on, from the checkout's root: README.md or docs/<guide>.md. */
  readonly page: string;
  readonly line: number;
  readonly text: string;
}

/** The pages whose examples run, in order: the README, then the guides in the order its "Guides" section lists them. */
async function examplePages(): Promise<string[]> {
  const readme = await fs.readFile(path.join(root, "README.md"), "utf8");
  const section = /^## Guides\n[\s\S]*?(?=^## |(?![\s\S]))/m.exec(readme);
  assert.ok(section, "the README has a section \"Guides\"");
  const guides = [...new Set([...section[0].matchAll(/\]\((docs\/[\w-]+\.md)\)/g)].map((match) => match[1]!))];
  // A guide with examples the README does not link would never run: say so rather than skip it.
  for (const name of await fs.readdir(path.join(root, "docs"))) {
    if (!name.endsWith(".md")) continue;
    const page = `docs/${name}`;
    const runnable = fencedBlocks(await fs.readFile(path.join(root, page), "utf8"), page).some((block) => block.info === "sh");
    assert.ok(!runnable || guides.includes(page), `${page} holds examples but the README does not link it`);
  }
  return ["README.md", ...guides];
}

/** The pages' ```sh blocks, in order, with the page and line each starts on. */
async function runnableBlocks(pages: readonly string[]): Promise<Block[]> {
  const blocks: Block[] = [];
  for (const page of pages) {
    const markdown = await fs.readFile(path.join(root, page), "utf8");
    for (const block of fencedBlocks(markdown, page)) {
      if (block.info === "sh") blocks.push({ page, line: block.line, text: block.text });
    }
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

test("the examples of the README and of every guide run as written, in order, on a fresh store", {
  skip: testEngine() === "postgres" ? "the examples use the default store, SQLite; the SQLite run covers them" : false,
  // About 160 s on a busy 2-core machine.
  timeout: 360_000,
}, async () => {
  const pages = await examplePages();
  const blocks = await runnableBlocks(pages);
  assert.ok(blocks.length >= 10, `only ${blocks.length} runnable blocks found`);
  assert.ok(blocks.some((block) => block.page === "README.md"), "the README's first record runs");
  // The guides whose examples used to be the README's: each must be found and run.
  for (const page of ["docs/admin-and-access.md", "docs/endpoints.md", "docs/client-and-cli.md", "docs/events.md", "docs/console.md", "docs/blocs-and-fields.md", "docs/operations.md"]) {
    assert.ok(blocks.some((block) => block.page === page), `${page}'s examples run`);
  }
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
        `printf '\\n%s\\n' ${JSON.stringify(`### at ${block.page} line ${block.line}`)}`,
        block.text.replaceAll("localhost:8080", address).replaceAll("localhost:8081", `127.0.0.1:${second}`)
          .replaceAll("PORT=8081", `PORT=${second}`),
      ].join("\n")),
      "printf '\\n### all examples done\\n'",
    ].join("\n");
    const { code, output } = await runBash(script, cwd);
    const markers = output.split("\n").filter((line) => line.startsWith("### at ") || line === "### all examples done");
    assert.equal(code, 0, `the block after "${markers.at(-1)}" failed (exit ${code}):\n${output.slice(-4000)}`);
    assert.equal(markers.at(-1), "### all examples done");
    assert.equal(markers.length, blocks.length + 1);
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

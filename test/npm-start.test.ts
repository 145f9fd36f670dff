import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { refused } from "./support/in-flight.js";
import { freshWorkspace } from "./support/process.js";

/**
 * `npm start &` then `kill $!` (docs/operations.md's monitoring example) must stop the service.
 * npm (10 and 11) passes SIGTERM to its own child only; when that child was the `sh -c`
 * that runs the script, the shell died and node, re-parented, went on serving. The start
 * script now execs node, so npm's child is the server itself.
 */

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** The processes whose parent is `pid`, read from /proc. */
function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try { stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8"); } catch { continue; }
    // "pid (comm) state ppid …": comm may hold spaces and parentheses, so read past its last ")".
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    if (ppid === pid) children.push(Number(entry));
  }
  return children;
}

function alive(pid: number): boolean {
  try { process.kill(pid, 0); return true; } catch { return false; }
}

async function until(condition: () => boolean | Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return condition();
}

test("SIGTERM to `npm start` (as `kill $!` sends it) stops the server, not only npm", {
  skip: fs.existsSync("/proc/self/stat") ? false : "reads the process tree from /proc (Linux)",
  timeout: 120_000,
}, async () => {
  const workspace = await freshWorkspace("npm-start");
  const env = { ...process.env, PORT: "0", DATABASE_URL: workspace.databaseUrl, BLOC_FILES_DIR: path.join(workspace.cwd, "files") };
  const npm = spawn("npm", ["start"], { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  npm.stdout.on("data", (chunk: Buffer) => { output += chunk.toString(); });
  npm.stderr.on("data", (chunk: Buffer) => { output += chunk.toString(); });
  const descendants = new Set<number>();
  try {
    assert.ok(await until(() => /listening on http:\/\/\S+/.test(output), 60_000), `npm start never served: ${output}`);
    const url = /listening on (http:\/\/\S+)/.exec(output)![1]!;
    // Everything npm started (a shell, then node; or node alone), whatever the depth.
    const walk = (pid: number): void => { for (const child of childrenOf(pid)) { descendants.add(child); walk(child); } };
    walk(npm.pid!);
    assert.ok(descendants.size > 0, "npm runs the server as its child");
    const response = await fetch(new URL("/healthz", url));
    assert.equal(response.status, 200);

    const npmExited = once(npm, "exit");
    npm.kill("SIGTERM");
    assert.ok(await until(() => refused(url), 5_000), `${url} still answers 5 s after SIGTERM to npm: ${output}`);
    assert.ok(await until(() => [...descendants].every((pid) => !alive(pid)), 5_000),
      `processes of npm start still running 5 s after SIGTERM to npm: ${[...descendants].filter(alive).join(", ")}`);
    await npmExited;
  } finally {
    if (npm.exitCode === null && npm.signalCode === null) npm.kill("SIGKILL");
    for (const pid of descendants) if (alive(pid)) process.kill(pid, "SIGKILL");
    await workspace.remove();
  }
});

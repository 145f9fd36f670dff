import { spawn, type ChildProcess } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after } from "node:test";
import { fileURLToPath } from "node:url";
import { freshDatabaseUrl, testFileLabel } from "./database.js";

/** The compiled entry points, as `npm start` and `npx bloc-data` run them. */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
export const SERVER_ENTRY = path.join(root, "dist/src/main.js");
export const CLI_ENTRY = path.join(root, "dist/src/cli/main.js");

/**
 * The environment a child starts from: this one without DATABASE_URL, so that a child
 * only ever opens the database its test chose (or the default), never one a developer's
 * shell happens to name.
 */
function inheritedEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.DATABASE_URL;
  return env;
}

/** Children not yet exited: a test that fails between starting one and stopping it leaves it running. */
const children = new Set<ChildProcess>();
// Under `node --test`, whatever a failed test left running is killed once the file's tests
// end: a live child keeps the file's process (and so the whole run) waiting forever.
if (process.env.NODE_TEST_CONTEXT !== undefined) {
  after(() => {
    for (const child of children) child.kill("SIGKILL");
  });
}

function track(child: ChildProcess): void {
  children.add(child);
  child.once("exit", () => children.delete(child));
}

export interface Running {
  readonly url: string;
  readonly child: ChildProcess;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  stop(): Promise<void>;
}

/**
 * Starts `node dist/src/main.js` (or another server) on an ephemeral port and waits for its "listening" line
 * (a WORKERS=N cluster prints it once every worker listens, which takes longer on a busy machine).
 */
export function startProcess(env: Record<string, string>, cwd: string, entry = SERVER_ENTRY, waitMs = 15_000, nodeArgs: readonly string[] = []): Promise<Running> {
  const child = spawn(process.execPath, [...nodeArgs, entry], {
    // A 30 s store deadline, as test/support/server.ts gives in-process servers: on a loaded
    // two-core machine a group commit has outlasted the 5 s production default (tests of the
    // deadline set their own).
    cwd, env: { ...inheritedEnv(), PORT: "0", BLOC_LOG_LEVEL: "warn", BLOC_STORE_TIMEOUT_MS: "30000", ...env }, stdio: ["ignore", "pipe", "pipe"],
  });
  track(child);
  return new Promise((resolve, reject) => {
    let output = "";
    const timer = setTimeout(() => { child.kill(); reject(new Error(`no listening line in ${waitMs / 1000} s: ${output}`)); }, waitMs);
    let listening = false;
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (!match || listening) return;
      listening = true;
      clearTimeout(timer);
      resolve({
        url: match[1]!,
        child,
        output: () => output,
        // A child that has exited already (a test killed it) has no exit left to wait for.
        stop: () => new Promise((done) => {
          if (child.exitCode !== null || child.signalCode !== null) return done();
          child.once("exit", () => done());
          child.kill("SIGTERM");
        }),
      });
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.once("exit", (code) => { clearTimeout(timer); reject(new Error(`exited with ${code}: ${output}`)); });
  });
}

/** Runs a command to completion and collects its output. */
export function runToEnd(
  entry: string, args: readonly string[], env: Record<string, string>, cwd: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [entry, ...args], { cwd, env: { ...inheritedEnv(), ...env } });
  track(child);
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c: Buffer) => { stdout += c.toString(); });
  child.stderr.on("data", (c: Buffer) => { stderr += c.toString(); });
  return new Promise((resolve) => child.once("close", (code) => resolve({ code, stdout, stderr })));
}

export interface Workspace {
  /** A fresh temporary folder to run processes in. */
  readonly cwd: string;
  /** A fresh database of the engine under test, for the processes' DATABASE_URL. */
  readonly databaseUrl: string;
  /** Drops the database and deletes the folder; the processes should have stopped first. */
  readonly remove: () => Promise<void>;
}

/**
 * A folder and a database for server or CLI processes. On SQLite the file goes in
 * `sqliteDir` (default: the folder itself); a relative `sqliteDir` such as "./store"
 * keeps the URL relative, so it is resolved against each process's cwd as a user's would be.
 */
export async function freshWorkspace(name: string, sqliteDir?: string): Promise<Workspace> {
  const cwd = await fs.mkdtemp(path.join(os.tmpdir(), `bloc-${name}-`));
  try {
    const database = await freshDatabaseUrl(sqliteDir ?? cwd, `${testFileLabel()}_${name}`);
    return {
      cwd,
      databaseUrl: database.url,
      async remove() {
        await database.drop();
        await fs.rm(cwd, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await fs.rm(cwd, { recursive: true, force: true });
    throw error;
  }
}

export interface ProcessPair {
  readonly urls: readonly [string, string];
  readonly admin: string;
  stop(): Promise<void>;
}

/** Two server processes on one fresh database (see database.ts), sharing an admin token. */
export async function startPair(name: string): Promise<ProcessPair> {
  const workspace = await freshWorkspace(name);
  const admin = `${name}-admin-${crypto.randomBytes(8).toString("hex")}`;
  const env = { DATABASE_URL: workspace.databaseUrl, BLOC_ADMIN_TOKEN: admin };
  let started: Running | undefined;
  try {
    const first = await startProcess(env, workspace.cwd);
    started = first;
    const second = await startProcess(env, workspace.cwd);
    return {
      urls: [first.url, second.url],
      admin,
      async stop() {
        await first.stop();
        await second.stop();
        await workspace.remove();
      },
    };
  } catch (error) {
    // Nothing may outlive a failed start: a running process, or a PostgreSQL database.
    await started?.stop();
    await workspace.remove();
    throw error;
  }
}

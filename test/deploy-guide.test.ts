import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { readConfig } from "../src/config.js";

/**
 * docs/deploy.md's files, checked as the guide prints them: each fenced block whose info
 * string says `file=<name>` is taken out of the guide, so what is checked is what a reader
 * copies. The systemd unit must pass `systemd-analyze verify` without a warning; every
 * file's settings must agree with the service's (the variables it reads, the port the
 * proxies pass to, the limits they must not undercut).
 */

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const guide = fs.readFileSync(path.join(root, "docs", "deploy.md"), "utf8");

/** The guide's `file=` blocks by name. */
function guideFiles(markdown: string): Map<string, string> {
  const files = new Map<string, string>();
  const pattern = /^```\w+ file=(\S+)\n([\s\S]*?)^```$/gm;
  for (const match of markdown.matchAll(pattern)) {
    assert.ok(!files.has(match[1]!), `${match[1]} appears twice in the guide`);
    files.set(match[1]!, match[2]!);
  }
  return files;
}

const files = guideFiles(guide);
const unit = files.get("bloc-data.service") ?? "";

/** The unit's `Environment=NAME=value` lines. */
function unitEnvironment(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const match of text.matchAll(/^Environment=([A-Z_]+)=(.*)$/gm)) env[match[1]!] = match[2]!;
  return env;
}

test("the guide holds the unit, a Caddyfile and an nginx site", () => {
  assert.deepEqual([...files.keys()].sort(), ["Caddyfile", "bloc-data.conf", "bloc-data.service"]);
});

test("the unit passes systemd-analyze verify without a warning", {
  skip: spawnSync("systemd-analyze", ["--version"]).error ? "systemd-analyze is not installed here"
    // verify checks that ExecStart's program exists: the unit names /usr/bin/node.
    : !fs.existsSync("/usr/bin/node") ? "no /usr/bin/node, which the unit's ExecStart names" : false,
}, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bloc-unit-"));
  try {
    const file = path.join(dir, "bloc-data.service");
    fs.writeFileSync(file, unit);
    const result = spawnSync("systemd-analyze", ["verify", file], { encoding: "utf8" });
    assert.equal(result.status, 0, result.stderr);
    // An unknown or misspelt key is only a warning, exit code 0.
    assert.equal(result.stderr.trim(), "", "no warning");
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("the unit runs this service's entry point, with settings it accepts, and outwaits its stop", () => {
  const exec = /^ExecStart=(\S+) (\S+)$/m.exec(unit);
  assert.ok(exec, "one ExecStart, node and the entry point");
  assert.match(exec[1]!, /\/node$/, "node itself, not npm, receives systemd's SIGTERM");
  assert.ok(fs.existsSync(path.join(root, exec[2]!)), `${exec[2]} is the compiled server`);
  const env = unitEnvironment(unit);
  assert.ok(Object.keys(env).length >= 4);
  const configuration = fs.readFileSync(path.join(root, "docs/configuration.md"), "utf8");
  for (const name of Object.keys(env)) assert.match(configuration, new RegExp(`^\\| [^|]*\`${name}\``, "m"), `${name} is in docs/configuration.md's table`);
  // readConfig throws on a value the service would refuse at start-up.
  const config = readConfig(env);
  assert.equal(config.host, "127.0.0.1", "behind the proxy, the service listens on this machine only");
  assert.equal(config.databaseUrl, env.DATABASE_URL);
  const stopSeconds = Number(/^TimeoutStopSec=(\d+)s$/m.exec(unit)?.[1]);
  // A cluster's primary waits the time limit plus 5 s for its workers (cluster.ts).
  assert.ok(stopSeconds * 1000 > config.shutdownTimeoutMs + 5_000, `TimeoutStopSec=${stopSeconds}s outlasts the drain`);
  assert.match(unit, /^Restart=on-failure$/m);
  assert.ok(config.filesDir.startsWith("/var/lib/bloc-data/") && config.databaseUrl.includes("/var/lib/bloc-data/"),
    "the data lives in the StateDirectory, the one path ProtectSystem=strict leaves writable");
  assert.match(unit, /^StateDirectory=bloc-data$/m);
  assert.match(unit, /^ReadWritePaths=\/var\/lib\/bloc-data$/m);
});

test("both proxies pass requests to the unit's address, with limits above the service's", () => {
  const config = readConfig(unitEnvironment(unit));
  const upstream = `127.0.0.1:${config.port}`;
  assert.match(files.get("Caddyfile")!, new RegExp(`reverse_proxy ${upstream.replaceAll(".", "\\.")}\\b`));
  const nginx = files.get("bloc-data.conf")!;
  assert.match(nginx, new RegExp(`proxy_pass http://${upstream.replaceAll(".", "\\.")};`));
  const body = /client_max_body_size (\d+)m;/.exec(nginx);
  assert.ok(body && Number(body[1]) * 1024 * 1024 > config.maxFileBytes, "nginx lets through a file the service accepts");
  for (const directive of ["proxy_read_timeout", "proxy_send_timeout"]) {
    const minutes = Number(new RegExp(`${directive} (\\d+)m;`).exec(nginx)?.[1]);
    assert.ok(minutes * 60_000 > config.uploadTimeoutMs, `${directive} outlasts BLOC_UPLOAD_TIMEOUT_MS`);
  }
  assert.match(nginx, /proxy_buffering off;/, "event streams and reports are not held by nginx");
});

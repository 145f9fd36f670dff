import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { ConfigError, readConfig } from "../src/config.js";
import { runToEnd, SERVER_ENTRY } from "./support/process.js";

test("defaults are the documented ones", () => {
  const config = readConfig({});
  assert.deepEqual(
    { ...config },
    {
      port: 8080, host: "127.0.0.1", databaseUrl: "sqlite:./data/bloc.db", adminToken: undefined,
      idStyle: "uuid", timezone: "UTC", debug: false, logLevel: "info",
      filesDir: path.resolve("data/files"), maxFileBytes: 25 * 1024 * 1024, fieldCountsLimit: 1000,
      workers: 1,
      pgPool: 10,
    },
  );
  assert.ok(Object.isFrozen(config));
});

const BAD: readonly [string, string][] = [
  ["PORT", "80a"],
  ["PORT", "70000"],
  ["DATABASE_URL", "mysql://localhost/db"],
  ["BLOC_ADMIN_TOKEN", "short"],
  ["BLOC_ID_STYLE", "serial"],
  ["BLOC_TIMEZONE", "Mars/Olympus"],
  ["BLOC_DEBUG", "yes"],
  ["BLOC_MAX_FILE_BYTES", "25MB"],
  ["BLOC_FIELD_COUNTS_LIMIT", "-1"],
  ["WORKERS", "0"],
  ["WORKERS", "65"],
  ["WORKERS", "two"],
  ["WORKERS", "1.5"],
  ["DATABASE_URL", "postgres:/missing-slashes"],
  ["BLOC_PG_POOL", "0"],
  ["BLOC_PG_POOL", "ten"],
];

for (const [name, value] of BAD) {
  test(`${name}=${value} is refused with a message naming ${name}`, () => {
    assert.throws(() => readConfig({ [name]: value }), (error: unknown) =>
      error instanceof ConfigError && error.message.includes(name));
  });
}

test("WORKERS takes a whole number from 1 to 64", () => {
  for (const n of [1, 2, 64]) assert.equal(readConfig({ WORKERS: String(n) }).workers, n);
  assert.equal(readConfig({ WORKERS: "" }).workers, 1);
});

test("DATABASE_URL may name a PostgreSQL database, and BLOC_PG_POOL sizes its pool", () => {
  for (const url of ["postgres://bloc@db.example:5432/bloc", "postgresql://bloc:secret@localhost/bloc"]) {
    assert.equal(readConfig({ DATABASE_URL: url }).databaseUrl, url);
  }
  assert.equal(readConfig({ BLOC_PG_POOL: "3" }).pgPool, 3);
});

test("a bad value stops npm start with one line naming the variable", async () => {
  const cwd = await fs.mkdtemp(path.join(os.tmpdir(), "bloc-config-"));
  try {
    const result = await runToEnd(SERVER_ENTRY, [], { BLOC_TIMEZONE: "Nowhere/Town" }, cwd);
    assert.equal(result.code, 1);
    const lines = result.stderr.trim().split("\n");
    assert.equal(lines.length, 1, result.stderr);
    assert.match(lines[0]!, /BLOC_TIMEZONE/);
    // Nothing was created for a configuration that never started.
    await assert.rejects(fs.stat(path.join(cwd, "data")));
  } finally {
    await fs.rm(cwd, { recursive: true, force: true });
  }
});

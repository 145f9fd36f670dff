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
      countedAbove: 2000,
      workers: 1,
      pgPool: 10,
      storeTimeoutMs: 5_000,
      shutdownTimeoutMs: 25_000,
      rateLimit: 0,
      idempotencySeconds: 86400,
      maxBodyBytes: 1024 * 1024, maxValueBytes: 64 * 1024, maxFieldsPerRecord: 500,
      maxResultLimit: 1000, maxReportPage: 10_000, maxParts: 50,
      requestTimeoutMs: 30_000, uploadTimeoutMs: 600_000, headersTimeoutMs: 10_000, idleTimeoutMs: 72_000,
      corsOrigins: [], metricsToken: undefined,
      eventsPollMs: 250, eventsKeepHours: 72, eventStreamsMax: 1000, eventStreamsPerUser: 4, webhookDelivery: true,
      webhookTimeoutMs: 10_000, webhookRetryMs: 1_000, webhookRetryForMs: 24 * 60 * 60 * 1000, webhookQuoteReplies: false, sessionHours: 12,
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
  ["BLOC_COUNTED_ABOVE", "0"],
  ["BLOC_EVENTS_POLL_MS", "0"],
  ["BLOC_EVENT_STREAMS_PER_USER", "0"],
  ["BLOC_WEBHOOK_DELIVERY", "no"],
  ["BLOC_WEBHOOK_QUOTE_REPLIES", "yes"],
  ["BLOC_WEBHOOK_TIMEOUT_MS", "10s"],
  ["WORKERS", "0"],
  ["WORKERS", "65"],
  ["WORKERS", "two"],
  ["WORKERS", "1.5"],
  ["DATABASE_URL", "postgres:/missing-slashes"],
  ["BLOC_PG_POOL", "0"],
  ["BLOC_PG_POOL", "ten"],
  ["BLOC_STORE_TIMEOUT_MS", "0"],
  ["BLOC_STORE_TIMEOUT_MS", "5s"],
  ["BLOC_SHUTDOWN_TIMEOUT_MS", "25s"],
  ["BLOC_RATE_LIMIT", "-5"],
  ["BLOC_RATE_LIMIT", "fast"],
  ["BLOC_IDEMPOTENCY_SECONDS", "0"],
  ["BLOC_IDEMPOTENCY_SECONDS", "1d"],
  ["BLOC_MAX_BODY_BYTES", "1MiB"],
  ["BLOC_MAX_VALUE_BYTES", "0"],
  ["BLOC_MAX_FIELDS_PER_RECORD", "0"],
  ["BLOC_MAX_RESULT_LIMIT", "many"],
  ["BLOC_MAX_REPORT_PAGE", "0"],
  ["BLOC_MAX_PARTS", "-3"],
  ["BLOC_REQUEST_TIMEOUT_MS", "30s"],
  ["BLOC_UPLOAD_TIMEOUT_MS", "0"],
  ["BLOC_HEADERS_TIMEOUT_MS", "1.5"],
  ["BLOC_IDLE_TIMEOUT_MS", "soon"],
  ["BLOC_ADMIN_TOKEN", "a".repeat(257)],
  ["BLOC_CORS_ORIGINS", "*"],
  ["BLOC_CORS_ORIGINS", "https://ok.example,https://bad.example/path"],
  ["BLOC_METRICS_TOKEN", "short"],
  ["BLOC_METRICS_TOKEN", "has a space in it somewhere"],
];

for (const [name, value] of BAD) {
  test(`${name}=${value} is refused with a message naming ${name}`, () => {
    assert.throws(() => readConfig({ [name]: value }), (error: unknown) =>
      error instanceof ConfigError && error.message.includes(name));
  });
}

test("BLOC_METRICS_TOKEN and BLOC_CORS_ORIGINS are read as given", () => {
  const config = readConfig({ BLOC_METRICS_TOKEN: "m".repeat(24), BLOC_CORS_ORIGINS: " https://a.example ,http://localhost:3000," });
  assert.equal(config.metricsToken, "m".repeat(24));
  assert.deepEqual(config.corsOrigins, ["https://a.example", "http://localhost:3000"]);
  assert.ok(Object.isFrozen(config.corsOrigins));
});

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

test("every setting src/config.ts reads has its row in docs/configuration.md's table", async () => {
  const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "../..");
  const source = await fs.readFile(path.join(root, "src/config.ts"), "utf8");
  const guide = await fs.readFile(path.join(root, "docs/configuration.md"), "utf8");
  const names = new Set([...source.matchAll(/\benv\.([A-Z][A-Z0-9_]+)|"((?:BLOC_)[A-Z0-9_]+)"/g)].map((m) => m[1] ?? m[2]!));
  assert.ok(names.has("BLOC_EVENT_STREAMS_PER_USER") && names.has("PORT"), "the settings are found in the source");
  for (const name of names) assert.match(guide, new RegExp(`^\\| [^|]*\`${name}\``, "m"), `${name} is in docs/configuration.md's table`);
});

import { test } from "node:test";
import assert from "node:assert/strict";
import { runSeed } from "./fuzz/prng.js";
import { runSoak, soakReport, type SoakOptions } from "./soak/run.js";

/**
 * Soak: minutes of mixed load on the four endpoints against the server as a child
 * process (SQLite, or PostgreSQL with BLOC_TEST_ENGINE=postgres). Not part of npm test:
 * `npm run test:soak` sets BLOC_SOAK=1. SOAK_SECONDS (default 300) shortens it, SOAK_RATE
 * (default 240) sets the requests per second aimed at; at least SOAK_MIN_RATE (200) must
 * be achieved for the run to count.
 */
function whole(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  if (!/^\d{1,7}$/.test(raw)) throw new Error(`${name} must be a whole number, got "${raw}"`);
  return Number(raw);
}

const enabled = process.env.BLOC_SOAK === "1";

test("soak: mixed load for minutes with no error and bounded memory", { skip: enabled ? false : "run with npm run test:soak" }, async () => {
  const seconds = whole("SOAK_SECONDS", 300);
  const options: SoakOptions = {
    seconds, rate: whole("SOAK_RATE", 240), maxInFlight: whole("SOAK_IN_FLIGHT", 64),
    warmupSeconds: Math.min(30, Math.max(5, Math.round(seconds / 10))), seed: runSeed("SOAK_SEED"),
  };
  const result = await runSoak(options, (line) => console.log(line));
  for (const line of soakReport(result, options)) console.log(line);
  assert.equal(result.errors, 0, `no request failed: ${result.errorExamples.join("; ")}`);
  assert.ok(result.rate >= whole("SOAK_MIN_RATE", 200), `at least ${whole("SOAK_MIN_RATE", 200)} requests/s achieved, got ${result.rate.toFixed(1)}`);
  const growth = (result.rssEnd - result.rssStart) / result.rssStart;
  assert.ok(growth <= 0.2, `the server's RSS grows at most 20% after the warm-up, grew ${(growth * 100).toFixed(1)}%`);
});

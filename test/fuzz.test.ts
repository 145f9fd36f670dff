import { test } from "node:test";
import assert from "node:assert/strict";
import { runSeed } from "./fuzz/prng.js";
import { optionsFromEnv, runFuzz } from "./fuzz/run.js";

/**
 * Bad input, generated: every request breaks at least one rule that makes its refusal
 * certain (test/fuzz/*-cases.ts), wrapped in noise that cannot mend it. Each answer must
 * be a prompt 4xx JSON body with the endpoint's key; the server must stay up; the stored
 * data and files must be byte for byte as before. `npm run test:fuzz` runs 50,000.
 */
test("fuzz: generated malformed requests over every endpoint are refused promptly and change nothing", async () => {
  const options = { ...optionsFromEnv({ count: 5000 }), seed: runSeed() };
  const result = await runFuzz(options, (line) => console.log(line));
  assert.equal(result.serverExit, undefined, "the server stays up");
  assert.deepEqual(result.main.healthFailures, [], "/health answers between batches");
  if (!options.only) assert.equal(result.main.tally.sent, options.count, "every request was sent");
  const failures = [...result.main.tally.failures.values()].map((f) => `${f.category} | ${f.route} | ${f.why} ×${f.count}`);
  assert.deepEqual(failures, [], `every answer is a prompt 4xx JSON refusal (seed ${options.seed})`);
  assert.deepEqual(result.main.dataChanged, [], "the stored data and files are unchanged");
});

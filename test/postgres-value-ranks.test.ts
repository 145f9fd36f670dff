import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createBloc } from "../src/domain/blocs.js";
import { ALL_TIME, EVERYONE } from "../src/domain/counting/keys.js";
import * as counters from "../src/store/postgres/counters.js";
import { connect, type Db, type Param, type Pg } from "../src/store/postgres/driver.js";
import { EXACT_RANKS } from "../src/store/postgres/value-ranks.js";
import { startServer, type TestServer } from "./support/server.js";
import { testEngine } from "./support/database.js";

/*
 * value_counts_top ranks a scope's values by a rank that is the count below EXACT_RANKS
 * and a step a sixteenth wide above it (store/postgres/value-ranks.ts), so that changing
 * a large count is a HOT update. The top values read off it must still be exactly the
 * most held, ties in code-point order, whatever the limit, including where it cuts
 * through a rank holding several counts.
 */

const skip = testEngine() === "postgres" ? false : "runs with BLOC_TEST_ENGINE=postgres";
const SLUG = "field_1";

let server: TestServer;
let sql: Pg;
let db: Db;
let scope: number;
/** What the scope's rows hold, as the test set them. */
const held = new Map<string, number>();

async function change(changes: readonly [string, number][]): Promise<void> {
  await counters.changeValues(db, changes.map(([value, n]) => ({ scope, slug: SLUG, value, n })));
  for (const [value, n] of changes) {
    const now = (held.get(value) ?? 0) + n;
    if (now > 0) held.set(value, now); else held.delete(value);
  }
}

/** The first `limit` (0: all) values held twice or more, most first, ties in code-point order. */
function expected(limit: number): [string, number][] {
  const all = [...held].filter(([value, n]) => n >= 2 && value !== "")
    .sort(([a, m], [b, n]) => n - m || (a < b ? -1 : a > b ? 1 : 0));
  return limit === 0 ? all : all.slice(0, limit);
}

before(async () => {
  if (skip) return;
  server = await startServer();
  const blocId = (await createBloc(server.ctx, { name: "Ranks", fields: [{ name: "Weight" }] })).id;
  sql = connect(server.databaseUrl, 1);
  db = { run: async <T extends object>(text: string, params: readonly Param[] = []) => Array.from(await sql.unsafe(text, params as never[])) as unknown as T[] };
  const [made] = await counters.changeScopes(db, blocId, [{ segment: EVERYONE.key, period: ALL_TIME, n: 100_000 }]);
  scope = made!.id;
  const values: [string, number][] = [];
  // 40 values inside one step above EXACT_RANKS: counts 2,000 to 2,019, two values each.
  for (let i = 0; i < 40; i += 1) values.push([`step-${String(i).padStart(2, "0")}`, 2_000 + Math.floor(i / 2)]);
  // Counts a step or more apart, up to 80,000; and counts below EXACT_RANKS, where the rank is the count.
  for (let i = 0; i < 12; i += 1) values.push([`far-${i}`, Math.round(EXACT_RANKS * 1.3 ** (i + 1))]);
  for (const n of [EXACT_RANKS - 1, EXACT_RANKS - 1, 1_000, 500, 3, 2, 2, 1, 1]) values.push([`low-${values.length}`, n]);
  values.push(["", 5_000], [`exact-${EXACT_RANKS}`, EXACT_RANKS]);
  await change(values);
});

after(async () => {
  if (skip) return;
  await sql.end();
  await server.close();
});

const LIMITS = [0, 1, 2, 5, 12, 13, 14, 20, 33, 52, 53, 54, 60, 66, 1_000];

test("the top values read off the ranks are exactly the most held, for every limit", { skip }, async () => {
  for (const limit of LIMITS) {
    assert.deepEqual(await counters.repeatedValues(db, [scope], SLUG, limit), expected(limit), `limit ${limit}`);
  }
  // Counts that cross into the next step, out of it and below EXACT_RANKS, and one that goes.
  await change([["step-07", 150], ["far-3", -1_500], [`exact-${EXACT_RANKS}`, -1], ["step-39", 1], ["far-0", -1_329],
    ["far-1", -held.get("far-1")!]]);
  for (const limit of LIMITS) {
    assert.deepEqual(await counters.repeatedValues(db, [scope], SLUG, limit), expected(limit), `after the changes, limit ${limit}`);
  }
});

test("changing a count within its step is a HOT update: no index changes", { skip }, async () => {
  const hot = async (): Promise<number> => {
    await sql.unsafe("SELECT pg_stat_force_next_flush()");
    await sql.unsafe("SELECT pg_stat_clear_snapshot()");
    const [row] = await sql.unsafe("SELECT n_tup_hot_upd FROM pg_stat_user_tables WHERE relname = 'value_counts'");
    return Number((row as unknown as { n_tup_hot_upd: number }).n_tup_hot_upd);
  };
  const before = await hot();
  // far-11 is held about 23,000 times: twenty increments stay within its step.
  for (let i = 0; i < 20; i += 1) await change([["far-11", 1]]);
  assert.equal(await hot() - before, 20, "every increment of a large count was HOT");
  assert.deepEqual(await counters.repeatedValues(db, [scope], SLUG, 3), expected(3));
});

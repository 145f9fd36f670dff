import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { bulkImportRecords } from "../src/domain/bulk-import.js";
import { createBloc } from "../src/domain/blocs.js";
import { ALL_TIME, EVERYONE } from "../src/domain/counting/keys.js";
import type { Context } from "../src/domain/context.js";
import type { NewRecord } from "../src/domain/ports/store.js";
import * as counters from "../src/store/postgres/counters.js";
import { connect, type Db, type Param, type Pg } from "../src/store/postgres/driver.js";
import { listRecords, listRows } from "../src/store/postgres/record-reads.js";
import type { PlanNode } from "./support/plan-node.js";
import { startServer, type TestServer } from "./support/server.js";
import { testEngine } from "./support/database.js";

/*
 * A freshly bulk-loaded PostgreSQL bloc answers page 1 from its indexes: the load
 * analyzes what it loaded before it returns (PostgreSQL on these machines runs without
 * autovacuum, and on others autovacuum lags minutes behind a load), so the planner knows
 * the tables' sizes. Checked by the plans of page 1's statements — how many rows each step
 * of the plan handled (EXPLAIN ANALYZE), not how long it took: the statements are the
 * engine's own, caught as it sends them.
 */

const skip = testEngine() === "postgres" ? false : "runs with BLOC_TEST_ENGINE=postgres";
const RECORDS = 60_000;

let server: TestServer;
let sql: Pg;
let blocId: string;

/** A Db on the test's connection that keeps what it runs (the engine's own statements, with their parameters). */
function catching(): { db: Db; sent: { text: string; params: readonly Param[] }[] } {
  const sent: { text: string; params: readonly Param[] }[] = [];
  return {
    sent,
    db: {
      run: async <T extends object>(text: string, params: readonly Param[] = []): Promise<T[]> => {
        sent.push({ text, params });
        return Array.from(await sql.unsafe(text, params as never[])) as unknown as T[];
      },
    },
  };
}


/** Rows a step of a plan handled, over all its loops. */
function rows(node: PlanNode): number {
  return node["Actual Rows"] * node["Actual Loops"];
}

function nodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}

async function planOf(statement: { text: string; params: readonly Param[] }): Promise<PlanNode[]> {
  const [row] = await sql.unsafe(`EXPLAIN (ANALYZE, FORMAT JSON) ${statement.text}`, statement.params as never[]);
  return nodes((row as unknown as { "QUERY PLAN": { Plan: PlanNode }[] })["QUERY PLAN"][0]!.Plan);
}

before(async () => {
  if (skip) return;
  // The production threshold: a bloc of this size counts its values in its larger scopes.
  server = await startServer({ BLOC_COUNTED_ABOVE: "2000" });
  const ctx: Context = server.ctx;
  // Read as `own` by everyone: its seven owners have scopes too, hundreds in all (keys.ts, keepsScopes).
  blocId = (await createBloc(ctx, { name: "Loaded", restriction: "own", fields: [{ name: "Serial" }, { name: "Status" }, { name: "Weight" }] })).id;
  const records = function* (): Generator<NewRecord> {
    for (let i = 0; i < RECORDS; i += 1) {
      yield {
        blocId, createdAt: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString().slice(0, 19).replace("T", " "),
        userId: String(1 + (i % 7)), submittedStatus: 1, jobId: null,
        // Weight: 20,000 values held three times each, so that its top values are many and must be read in order.
        values: { field_1: `SN-${i}`, field_2: ["ok", "rejected", "held"][i % 3]!, field_3: String(i % 20_000) },
      };
    }
  };
  await bulkImportRecords(ctx.store, blocId, records());
  // A connection as the service makes them, with its settings.
  sql = connect(server.databaseUrl, 1);
});

after(async () => {
  if (skip) return;
  await sql.end();
  await server.close();
});

test("the service's connections start no parallel workers", { skip }, async () => {
  const [row] = await sql.unsafe("SHOW max_parallel_workers_per_gather");
  assert.equal((row as unknown as { max_parallel_workers_per_gather: string }).max_parallel_workers_per_gather, "0");
});

test("page 1 of a freshly bulk-loaded bloc is read from indexes, with the sizes the load analyzed", { skip }, async () => {
  const [all] = await server.ctx.store.counters.scopes(blocId, [{ segment: EVERYONE.key, period: ALL_TIME }]);
  assert.ok(all?.counted, "the bloc's all-time scope counts its values");
  const [stats] = await sql.unsafe("SELECT reltuples FROM pg_class WHERE relname = 'records'");
  assert.ok(Number((stats as unknown as { reltuples: number }).reltuples) >= RECORDS * 0.9, "the load analyzed the records it loaded");

  const caught = catching();
  await listRecords(caught.db, { blocId }, { order: "newest", limit: 10, offset: 0 });
  await listRows(caught.db, { blocId }, { order: "newest", limit: 500, offset: 0 }, [{ key: "0", source: { field: "field_1" } }]);
  // A reader who sees one status (a third of the records): their newest records by walking the time index, not a sort of theirs.
  await listRows(caught.db, { blocId, visibility: { match: [{ key: "field_2", values: ["ok"] }] } }, { order: "newest", limit: 500, offset: 0 },
    [{ key: "0", source: { field: "field_1" } }]);
  await counters.repeatedValues(caught.db, [all.id], "field_3", 1001);
  await counters.scopes(caught.db, blocId, [{ segment: EVERYONE.key, period: ALL_TIME }]);
  await counters.periodCounts(caught.db, blocId, [EVERYONE.key], "d:2026-01-01", "d:2026-12-31");
  // A report filtered by one serial number (no field is marked indexed): found through the field's value index.
  await listRows(caught.db, { blocId, match: [{ key: "field_1", values: ["SN-4321"] }] }, { order: "oldest", limit: 1000, offset: 0 },
    [{ key: "0", source: { field: "field_2" } }]);
  // A page reads its records off the time index in order, and the values off the top-counts index: no sort of the bloc.
  const statements = caught.sent.filter((s) => !/FROM generation|pg_advisory/.test(s.text));
  assert.ok(statements.length >= 5, "the engine's statements were caught");
  for (const statement of statements) {
    const plan = await planOf(statement);
    const scans = plan.filter((n) => n["Relation Name"] === "records" || n["Relation Name"] === "value_counts" || n["Relation Name"] === "counter_scopes");
    assert.ok(scans.length > 0, `the plan reads a counted table: ${statement.text}`);
    for (const scan of scans) {
      assert.match(scan["Node Type"], /Index|Bitmap Heap/, `${scan["Relation Name"]} is read through an index, not ${scan["Node Type"]}: ${statement.text}`);
    }
    // Page 1 asks for 10 records, 500 of the newest (a third of them the reader's), 1,001 values, a year of days:
    // no step of its plans handles more than a few thousand rows of a bloc of 60,000.
    const busy = plan.filter((n) => rows(n) > 5000);
    assert.deepEqual(busy.map((n) => `${n["Node Type"]} ${n["Relation Name"] ?? ""} ${rows(n)}`), [], `no step reads the bloc: ${statement.text}`);
    // Parallel workers cost tens of milliseconds to start, whatever the plan then reads.
    assert.deepEqual(plan.filter((n) => /Gather/.test(n["Node Type"])).map((n) => n["Node Type"]), [], `no parallel workers: ${statement.text}`);
  }
});

/**
 * The plan PostgreSQL keeps for a prepared statement after its first executions is a
 * generic one, made without the parameters: it guesses an array of keys to hold ten. A
 * join of those keys to counter_scopes then hashed every scope of the bloc, computing each
 * one's key (1.2 ms per lookup at 567 scopes, five lookups per group commit of add-data).
 */
async function genericPlanOf(statement: { text: string; params: readonly Param[] }): Promise<PlanNode[]> {
  await sql.unsafe("SET plan_cache_mode = force_generic_plan");
  let prepared = false;
  try {
    // Sent as a simple query: in a parsed one, the $n of the prepared text would be its own parameters.
    await sql.unsafe(`PREPARE looked_up AS ${statement.text}`).simple();
    prepared = true;
    // EXPLAIN EXECUTE takes no bound parameters: its arguments are literals, of the types PREPARE inferred.
    const [inferred] = await sql.unsafe("SELECT parameter_types::text[] AS types FROM pg_prepared_statements WHERE name = 'looked_up'");
    const types = (inferred as unknown as { types: string[] }).types;
    const args: string[] = [];
    for (const [i, param] of statement.params.entries()) {
      const [quoted] = await sql.unsafe(`SELECT quote_nullable($1::${types[i]!}::text) AS q`, [param as never]);
      args.push(`${(quoted as unknown as { q: string }).q}::${types[i]!}`);
    }
    const [row] = await sql.unsafe(`EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE looked_up(${args.join(", ")})`);
    return nodes((row as unknown as { "QUERY PLAN": { Plan: PlanNode }[] })["QUERY PLAN"][0]!.Plan);
  } finally {
    // Only this statement: the driver keeps its own prepared on the same connection.
    if (prepared) await sql.unsafe("DEALLOCATE looked_up").simple();
    await sql.unsafe("RESET plan_cache_mode");
  }
}

test("a prepared statement's generic plan looks a bloc's scopes up by key, not by hashing all of them", { skip }, async () => {
  const [scopeRows] = await sql.unsafe("SELECT count(*)::integer AS n FROM counter_scopes WHERE bloc_id = $1", [blocId]);
  const held = (scopeRows as unknown as { n: number }).n;
  assert.ok(held >= 300, `the bloc holds hundreds of scopes (${held})`);
  const caught = catching();
  const owners = ["u:1", "u:2", "u:3"];
  await counters.scopes(caught.db, blocId, [EVERYONE.key, ...owners].map((segment) => ({ segment, period: ALL_TIME })));
  await counters.periodCounts(caught.db, blocId, [EVERYONE.key, ...owners], "d:2026-01-01", "d:2026-01-07");
  assert.equal(caught.sent.length, 2);
  for (const statement of caught.sent) {
    const plan = await genericPlanOf(statement);
    const scans = plan.filter((n) => n["Relation Name"] === "counter_scopes");
    assert.ok(scans.length > 0, `the plan reads counter_scopes: ${statement.text}`);
    for (const scan of scans) assert.match(scan["Node Type"], /Index/, `counter_scopes is read through its key, not ${scan["Node Type"]}: ${statement.text}`);
    const read = scans.reduce((n, scan) => n + rows(scan), 0);
    assert.ok(read <= 4 * 7, `${read} scope rows read of ${held}: ${statement.text}`);
  }
});

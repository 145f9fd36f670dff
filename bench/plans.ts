import { connect, type Db, type Param } from "../src/store/postgres/driver.js";
import * as counters from "../src/store/postgres/counters.js";
import { findRecords, listRecords, listRows } from "../src/store/postgres/record-reads.js";
import type { PlanNode } from "../test/support/plan-node.js";

/*
 * The plans of the statements page 1, windows, searches and writes rely on, on a
 * PostgreSQL database the benchmark seeded (`npm run bench -- --store postgres --keep-db`
 * leaves it): `node dist/bench/plans.js <its URL>`. Each statement is the engine's own,
 * caught as it sends it, then run under EXPLAIN (ANALYZE, BUFFERS); prints a Markdown table
 * (docs/performance.md, "Plans the engines rely on").
 */


const url = process.argv[2];
if (!url) throw new Error("usage: node dist/bench/plans.js <DATABASE_URL of a seeded bench database>");
const sql = connect(url, 1);
const direct: Db = { run: async <T extends object>(text: string, params: readonly Param[] = []) => Array.from(await sql.unsafe(text, params as never[])) as unknown as T[] };

async function explain(label: string, send: (db: Db) => Promise<unknown>): Promise<void> {
  const sent: { text: string; params: readonly Param[] }[] = [];
  await send({ run: async (text, params = []) => { sent.push({ text, params }); return direct.run(text, params); } });
  const last = sent[sent.length - 1]!;
  const [row] = await sql.unsafe(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${last.text}`, last.params as never[]);
  const result = (row as unknown as { "QUERY PLAN": { Plan: PlanNode; "Execution Time": number }[] })["QUERY PLAN"][0]!;
  const nodes: PlanNode[] = [];
  const walk = (node: PlanNode): void => { nodes.push(node); (node.Plans ?? []).forEach(walk); };
  walk(result.Plan);
  const index = (n: PlanNode): string => (n["Index Name"] ? ` using ${n["Index Name"].replace(/_[0-9a-f]{32}$/, "_<slug>")}` : "");
  // A bitmap heap scan names its table; the bitmap index scans under it name the indexes.
  const bitmaps = (n: PlanNode): string => (n.Plans ?? []).filter((c) => c["Node Type"] === "Bitmap Index Scan").map(index).join(",");
  const reads = nodes.filter((n) => n["Relation Name"]).map((n) =>
    `${n["Node Type"]}${index(n)}${bitmaps(n)} on ${n["Relation Name"]} ` +
    `(${(n["Actual Rows"] * n["Actual Loops"]).toLocaleString("en")} rows)`);
  const buffers = (result.Plan["Shared Hit Blocks"] ?? 0) + (result.Plan["Shared Read Blocks"] ?? 0);
  process.stdout.write(`| ${label} | ${reads.join("; ")} | ${buffers} | ${result["Execution Time"].toFixed(2)} ms |\n`);
}

const [bloc] = await direct.run<{ id: string }>("SELECT id FROM blocs WHERE name = 'Large'");
const blocId = bloc!.id;
const scope = async (segment: string, period: string): Promise<number> => (await counters.scopes(direct, blocId, [{ segment, period }]))[0]!.id;
const [all, dublin, march] = [await scope("", "a"), await scope("p:field_2:Dublin", "a"), await scope("", "m:2026-03")];
const [ref] = await direct.run<{ v: string }>("SELECT data ->> 'field_11' AS v FROM records WHERE bloc_id = $1 OFFSET 4321 LIMIT 1", [blocId]);
const dublinOnly = { match: [{ key: "field_2", values: ["Dublin"] }] };
process.stdout.write("| statement | what the plan reads | buffers | time |\n|---|---|---|---|\n");
await explain("page 1: the newest 10 records", (db) => listRecords(db, { blocId }, { order: "newest", limit: 10, offset: 0 }));
await explain("page 1: the newest 500, one field (single values)", (db) =>
  listRows(db, { blocId }, { order: "newest", limit: 500, offset: 0 }, [{ key: "0", source: { field: "field_6" } }]));
await explain("page 1, Dublin reader: their newest 500", (db) =>
  listRows(db, { blocId, visibility: dublinOnly }, { order: "newest", limit: 500, offset: 0 }, [{ key: "0", source: { field: "field_6" } }]));
await explain("page 1: a field's 1,001 top values (weight)", (db) => counters.repeatedValues(db, [all], "field_9", 1001));
await explain("page 1, Dublin reader: the same in their segment", (db) => counters.repeatedValues(db, [dublin], "field_9", 1001));
await explain("March: the month scope's top values (comment)", (db) => counters.repeatedValues(db, [march], "field_8", 1001));
await explain("a window: day counts of a year", (db) => counters.periodCounts(db, blocId, [""], "d:2026-01-01", "d:2026-12-31"));
await explain("counts of given values (a tally merged in)", (db) => counters.countsOf(db, [all], "field_9", ["12.34", "56.78", "99.99"]));
await explain("a value held by one record? (settling a write)", (db) =>
  counters.holderCounts(db, blocId, [{ slug: "field_6", value: "SN-00004321" }, { slug: "field_11", value: ref!.v }], 2));
await explain("update by an unmarked field: the records holding one order ref", (db) =>
  findRecords(db, { blocId, match: [{ key: "field_11", values: [ref!.v] }] }));
await explain("report filtered by an unmarked field, first page", (db) =>
  listRows(db, { blocId, match: [{ key: "field_11", values: [ref!.v] }] }, { order: "oldest", limit: 1000, offset: 0 }, [{ key: "0", source: { field: "field_1" } }]));
await explain("deep page: 10 records after 1,500 of a window", (db) =>
  listRecords(db, { blocId, to: "2026-05-01 23:59:59" }, { order: "newest", limit: 10, offset: 1500 }));
await sql.end();

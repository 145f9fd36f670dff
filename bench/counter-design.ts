import { record, randomFrom } from "./seed.js";
import { TIERS, hourOf, periodOf } from "../src/domain/counting/keys.js";

/*
 * What each counting design would keep, worked out in memory on the benchmark's records
 * (no database): `node dist/bench/counter-design.js [records] [thresholds]`, e.g.
 * `node dist/bench/counter-design.js 1000000 1000,2000,5000` (a few minutes and ~10 GB at a
 * million). Per segment kind (everyone's, an owner's, a site's) and period tier, value rows
 * per record:
 * - all: a row per (scope, field, value), every value counted everywhere (the design before);
 * - once-less: no row for a value one record of the bloc alone holds;
 * - once-less ≥2: of those, rows counting two or more (what the top-values index holds);
 * - T=…: once-less, and only in scopes of more than T records (what the service keeps).
 * docs/performance.md, "Why this design", has the figures of a run.
 */

const records = Number(process.argv[2] ?? 100_000);
const thresholds = (process.argv[3] ?? "2000").split(",").map(Number);
const users = Array.from({ length: 20 }, (_, i) => String(i + 1));
const next = randomFrom(records);

/** Each distinct (field, value) as a number, and how many records hold it. */
const numbers = new Map<string, number>();
const held: number[] = [];
const rows: { hour: string; user: string; site: string; values: number[] }[] = [];
for (let i = 0; i < records; i += 1) {
  const r = record("b", i, records, users, next);
  const values: number[] = [];
  for (const [slug, value] of Object.entries(r.values)) {
    const key = `${slug}\u0000${value}`;
    let n = numbers.get(key);
    if (n === undefined) { n = numbers.size; numbers.set(key, n); held.push(0); }
    held[n]! += 1;
    values.push(n);
  }
  rows.push({ hour: hourOf(r.createdAt), user: r.userId, site: r.values.field_2 ?? "", values });
}

const kinds = { everyone: () => "", owner: (r: (typeof rows)[number]) => `u:${r.user}`, site: (r: (typeof rows)[number]) => `p:${r.site}` };
const totals = new Map<string, number>();
for (const [kind, segmentOf] of Object.entries(kinds)) {
  for (const tier of TIERS) {
    const scopeSize = new Map<string, number>();
    const counts = new Map<string, number>();
    for (const r of rows) {
      const scope = `${segmentOf(r)}|${periodOf(tier, r.hour)}`;
      scopeSize.set(scope, (scopeSize.get(scope) ?? 0) + 1);
      for (const v of r.values) counts.set(`${scope}\u0000${v}`, (counts.get(`${scope}\u0000${v}`) ?? 0) + 1);
    }
    const figures = new Map<string, number>([["all", 0], ["once-less", 0], ["once-less ≥2", 0], ...thresholds.map((t): [string, number] => [`T=${t}`, 0])]);
    for (const [key, n] of counts) {
      const cut = key.lastIndexOf("\u0000");
      figures.set("all", figures.get("all")! + 1);
      if (held[Number(key.slice(cut + 1))] === 1) continue;
      figures.set("once-less", figures.get("once-less")! + 1);
      if (n >= 2) figures.set("once-less ≥2", figures.get("once-less ≥2")! + 1);
      const size = scopeSize.get(key.slice(0, cut))!;
      for (const t of thresholds) if (size > t) figures.set(`T=${t}`, figures.get(`T=${t}`)! + 1);
    }
    process.stdout.write(`${kind.padEnd(8)} ${tier}  ${[...figures].map(([name, n]) => `${name} ${(n / records).toFixed(2)}`).join("  ")}  (${scopeSize.size} scopes)\n`);
    for (const [name, n] of figures) totals.set(name, (totals.get(name) ?? 0) + n);
  }
}
process.stdout.write(`total       ${[...totals].map(([name, n]) => `${name} ${(n / records).toFixed(2)}`).join("  ")}\n`);

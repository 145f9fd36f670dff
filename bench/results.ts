import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export interface Figure {
  readonly name: string;
  readonly value: string;
  readonly target: string;
  /** null for reference figures that have no target of their own. */
  readonly met: boolean | null;
}

export interface Results {
  readonly quick: boolean;
  readonly large: number;
  readonly seconds: number;
  readonly sqlite: string;
  readonly figures: readonly Figure[];
  readonly raw: unknown;
  readonly failures: number;
  readonly elapsed: number;
}

/** Writes bench/results.md and bench/results.json and returns the table as printed. */
export function writeResults(dir: string, results: Results): string {
  const machine = `${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${os.type()} ${os.release()}`;
  const heading = [
    `# Benchmark results${results.quick ? " (quick run)" : ""}`,
    "",
    `- date: ${new Date().toISOString()}`,
    `- machine: ${machine}`,
    `- Node ${process.version}, SQLite ${results.sqlite}`,
    `- large bloc: ${results.large.toLocaleString("en")} records; small bloc: 10,000; each load ${results.seconds} s`,
    `- non-2xx answers or errors during load: ${results.failures}`,
    `- whole run: ${results.elapsed.toFixed(0)} s`,
    "",
  ];
  const rows = [
    "| figure | measured | target | met |",
    "|---|---|---|---|",
    ...results.figures.map((f) => `| ${f.name} | ${f.value} | ${f.target} | ${f.met === null ? "–" : f.met ? "yes" : "**no**"} |`),
  ];
  const table = [...heading, ...rows, ""].join("\n");
  const name = results.quick ? "results-quick" : "results";
  fs.writeFileSync(path.join(dir, `${name}.md`), `${table}\nSee docs/performance.md for what these mean.\n`);
  fs.writeFileSync(path.join(dir, `${name}.json`), `${JSON.stringify({ ...results, machine, date: new Date().toISOString() }, null, 2)}\n`);
  return table;
}

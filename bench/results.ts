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
  /** The engine measured: results go to results.* (SQLite) or results-postgres.* (PostgreSQL). */
  readonly store: "sqlite" | "postgres";
  /** The engine's version, as the heading shows it after Node's: "SQLite 3.53.0", "PostgreSQL 15.4". */
  readonly engine: string;
  /** SQLite's version, on SQLite runs (kept for the files' earlier readers). */
  readonly sqlite?: string;
  /** PostgreSQL: the server's version and settings. */
  readonly server?: Readonly<Record<string, string>> | undefined;
  /** More lines for the heading: server settings, seeding path, references. */
  readonly notes?: readonly string[];
  readonly figures: readonly Figure[];
  readonly raw: unknown;
  readonly failures: number;
  readonly elapsed: number;
  /** The machine's 1-minute load average when the run started (os.loadavg), to tell a busy machine from a slow service. */
  readonly loadAtStart?: number;
}

/** Writes bench/results[-postgres][-quick].md and .json and returns the table as printed. */
export function writeResults(dir: string, results: Results): string {
  const machine = `${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${os.type()} ${os.release()}`;
  const heading = [
    `# Benchmark results${results.store === "postgres" ? ", PostgreSQL" : ""}${results.quick ? " (quick run)" : ""}`,
    "",
    `- date: ${new Date().toISOString()}`,
    `- machine: ${machine}`,
    `- Node ${process.version}, ${results.engine}`,
    ...(results.notes ?? []).map((note) => `- ${note}`),
    `- large bloc: ${results.large.toLocaleString("en")} records; small bloc: 10,000; each load ${results.seconds} s`,
    `- non-2xx answers or errors during load: ${results.failures}`,
    `- whole run: ${results.elapsed.toFixed(0)} s`,
    ...(results.loadAtStart === undefined ? [] : [
      `- 1-minute load average: ${results.loadAtStart.toFixed(1)} at the start, ${os.loadavg()[0]!.toFixed(1)} at the end (${os.cpus().length} CPUs; other processes' load shows here)`,
    ]),
    "",
  ];
  const rows = [
    "| figure | measured | target | met |",
    "|---|---|---|---|",
    ...results.figures.map((f) => `| ${f.name} | ${f.value} | ${f.target} | ${f.met === null ? "–" : f.met ? "yes" : "**no**"} |`),
  ];
  const table = [...heading, ...rows, ""].join("\n");
  const name = `results${results.store === "postgres" ? "-postgres" : ""}${results.quick ? "-quick" : ""}`;
  fs.writeFileSync(path.join(dir, `${name}.md`), `${table}\nSee docs/performance.md for what these mean.\n`);
  fs.writeFileSync(path.join(dir, `${name}.json`), `${JSON.stringify({ ...results, machine, date: new Date().toISOString() }, null, 2)}\n`);
  return table;
}

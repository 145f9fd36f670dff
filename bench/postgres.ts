import crypto from "node:crypto";
import postgres from "postgres";
import { CpuMeter, type CpuPerRequest } from "./cpu-budget.js";
import type { Load } from "./measure.js";

/** Where the benchmark creates (and drops) its database: a server and a database to connect to for that. */
export const ADMIN_URL = process.env.BLOC_BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

export interface BenchDatabase {
  readonly name: string;
  /** The new database's URL, as DATABASE_URL. */
  readonly url: string;
  /** The server's version and the settings that decide durability and memory. */
  readonly server: Readonly<Record<string, string>>;
  /** Drops the database (terminating any connection left); safe to call more than once. */
  drop(): Promise<void>;
}

function urlOf(admin: string, database: string): string {
  const url = new URL(admin);
  url.pathname = `/${database}`;
  return url.toString();
}

const SETTINGS = ["server_version", "synchronous_commit", "fsync", "wal_sync_method", "full_page_writes", "shared_buffers",
  "work_mem", "max_connections", "commit_delay"];

/** Creates `bloc_bench_<hex>` on the server of `admin`. */
export async function createBenchDatabase(admin = ADMIN_URL): Promise<BenchDatabase> {
  const name = `bloc_bench_${crypto.randomBytes(6).toString("hex")}`;
  const sql = postgres(admin, { max: 1, onnotice: () => {} });
  try {
    await sql.unsafe(`CREATE DATABASE ${name}`);
    const server: Record<string, string> = {};
    for (const setting of SETTINGS) {
      const rows = await sql.unsafe(`SELECT current_setting('${setting}') AS v`);
      server[setting] = String(rows[0]!.v);
    }
    let dropped = false;
    return {
      name, url: urlOf(admin, name), server,
      async drop() {
        if (dropped) return;
        dropped = true;
        const again = postgres(admin, { max: 1, onnotice: () => {} });
        try {
          await again.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        } finally {
          await again.end();
        }
      },
    };
  } finally {
    await sql.end();
  }
}

export interface DriverCeiling extends Load {
  readonly loops: number;
  readonly pool: number;
  /** What sessions of the database were doing, sampled during the measured run. */
  readonly waits: Readonly<Record<string, number>>;
  /** CPU per transaction over the measured run: PostgreSQL's, and the loop's own (as `load`). */
  readonly cpu: CpuPerRequest;
}

/**
 * The PostgreSQL reference for add-data: `loops` concurrent loops over a pool of `pool`
 * connections, each doing BEGIN; INSERT one row into a table shaped like `records`
 * (no index but its key); COMMIT — durable as the server's settings make every commit.
 * Half a second of warm-up, then `seconds` measured.
 */
export async function driverCeiling(url: string, options: {
  readonly loops: number; readonly pool: number; readonly seconds: number; readonly databaseName: string;
  readonly row: { readonly blocId: string; readonly userId: string; readonly values: Readonly<Record<string, string>> };
}): Promise<DriverCeiling> {
  const sql = postgres(url, { max: options.pool, onnotice: () => {} });
  await sql`CREATE TABLE bench_ceiling (
    id bigserial PRIMARY KEY, bloc_id text NOT NULL, created_at text NOT NULL, user_id text NOT NULL,
    submitted_status integer NOT NULL, job_id text, data jsonb NOT NULL)`;
  const data = JSON.stringify(options.row.values);
  const once = (): Promise<unknown> => sql.begin((tx) => tx`INSERT INTO bench_ceiling
      (bloc_id, created_at, user_id, submitted_status, job_id, data)
    VALUES (${options.row.blocId}, ${new Date().toISOString().slice(0, 19).replace("T", " ")}, ${options.row.userId}, 1, ${null}, ${data}::jsonb)`);
  const run = async (seconds: number): Promise<{ ms: number[]; failures: number }> => {
    const ms: number[] = [];
    let failures = 0;
    const until = performance.now() + seconds * 1000;
    await Promise.all(Array.from({ length: options.loops }, async () => {
      while (performance.now() < until) {
        const started = performance.now();
        try {
          await once();
          ms.push(performance.now() - started);
        } catch {
          failures += 1;
        }
      }
    }));
    return { ms, failures };
  };
  try {
    await run(0.5);
    const sampler = sampleSessions(options.databaseName);
    const meter = new CpuMeter(undefined, { postgres: true });
    const { ms, failures } = await run(options.seconds);
    const cpu = meter.perRequest(ms.length);
    const waits = await sampler.stop();
    ms.sort((a, b) => a - b);
    const at = (q: number): number => Math.round(ms[Math.min(ms.length - 1, Math.floor(q * ms.length))]! * 10) / 10;
    return {
      rps: ms.length / options.seconds, p50: at(0.5), p99: at(0.99), requests: ms.length, failures,
      loops: options.loops, pool: options.pool, waits, cpu,
    };
  } finally {
    await sql`DROP TABLE IF EXISTS bench_ceiling`;
    await sql.end();
  }
}

export interface Sampler {
  /** Stops sampling; per state and wait event, the share of samples (0–1) over all sessions sampled. */
  stop(): Promise<Record<string, number>>;
}

/**
 * Samples `pg_stat_activity` for the database every 50 ms from a connection of its own
 * (not counted): for each client session, its state and what it waits on ("CPU" when
 * active and waiting on nothing; "idle in transaction" when the server waits for the client).
 */
export function sampleSessions(databaseName: string, admin = ADMIN_URL): Sampler {
  const sql = postgres(admin, { max: 1, onnotice: () => {} });
  const tally = new Map<string, number>();
  let total = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const rows = await sql`SELECT state, wait_event_type, wait_event FROM pg_stat_activity
        WHERE datname = ${databaseName} AND backend_type = 'client backend' AND pid <> pg_backend_pid()`;
      for (const row of rows) {
        const state = String(row.state ?? "unknown");
        const key = state === "active"
          ? `active: ${row.wait_event_type ? `${row.wait_event_type}/${row.wait_event}` : "CPU"}`
          : state === "idle in transaction" ? "idle in transaction (waiting for the client)" : state;
        tally.set(key, (tally.get(key) ?? 0) + 1);
        total += 1;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      await sql.end();
      return Object.fromEntries([...tally.entries()].sort((a, b) => b[1] - a[1])
        .map(([key, n]) => [key, Math.round((n / Math.max(1, total)) * 1000) / 1000]));
    },
  };
}

/** A sampler's tally as one line: the shares of the most frequent states, in percent. */
export function describeWaits(waits: Readonly<Record<string, number>>, top = 5): string {
  return Object.entries(waits).slice(0, top).map(([key, share]) => `${key} ${(share * 100).toFixed(0)}%`).join(", ");
}

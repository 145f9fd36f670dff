import http from "node:http";
import crypto from "node:crypto";
import os from "node:os";
import path from "node:path";
import { call } from "../support/http.js";
import { freshWorkspace, startProcess, type Running } from "../support/process.js";
import { mebibytes, residentBytes } from "../support/rss.js";
import { Prng } from "../fuzz/prng.js";
import {
  addRequest, getDataRequest, reportRequest, Serials, SOAK_FIELDS, updateRequest, type Endpoint, type Scan, type SoakRequest,
} from "./traffic.js";
import type { JsonBody } from "../support/json.js";

export interface SoakOptions {
  /** Seconds of load, warm-up included. */
  readonly seconds: number;
  /** Requests per second the scheduler aims at. */
  readonly rate: number;
  /** Requests in flight at most: past it the load waits for answers (and the achieved rate shows it). */
  readonly maxInFlight: number;
  /** The first seconds of the load, before the first RSS reading (caches and the JIT settle); not in the latency figures. */
  readonly warmupSeconds: number;
  readonly seed: number;
}

export interface EndpointFigures {
  readonly endpoint: Endpoint;
  readonly count: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
}

export interface SoakResult {
  readonly engine: string;
  readonly seconds: number;
  readonly requests: number;
  readonly rate: number;
  readonly errors: number;
  readonly errorExamples: readonly string[];
  readonly endpoints: readonly EndpointFigures[];
  readonly rssStart: number;
  readonly rssEnd: number;
  readonly rssMax: number;
  /** Median requests in flight in the start and end windows of the RSS readings. */
  readonly busyStart: number;
  readonly busyEnd: number;
  /** RSS SETTLE_SECONDS after the last answer, with nothing in flight. */
  readonly rssSettled: number;
  readonly records: number;
}

/** Scanners add and correct, dashboards page; reports are pulled now and then, the .xlsx ones rarely. */
const MIX: readonly (readonly [number, Endpoint])[] = [
  [35, "add-data"], [35, "get-data"], [8, "get-data-report json"], [2, "get-data-report xlsx"], [20, "update-records"],
];

/** Seconds of RSS readings whose median stands for "at start" (after the warm-up) and "at end". */
export const RSS_WINDOW_SECONDS = 20;
/** Idle seconds after the load before the last RSS reading. */
const SETTLE_SECONDS = 10;

function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error("no RSS readings in the window");
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** Sends one request and reads its whole answer; resolves with the status (0: failed) and the time taken. */
function exchange(base: URL, agent: http.Agent, token: string, request: SoakRequest): Promise<{ status: number; ms: number; text: string }> {
  const started = performance.now();
  const payload = Buffer.from(JSON.stringify(request.body));
  return new Promise((resolve) => {
    const outgoing = http.request({
      host: base.hostname, port: base.port, method: request.method, path: request.path, agent,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "content-length": String(payload.length) },
    }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => {
        const status = response.statusCode ?? 0;
        resolve({ status, ms: performance.now() - started, text: status >= 300 ? Buffer.concat(chunks).toString("utf8").slice(0, 300) : "" });
      });
      response.on("error", (error) => resolve({ status: 0, ms: performance.now() - started, text: error.message }));
    });
    outgoing.setTimeout(60_000, () => outgoing.destroy(new Error("no answer within 60 s")));
    outgoing.on("error", (error) => resolve({ status: 0, ms: performance.now() - started, text: error.message }));
    outgoing.end(payload);
  });
}

/** Stations of the site, one bloc each: the load spreads over them as a site's scanners do. */
const STATIONS = 12;

async function seed(base: URL, admin: string, log: (line: string) => void): Promise<{ blocIds: string[]; moduleId: string; token: string }> {
  const asAdmin = async (method: string, p: string, json?: unknown): Promise<JsonBody> => {
    const reply = await call(base.toString(), method, p, { token: admin, ...(json === undefined ? {} : { json }) });
    if (reply.status >= 300) throw new Error(`seeding the soak: ${method} ${p} answered ${reply.status} ${reply.text}`);
    return reply.json;
  };
  const module = await asAdmin("POST", "/api/admin/modules", { name: "Goods in" });
  const user = await asAdmin("POST", "/api/admin/users", { name: "soak scanner" });
  const blocIds: string[] = [];
  for (let i = 1; i <= STATIONS; i += 1) {
    const id = `soak_station_${i}`;
    await asAdmin("POST", "/api/admin/blocs", { name: `Station ${i}`, id, moduleId: module.id, fields: SOAK_FIELDS });
    await asAdmin("PUT", `/api/admin/blocs/${id}/access/${user.id}`, { read: true, add: true, update: true });
    blocIds.push(id);
  }
  const token = await asAdmin("POST", `/api/admin/users/${user.id}/tokens`, { name: "soak" });
  log(`soak: ${STATIONS} station blocs with ${SOAK_FIELDS.length} fields each, a member token with read, add and update on them`);
  return { blocIds, moduleId: String(module.id), token: token.token as string };
}

/**
 * Runs the server as a child process on a fresh store of the engine under test and
 * drives mixed load at a fixed rate for the given time; returns latency per endpoint,
 * errors, the achieved rate and the server's RSS after the warm-up and at the end.
 */
export async function runSoak(options: SoakOptions, log: (line: string) => void): Promise<SoakResult> {
  const workspace = await freshWorkspace("soak");
  const admin = `soak-admin-${crypto.randomBytes(12).toString("hex")}`;
  let running: Running | undefined;
  try {
    running = await startProcess({
      DATABASE_URL: workspace.databaseUrl, BLOC_ADMIN_TOKEN: admin, BLOC_FILES_DIR: path.join(workspace.cwd, "files"), BLOC_LOG_LEVEL: "warn",
    }, workspace.cwd);
    const pid = running.child.pid!;
    const base = new URL(running.url);
    const { blocIds, moduleId, token } = await seed(base, admin, log);
    const agent = new http.Agent({ keepAlive: true, maxSockets: options.maxInFlight });
    const rng = new Prng(options.seed);
    const serials = new Serials(`S${options.seed.toString(36).toUpperCase()}`);

    const latencies = new Map<Endpoint, number[]>(MIX.map(([, e]) => [e, []]));
    let errors = 0;
    const errorExamples: string[] = [];
    let inFlight = 0;
    let launched = 0;
    let measuredFrom = 0;
    let measuredRequests = 0;

    const one = async (request: SoakRequest, scan: Scan | undefined, measured: boolean): Promise<void> => {
      inFlight += 1;
      const { status, ms, text } = await exchange(base, agent, token, request);
      inFlight -= 1;
      if (status >= 200 && status < 300) {
        if (scan) serials.stored(scan);
      } else {
        errors += 1;
        if (errorExamples.length < 10) errorExamples.push(`${request.endpoint}: ${status} ${text}`);
      }
      if (measured) {
        latencies.get(request.endpoint)!.push(ms);
        measuredRequests += 1;
      }
    };

    const scanOf = (): Scan => ({ blocId: rng.pick(blocIds), serial: serials.fresh() });
    const build = (): { request: SoakRequest; scan?: Scan } => {
      let endpoint = rng.weighted(MIX);
      const known = serials.pick(rng);
      if (endpoint === "update-records" && known === undefined) endpoint = "add-data";
      const blocId = rng.pick(blocIds);
      switch (endpoint) {
        case "add-data": { const scan = scanOf(); return { request: addRequest(rng, scan.blocId, moduleId, scan.serial), scan }; }
        case "get-data": return { request: getDataRequest(rng, blocId) };
        case "get-data-report json": return { request: reportRequest(rng, blocId, false) };
        case "get-data-report xlsx": return { request: reportRequest(rng, blocId, true) };
        default: return { request: updateRequest(rng, known!) };
      }
    };

    // A base of records before the clock starts, so that pages and reports have rows from the first second.
    const preload = 2000;
    for (let i = 0; i < preload; i += 50) {
      await Promise.all(Array.from({ length: 50 }, () => {
        const scan = scanOf();
        return one(addRequest(rng, scan.blocId, moduleId, scan.serial), scan, false);
      }));
    }
    log(`soak: ${preload} records added before the load`);

    const started = performance.now();
    const warmupEnd = started + options.warmupSeconds * 1000;
    const end = started + options.seconds * 1000;
    // RSS every second: the garbage collector makes single readings saw up and down.
    const samples: { at: number; rss: number; inFlight: number }[] = [];
    const sampler = setInterval(() => {
      const busy = inFlight;
      void residentBytes(pid).then((rss) => samples.push({ at: performance.now(), rss, inFlight: busy }), () => {});
    }, 1000);
    let nextReport = started + 30_000;
    let warm = false;
    const pending = new Set<Promise<void>>();
    while (performance.now() < end) {
      const now = performance.now();
      if (!warm && now >= warmupEnd) {
        warm = true;
        measuredFrom = now;
        log(`soak: warm-up of ${options.warmupSeconds} s done; measuring until ${options.seconds} s`);
      }
      const due = Math.floor(((now - started) / 1000) * options.rate);
      while (launched < due && inFlight < options.maxInFlight) {
        launched += 1;
        const { request, scan } = build();
        const task = one(request, scan, warm);
        pending.add(task);
        void task.finally(() => pending.delete(task));
      }
      if (now >= nextReport) {
        const rss = samples[samples.length - 1]?.rss ?? 0;
        log(`soak: ${Math.round((now - started) / 1000)} s, ${launched} requests, ${errors} errors, ${inFlight} in flight, RSS ${mebibytes(rss)}`);
        nextReport += 30_000;
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const measuredSeconds = (performance.now() - measuredFrom) / 1000;
    clearInterval(sampler);
    await Promise.all(pending);
    agent.destroy();
    // Once the load has stopped and the answers are in: what the process keeps when idle (a leak would stay).
    await new Promise((resolve) => setTimeout(resolve, SETTLE_SECONDS * 1000));
    const rssSettled = await residentBytes(pid);
    // Start: the median of the readings in the window after the warm-up; end: of the last window.
    const span = RSS_WINDOW_SECONDS * 1000;
    const startWindow = samples.filter((s) => s.at >= warmupEnd && s.at < warmupEnd + span);
    const endWindow = samples.filter((s) => s.at >= end - span);
    const rssStart = median(startWindow.map((s) => s.rss));
    const rssEnd = median(endWindow.map((s) => s.rss));
    const rssMax = Math.max(...samples.map((s) => s.rss));
    // How busy the server was in each window: RSS holds the requests in flight too.
    const busyStart = median(startWindow.map((s) => s.inFlight));
    const busyEnd = median(endWindow.map((s) => s.inFlight));
    let records = 0;
    for (const blocId of blocIds) {
      const page = await call(base.toString(), "GET", "/api/get-data", { token, json: { blocId, resultLimit: 1 } });
      records += Number(page.json?.data?.count ?? Number.NaN);
    }

    const endpoints = [...latencies].map(([endpoint, values]): EndpointFigures => {
      const sorted = [...values].sort((a, b) => a - b);
      return { endpoint, count: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted[sorted.length - 1] ?? 0 };
    });
    return {
      engine: workspace.databaseUrl.split(":")[0]!, seconds: measuredSeconds, requests: measuredRequests,
      rate: measuredRequests / measuredSeconds, errors, errorExamples, endpoints, rssStart, rssEnd, rssMax, busyStart, busyEnd, rssSettled,
      records,
    };
  } finally {
    if (running && running.child.exitCode === null) await running.stop();
    await workspace.remove();
  }
}

/** The figures as the lines docs/reliability.md takes. */
export function soakReport(result: SoakResult, options: SoakOptions): string[] {
  const growth = ((result.rssEnd - result.rssStart) / result.rssStart) * 100;
  const lines = [
    `soak on ${result.engine}: ${options.seconds} s of load; figures from the ${result.seconds.toFixed(0)} s after a ${options.warmupSeconds} s warm-up: ` +
      `${result.requests} requests, ${result.rate.toFixed(1)} requests/s achieved (target ${options.rate}), ${result.errors} errors, ` +
      `${result.records} records at the end`,
    `server RSS (median of each second's reading over ${RSS_WINDOW_SECONDS} s): ${mebibytes(result.rssStart)} just after the warm-up, ` +
      `${mebibytes(result.rssEnd)} at the end (${growth >= 0 ? "+" : ""}${growth.toFixed(1)}%); highest reading ${mebibytes(result.rssMax)}; ` +
      `requests in flight (median) ${result.busyStart} in the first window, ${result.busyEnd} in the last; ` +
      `${mebibytes(result.rssSettled)} ${SETTLE_SECONDS} s after the last answer`,
    `machine: ${os.cpus().length} cores, ${(os.totalmem() / 1024 ** 3).toFixed(0)} GiB RAM, node ${process.version}, load average ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}`,
    "| endpoint | requests | p50 ms | p99 ms | max ms |",
    "|---|---:|---:|---:|---:|",
    ...result.endpoints.map((e) => `| ${e.endpoint} | ${e.count} | ${e.p50.toFixed(1)} | ${e.p99.toFixed(1)} | ${e.max.toFixed(1)} |`),
  ];
  for (const example of result.errorExamples) lines.push(`error: ${example}`);
  return lines;
}

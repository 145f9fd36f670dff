import fs from "node:fs";
import os from "node:os";

/*
 * What a request costs the machine in CPU, process by process, over a measured run: the
 * service, PostgreSQL (every process of the server on this machine, including the
 * backends that ended meanwhile) and the load generator (this process). From it, the most
 * requests per second the machine's cores could answer at that cost if nothing ever waited
 * for anything: how far running requests side by side could take the same work, whatever
 * it locks. A ceiling on a design's concurrency, not a floor under every design.
 */

/** CPU per request, in µs. */
export interface CpuPerRequest {
  readonly service: number;
  readonly postgres: number;
  readonly load: number;
}

/** Clock ticks per second of /proc's CPU times: 100 on every Linux this runs on (USER_HZ). */
const TICKS = 100;

function ticksUs(fields: readonly string[], from: number, count: number): number {
  let ticks = 0;
  for (let i = from; i < from + count; i += 1) ticks += Number(fields[i]);
  return ticks * 1_000_000 / TICKS;
}

/** The fields of /proc/<pid>/stat after the command's name, and that name; undefined once the process is gone. */
function stat(pid: string): { name: string; fields: string[] } | undefined {
  let text: string;
  try {
    text = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  const close = text.lastIndexOf(")");
  return { name: text.slice(text.indexOf("(") + 1, close), fields: text.slice(close + 2).split(" ") };
}

/** CPU used by a process, in µs (user and system time). */
function processUs(pid: number): number {
  const s = stat(String(pid));
  return s ? ticksUs(s.fields, 11, 2) : 0;
}

/**
 * CPU used by PostgreSQL's processes, in µs: each one's own time and the time of the children
 * it has waited for, so that a backend that ended during the run still counts (in its postmaster).
 */
function postgresUs(): number {
  let total = 0;
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const s = stat(entry);
    if (s?.name === "postgres") total += ticksUs(s.fields, 11, 4);
  }
  return total;
}

/** A meter started when a measured run starts and read when it ends. */
export class CpuMeter {
  private readonly service: number;
  private readonly postgres: number;
  private readonly load: NodeJS.CpuUsage;

  /** `servicePid`: the service's process (none for a loop of the driver alone); `postgres`: whether to count PostgreSQL's. */
  constructor(private readonly servicePid: number | undefined, private readonly counted: { readonly postgres: boolean }) {
    this.service = servicePid === undefined ? 0 : processUs(servicePid);
    this.postgres = counted.postgres ? postgresUs() : 0;
    this.load = process.cpuUsage();
  }

  /** CPU per request over the run, for `requests` answered in it. */
  perRequest(requests: number): CpuPerRequest {
    const load = process.cpuUsage(this.load);
    const per = (us: number): number => us / Math.max(1, requests);
    return {
      service: per(this.servicePid === undefined ? 0 : processUs(this.servicePid) - this.service),
      postgres: per(this.counted.postgres ? postgresUs() - this.postgres : 0),
      load: per(load.user + load.system),
    };
  }
}

/** The most requests per second `cores` could answer at `cpu` per request, with nothing waiting. */
export function cpuBoundRps(cpu: CpuPerRequest, cores = os.availableParallelism()): number {
  return cores * 1_000_000 / (cpu.service + cpu.postgres + cpu.load);
}

/** "service 900 µs, PostgreSQL 1,600 µs, load 40 µs per add". */
export function describeCpu(cpu: CpuPerRequest, per: string): string {
  const us = (n: number): string => `${Math.round(n).toLocaleString("en")} µs`;
  return [cpu.service > 0 ? `service ${us(cpu.service)}` : undefined, cpu.postgres > 0 ? `PostgreSQL ${us(cpu.postgres)}` : undefined,
    `load ${us(cpu.load)}`].filter((s) => s !== undefined).join(", ") + ` per ${per}`;
}

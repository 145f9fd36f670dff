import fs from "node:fs";
import http from "node:http";
import autocannon from "autocannon";

export interface Load {
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  readonly requests: number;
  readonly failures: number;
}

export interface LoadRequest {
  readonly url: string;
  readonly method: "GET" | "POST";
  readonly token?: string;
  readonly body?: unknown;
  readonly connections: number;
  readonly seconds: number;
  /** Each request's body and token, in place of `body` and `token`, asked for as each request is sent. */
  readonly next?: () => { readonly body: unknown; readonly token: string };
}

/** Drives one endpoint with autocannon and returns throughput and latency (ms); `measuring` is called when the counted run starts. */
export async function load(request: LoadRequest, measuring?: () => void): Promise<Load> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (request.token) headers.authorization = `Bearer ${request.token}`;
  const vary = request.next;
  const options = {
    url: request.url,
    method: request.method,
    headers,
    ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
    ...(vary ? {
      requests: [{
        setupRequest: (sent: autocannon.Request): autocannon.Request => {
          const { body, token } = vary();
          return { ...sent, body: JSON.stringify(body), headers: { ...sent.headers, authorization: `Bearer ${token}` } };
        },
      }],
    } : {}),
    connections: request.connections,
  };
  // A short run first, not counted: statements get prepared and pages cached as in steady use.
  await autocannon({ ...options, duration: 0.5 });
  measuring?.();
  const result = await autocannon({ ...options, duration: request.seconds });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
    failures: result.non2xx + result.errors + result.timeouts,
  };
}

/** A /proc status figure of a process, in MB (VmRSS: now; VmHWM: peak since the last reset). */
export function memoryMb(pid: number, key: "VmRSS" | "VmHWM"): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  const match = new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(status);
  return match ? Number(match[1]) / 1024 : Number.NaN;
}

/** Starts the peak (VmHWM) afresh from the current size, so that a peak is the peak of what follows. */
export function resetPeak(pid: number): void {
  fs.writeFileSync(`/proc/${pid}/clear_refs`, "5");
}

/** One request at a time over a kept-alive connection: latency to a tenth of a millisecond. */
export async function latency(request: Omit<LoadRequest, "connections">): Promise<Load> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const payload = request.body === undefined ? "" : JSON.stringify(request.body);
  const once = (): Promise<{ ms: number; ok: boolean }> => new Promise((resolve, reject) => {
    const started = performance.now();
    const req = http.request(request.url, {
      agent, method: request.method,
      headers: {
        "content-type": "application/json", "content-length": Buffer.byteLength(payload),
        ...(request.token ? { authorization: `Bearer ${request.token}` } : {}),
      },
    }, (res) => {
      res.resume();
      res.on("end", () => resolve({ ms: performance.now() - started, ok: res.statusCode === 200 }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(payload);
  });
  const run = async (seconds: number): Promise<{ ms: number; ok: boolean }[]> => {
    const results: { ms: number; ok: boolean }[] = [];
    const until = performance.now() + seconds * 1000;
    while (performance.now() < until || results.length < 20) results.push(await once());
    return results;
  };
  await run(0.5);
  const results = await run(request.seconds);
  agent.destroy();
  const sorted = results.map((r) => r.ms).sort((a, b) => a - b);
  const at = (q: number): number => Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! * 10) / 10;
  return {
    rps: results.length / request.seconds, p50: at(0.5), p99: at(0.99), requests: results.length,
    failures: results.filter((r) => !r.ok).length,
  };
}

export interface Download {
  readonly bytes: number;
  readonly seconds: number;
  readonly firstByteSeconds: number;
  readonly status: number;
}

/** One streamed request (a GET with a JSON body), reading and discarding the answer. */
export function download(url: string, token: string, body: unknown): Promise<Download> {
  const payload = JSON.stringify(body);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.request(url, {
      method: "GET",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "content-length": Buffer.byteLength(payload) },
    }, (res) => {
      let bytes = 0;
      let first = 0;
      res.on("data", (chunk: Buffer) => {
        if (first === 0) first = performance.now();
        bytes += chunk.length;
      });
      res.on("end", () => resolve({
        bytes, seconds: (performance.now() - started) / 1000, firstByteSeconds: (first - started) / 1000, status: res.statusCode ?? 0,
      }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(payload);
  });
}

/** CPU time (user + system) a process has used so far, in ms, from /proc. */
export function cpuMs(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 1000 / 100;
}

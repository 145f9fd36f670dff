import type { FuzzRequest } from "./request.js";
import type { Answer } from "./send.js";
import { statusLabel } from "./verdict.js";

export interface Example {
  readonly index: number;
  readonly request: string;
  readonly answer: string;
}

export interface FailureGroup {
  readonly category: string;
  readonly route: string;
  readonly why: string;
  count: number;
  readonly example: Example;
}

/** Counts of a run: per status, per route and status, and failures grouped with one example each. */
export class Tally {
  readonly byStatus = new Map<string, number>();
  readonly byRoute = new Map<string, Map<string, number>>();
  readonly failures = new Map<string, FailureGroup>();
  /** The distinct texts of 413 answers (the issue asks for one text on every endpoint). */
  readonly tooLargeTexts = new Map<string, number>();
  sent = 0;
  failed = 0;

  /** Counts a request's answer; `afterwards` adds a problem found later to a request already counted. */
  record(index: number, request: FuzzRequest, answer: Answer, problems: readonly string[], afterwards = false): void {
    if (!afterwards) this.count(request, answer);
    if (problems.length === 0) return;
    this.failed += 1;
    this.group(index, request, answer, problems);
  }

  private count(request: FuzzRequest, answer: Answer): void {
    this.sent += 1;
    const status = statusLabel(answer);
    bump(this.byStatus, status);
    const perRoute = this.byRoute.get(request.route) ?? new Map<string, number>();
    bump(perRoute, status);
    this.byRoute.set(request.route, perRoute);
    if (answer.status === 413) bump(this.tooLargeTexts, answer.body.toString("utf8").slice(0, 120));
  }

  private group(index: number, request: FuzzRequest, answer: Answer, problems: readonly string[]): void {
    for (const why of problems) {
      // Group by what went wrong, not by the exact text (statuses and sizes vary within a kind).
      const kind = why.replace(/\d+(\.\d+)? s\b/g, "N s").replace(/keys \[.*\]$/, "keys …");
      const key = `${request.category}\u0000${request.route}\u0000${kind}`;
      const group = this.failures.get(key);
      if (group) group.count += 1;
      else this.failures.set(key, { category: request.category, route: request.route, why: kind, count: 1, example: { index, request: describe(request), answer: describeAnswer(answer) } });
    }
  }

  /** The report printed after a run. */
  lines(title: string): string[] {
    const out = [`${title}: ${this.sent} requests, ${this.failed} failed`];
    out.push(`  by status: ${[...this.byStatus].sort().map(([s, n]) => `${s}=${n}`).join("  ")}`);
    out.push("  by route:");
    for (const [route, statuses] of [...this.byRoute].sort(([a], [b]) => a.localeCompare(b))) {
      const total = [...statuses.values()].reduce((a, b) => a + b, 0);
      out.push(`    ${route.padEnd(58)} ${String(total).padStart(6)}  ${[...statuses].sort().map(([s, n]) => `${s}=${n}`).join(" ")}`);
    }
    if (this.tooLargeTexts.size > 0) {
      out.push(`  413 texts: ${[...this.tooLargeTexts].map(([text, n]) => `${text} ×${n}`).join("  |  ")}`);
    }
    if (this.failures.size > 0) {
      out.push("  failures (category | route | what | count), one example each:");
      for (const group of [...this.failures.values()].sort((a, b) => a.category.localeCompare(b.category))) {
        out.push(`    ${group.category} | ${group.route} | ${group.why} | ${group.count}`);
        out.push(`      request #${group.example.index}: ${group.example.request}`);
        out.push(`      answer: ${group.example.answer}`);
      }
    }
    return out;
  }
}

function bump(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

/** A request in one line: method, path, transport, headers but the token, and the start of the body. */
export function describe(request: FuzzRequest): string {
  const path = request.path.length > 160 ? `${request.path.slice(0, 160)}… (${request.path.length} chars)` : request.path;
  const headers = Object.entries(request.headers).filter(([n]) => n !== "authorization").map(([n, v]) => `${n}: ${v.slice(0, 80)}`);
  const auth = request.headers.authorization === undefined ? "no Authorization" : `Authorization: ${request.headers.authorization.slice(0, 12)}…`;
  const body = request.body === undefined ? "no body"
    : `body (${request.body.length} bytes) ${JSON.stringify(request.body.subarray(0, 300).toString("utf8"))}${request.body.length > 300 ? "…" : ""}`;
  const transport = request.transport.kind === "http" ? "" : ` [${JSON.stringify(request.transport)}]`;
  return `${request.method} ${path}${transport}; ${auth}; ${headers.join("; ")}; ${body}`;
}

function describeAnswer(answer: Answer): string {
  if (answer.status === 0) return answer.wireFailure ?? "none";
  const text = answer.body.subarray(0, 300).toString("utf8");
  return `${answer.status} ${answer.headers["content-type"] ?? "(no content-type)"} ${JSON.stringify(text)} after ${Math.round(answer.ms)} ms`;
}

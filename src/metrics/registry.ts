import client from "prom-client";
import type { Telemetry } from "../domain/context.js";

/**
 * The process's metrics, in prom-client's global registry: one set per process, which is
 * what a Prometheus target is, and what prom-client's cluster aggregation reads in each
 * worker (cluster-metrics.ts). Labels are only route patterns, methods, statuses and
 * store operation names — never a URL, a value or a token — so their number is bounded.
 */
const register = client.register;

client.collectDefaultMetrics({ register });

// From a health probe (~1 ms) to a large report (tens of seconds).
const LATENCY_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export const httpRequests = new client.Counter({
  name: "bloc_http_requests_total",
  help: "HTTP requests answered, by method, route pattern and status",
  labelNames: ["method", "route", "status"] as const,
  registers: [register],
});

export const httpDuration = new client.Histogram({
  name: "bloc_http_request_duration_seconds",
  help: "Time from a request's arrival to its answer's last byte, by method, route pattern and status",
  labelNames: ["method", "route", "status"] as const,
  buckets: LATENCY_BUCKETS,
  registers: [register],
});

const recordsAdded = new client.Counter({
  name: "bloc_records_added_total",
  help: "Records added through add-data (a repeated Idempotency-Key adds none)",
  registers: [register],
});

const recordsUpdated = new client.Counter({
  name: "bloc_records_updated_total",
  help: "Records changed by update-records-by-matching-values",
  registers: [register],
});

const reportRows = new client.Counter({
  name: "bloc_report_rows_total",
  help: "Rows handed to get-data-report's writers (JSON or .xlsx)",
  registers: [register],
});

export const storeDuration = new client.Histogram({
  name: "bloc_store_operation_duration_seconds",
  help: "Time the store took per call, by operation (a transaction includes the work done inside it)",
  labelNames: ["operation"] as const,
  buckets: LATENCY_BUCKETS,
  registers: [register],
});

const webhookAttempts = new client.Counter({
  name: "bloc_webhook_attempts_total",
  help: "Webhook delivery attempts, by outcome (delivered, failed, gave-up, resent, resend-failed)",
  labelNames: ["outcome"] as const,
  registers: [register],
});

const eventStreams = new client.Gauge({
  name: "bloc_event_streams",
  help: "Live event streams (GET /api/events) this process holds open",
  registers: [register],
});

/** What the domain reports, counted here. */
export const telemetry: Telemetry = {
  recordsAdded: (n) => recordsAdded.inc(n),
  recordsUpdated: (n) => { if (n > 0) recordsUpdated.inc(n); },
  reportRows: (n) => reportRows.inc(n),
  webhookAttempt: (outcome) => webhookAttempts.inc({ outcome }),
  eventStreams: (delta) => eventStreams.inc(delta),
};

/** This process's metrics in the Prometheus text format. */
export function processMetrics(): Promise<string> {
  return register.metrics();
}

export const METRICS_CONTENT_TYPE = register.contentType;

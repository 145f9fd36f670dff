import path from "node:path";

// This module imports nothing of the service: the domain takes the bounds and defaults
// below from it, never the reverse.

/**
 * The longest bearer secret looked up. Issued secrets are 47 characters and
 * BLOC_ADMIN_TOKEN is held to this bound, so a longer one names no token: it is
 * refused without hashing it or asking the store (domain/tokens.ts).
 */
export const MAX_SECRET_LENGTH = 256;

/**
 * A counter scope with more records than this keeps counters of its values; a smaller one
 * is counted from its records when read (at most this many; domain/counting/keys.ts).
 * Measured in docs/performance.md: at 1,000,000 records of the benchmark's shape, 2,000
 * keeps about six value rows per record and reads any piece it does not count in a few
 * milliseconds. BLOC_COUNTED_ABOVE changes it (tests count small blocs' values that way);
 * a database keeps what it counted under another setting: the setting decides only when a
 * scope starts counting.
 */
export const COUNTED_ABOVE = 2000;

export type IdStyle = "uuid" | "numeric";

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly databaseUrl: string;
  readonly adminToken: string | undefined;
  readonly idStyle: IdStyle;
  readonly timezone: string;
  readonly debug: boolean;
  readonly logLevel: string;
  /** Where uploaded files are kept. */
  readonly filesDir: string;
  /** Largest accepted upload, per file. */
  readonly maxFileBytes: number;
  /** get-data's fieldCounts lists at most this many values per field, the most frequent; 0 lists all. */
  readonly fieldCountsLimit: number;
  /** Records above which a counter scope also counts its values (domain/counting/keys.ts). */
  readonly countedAbove: number;
  /** Server processes `npm start` runs on one port; 1 runs no cluster. */
  readonly workers: number;
  /** Connections in each process's PostgreSQL pool (unused by SQLite). */
  readonly pgPool: number;
  /** How long a request's statement or transaction may wait for PostgreSQL before it is answered 503 (unused by SQLite). */
  readonly storeTimeoutMs: number;
  /** On SIGTERM, how long requests in flight may take to finish before their connections are cut. */
  readonly shutdownTimeoutMs: number;
  /** Requests per second each token may make; 0 means no limit. */
  readonly rateLimit: number;
  /** How long add-data remembers an Idempotency-Key. */
  readonly idempotencySeconds: number;
  /** Largest request body (JSON, or the text parts of a multipart upload together); 413 above it. */
  readonly maxBodyBytes: number;
  /** Largest single record value, in UTF-8 bytes (add-data, update and search values). */
  readonly maxValueBytes: number;
  /** Most field values one add-data or update may name. */
  readonly maxFieldsPerRecord: number;
  /** Largest get-data `resultLimit`. */
  readonly maxResultLimit: number;
  /** Largest report page (`dataFilteringData.resultLimit`). */
  readonly maxReportPage: number;
  /** Most parts (text and file) of one multipart upload. */
  readonly maxParts: number;
  /** Time a request's JSON body has to arrive, after its headers. */
  readonly requestTimeoutMs: number;
  /** Time a multipart upload has to arrive, after its headers. */
  readonly uploadTimeoutMs: number;
  /** Time a request's headers have to arrive. */
  readonly headersTimeoutMs: number;
  /** How long a kept-alive connection may sit idle between requests. */
  readonly idleTimeoutMs: number;
  /** Origins (scheme://host[:port]) a browser may call the API from; none when empty (no CORS). */
  readonly corsOrigins: readonly string[];
  /** When set, GET /metrics needs `Authorization: Bearer <it>`. */
  readonly metricsToken: string | undefined;
  /** How often each process looks for events written by other processes, for its live streams and webhooks. */
  readonly eventsPollMs: number;
  /** How long events are kept once every webhook lane of their bloc is past them (live streams resume within it). */
  readonly eventsKeepHours: number;
  /** Live event streams one process holds open at most; more are refused with 503. */
  readonly eventStreamsMax: number;
  /** Live event streams one user holds open in one process at most; more are refused with 429. */
  readonly eventStreamsPerUser: number;
  /** Whether this process delivers webhook events (any process on the store may; each event goes out from one). */
  readonly webhookDelivery: boolean;
  /** The longest one webhook delivery attempt may take. */
  readonly webhookTimeoutMs: number;
  /** The wait after an event's first failed delivery; it doubles with each failure, up to an hour. */
  readonly webhookRetryMs: number;
  /** How long an event is retried before it is given up on. */
  readonly webhookRetryForMs: number;
  /** Whether a failed delivery's log quotes the receiver's answer (else only its status and size). */
  readonly webhookQuoteReplies: boolean;
  /** How long a token issued by password sign-in (POST /api/authenticate) lasts. */
  readonly sessionHours: number;
}

/** A bad environment value; start-up prints its message as one line and stops. */
export class ConfigError extends Error {}

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];
// Short admin tokens are guessable; the generated ones are 43 characters.
const MIN_ADMIN_TOKEN_LENGTH = 20;
// More processes than this only contend for the database's write lock.
const MAX_WORKERS = 64;

type Env = Readonly<Record<string, string | undefined>>;

function port(env: Env): number {
  const raw = env.PORT ?? "8080";
  if (!/^\d{1,5}$/.test(raw) || Number(raw) > 65535) {
    throw new ConfigError(`PORT must be a whole number from 0 to 65535, got "${raw}"`);
  }
  return Number(raw);
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = env[name] ?? fallback;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(`${name} must be one of ${allowed.join(", ")}, got "${raw}"`);
  }
  return raw as T;
}

function timezone(env: Env): string {
  const raw = env.BLOC_TIMEZONE ?? "UTC";
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: raw });
  } catch {
    throw new ConfigError(`BLOC_TIMEZONE must be an IANA time zone such as Europe/Dublin, got "${raw}"`);
  }
  return raw;
}

/** Whether a DATABASE_URL names a PostgreSQL database. */
export function isPostgresUrl(url: string): boolean {
  return /^postgres(?:ql)?:\/\/./.test(url);
}

function databaseUrl(env: Env): string {
  const raw = env.DATABASE_URL ?? "sqlite:./data/bloc.db";
  const sqlite = raw.startsWith("sqlite:") && raw.length > "sqlite:".length;
  if (!sqlite && !isPostgresUrl(raw)) {
    throw new ConfigError(`DATABASE_URL must look like sqlite:./data/bloc.db or postgres://user@host:5432/db, got "${raw}"`);
  }
  return raw;
}

function adminToken(env: Env): string | undefined {
  const raw = env.BLOC_ADMIN_TOKEN;
  if (raw === undefined || raw === "") return undefined;
  if (raw.length < MIN_ADMIN_TOKEN_LENGTH || raw.length > MAX_SECRET_LENGTH || /\s/.test(raw)) {
    throw new ConfigError(
      `BLOC_ADMIN_TOKEN must be ${MIN_ADMIN_TOKEN_LENGTH} to ${MAX_SECRET_LENGTH} characters without spaces`,
    );
  }
  return raw;
}

function byteCount(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  if (!/^\d{1,15}$/.test(raw) || Number(raw) < 1) throw new ConfigError(`${name} must be a whole number of bytes, got "${raw}"`);
  return Number(raw);
}

function wholeNumber(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  if (!/^\d{1,9}$/.test(raw)) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  return Number(raw);
}

function workers(env: Env): number {
  const raw = env.WORKERS;
  if (raw === undefined || raw === "") return 1;
  if (!/^\d{1,2}$/.test(raw) || Number(raw) < 1 || Number(raw) > MAX_WORKERS) {
    throw new ConfigError(`WORKERS must be a whole number from 1 to ${MAX_WORKERS}, got "${raw}"`);
  }
  return Number(raw);
}

function atLeastOne(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  if (!/^\d{1,9}$/.test(raw) || Number(raw) < 1) throw new ConfigError(`${name} must be a whole number of at least 1, got "${raw}"`);
  return Number(raw);
}

function flag(env: Env, name: string): boolean {
  const raw = env[name] ?? "0";
  if (raw !== "0" && raw !== "1") throw new ConfigError(`${name} must be 0 or 1, got "${raw}"`);
  return raw === "1";
}

/** A 0/1 flag that is on unless set to 0. */
function flagOff(env: Env, name: string): boolean {
  const raw = env[name] ?? "1";
  if (raw !== "0" && raw !== "1") throw new ConfigError(`${name} must be 0 or 1, got "${raw}"`);
  return raw === "0";
}

function corsOrigins(env: Env): readonly string[] {
  const raw = env.BLOC_CORS_ORIGINS ?? "";
  const origins = raw.split(",").map((o) => o.trim()).filter((o) => o !== "");
  for (const origin of origins) {
    let parsed: URL | undefined;
    try { parsed = new URL(origin); } catch { /* refused below */ }
    // An origin is exactly what a browser sends in its Origin header: no path, no trailing slash.
    if (!parsed || !/^https?:$/.test(parsed.protocol) || parsed.origin !== origin) {
      throw new ConfigError(`BLOC_CORS_ORIGINS must list origins such as https://app.example.com, comma-separated, got "${origin}"`);
    }
  }
  return Object.freeze([...new Set(origins)]);
}

function metricsToken(env: Env): string | undefined {
  const raw = env.BLOC_METRICS_TOKEN;
  if (raw === undefined || raw === "") return undefined;
  if (raw.length < MIN_ADMIN_TOKEN_LENGTH || raw.length > MAX_SECRET_LENGTH || /\s/.test(raw)) {
    throw new ConfigError(
      `BLOC_METRICS_TOKEN must be ${MIN_ADMIN_TOKEN_LENGTH} to ${MAX_SECRET_LENGTH} characters without spaces`,
    );
  }
  return raw;
}

/** Reads the environment once; everything else receives the frozen result. */
export function readConfig(env: Env = process.env): Config {
  const requestTimeoutMs = atLeastOne(env, "BLOC_REQUEST_TIMEOUT_MS", 30_000);
  return Object.freeze({
    port: port(env),
    host: env.HOST ?? "127.0.0.1",
    databaseUrl: databaseUrl(env),
    adminToken: adminToken(env),
    idStyle: oneOf(env, "BLOC_ID_STYLE", ["uuid", "numeric"] as const, "uuid"),
    timezone: timezone(env),
    debug: flag(env, "BLOC_DEBUG"),
    logLevel: oneOf(env, "BLOC_LOG_LEVEL", LOG_LEVELS, "info"),
    filesDir: path.resolve(env.BLOC_FILES_DIR || "./data/files"),
    maxFileBytes: byteCount(env, "BLOC_MAX_FILE_BYTES", 25 * 1024 * 1024),
    fieldCountsLimit: wholeNumber(env, "BLOC_FIELD_COUNTS_LIMIT", 1000),
    countedAbove: atLeastOne(env, "BLOC_COUNTED_ABOVE", COUNTED_ABOVE),
    workers: workers(env),
    pgPool: atLeastOne(env, "BLOC_PG_POOL", 10),
    storeTimeoutMs: atLeastOne(env, "BLOC_STORE_TIMEOUT_MS", 5_000),
    shutdownTimeoutMs: wholeNumber(env, "BLOC_SHUTDOWN_TIMEOUT_MS", 25_000),
    rateLimit: wholeNumber(env, "BLOC_RATE_LIMIT", 0),
    idempotencySeconds: atLeastOne(env, "BLOC_IDEMPOTENCY_SECONDS", 24 * 60 * 60),
    maxBodyBytes: byteCount(env, "BLOC_MAX_BODY_BYTES", 1024 * 1024),
    maxValueBytes: byteCount(env, "BLOC_MAX_VALUE_BYTES", 64 * 1024),
    maxFieldsPerRecord: atLeastOne(env, "BLOC_MAX_FIELDS_PER_RECORD", 500),
    maxResultLimit: atLeastOne(env, "BLOC_MAX_RESULT_LIMIT", 1000),
    maxReportPage: atLeastOne(env, "BLOC_MAX_REPORT_PAGE", 10_000),
    maxParts: atLeastOne(env, "BLOC_MAX_PARTS", 50),
    requestTimeoutMs,
    uploadTimeoutMs: atLeastOne(env, "BLOC_UPLOAD_TIMEOUT_MS", 600_000),
    headersTimeoutMs: atLeastOne(env, "BLOC_HEADERS_TIMEOUT_MS", Math.min(10_000, requestTimeoutMs)),
    idleTimeoutMs: atLeastOne(env, "BLOC_IDLE_TIMEOUT_MS", 72_000),
    corsOrigins: corsOrigins(env),
    metricsToken: metricsToken(env),
    eventsPollMs: atLeastOne(env, "BLOC_EVENTS_POLL_MS", 250),
    eventsKeepHours: atLeastOne(env, "BLOC_EVENTS_KEEP_HOURS", 72),
    sessionHours: atLeastOne(env, "BLOC_SESSION_HOURS", 12),
    eventStreamsMax: atLeastOne(env, "BLOC_EVENT_STREAMS_MAX", 1000),
    eventStreamsPerUser: atLeastOne(env, "BLOC_EVENT_STREAMS_PER_USER", 4),
    webhookDelivery: !flagOff(env, "BLOC_WEBHOOK_DELIVERY"),
    webhookTimeoutMs: atLeastOne(env, "BLOC_WEBHOOK_TIMEOUT_MS", 10_000),
    webhookRetryMs: atLeastOne(env, "BLOC_WEBHOOK_RETRY_MS", 1_000),
    webhookRetryForMs: atLeastOne(env, "BLOC_WEBHOOK_RETRY_FOR_MS", 24 * 60 * 60 * 1000),
    webhookQuoteReplies: flag(env, "BLOC_WEBHOOK_QUOTE_REPLIES"),
  });
}

/** The file path a sqlite: URL names, resolved against the working directory. */
export function sqlitePath(url: string): string {
  const rest = url.slice("sqlite:".length);
  return rest === ":memory:" ? rest : path.resolve(rest);
}

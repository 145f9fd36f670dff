import type { Prng } from "../fuzz/prng.js";

/**
 * The soak's requests: what a site's scanners, dashboards and office staff send, as the
 * spec describes them. Each station has its bloc; scanners add records and correct them
 * by serial; dashboards page through a station's recent records with windows; the office
 * pulls reports, JSON and .xlsx, filtered by line and bounded by time.
 */

export type Endpoint = "add-data" | "get-data" | "get-data-report json" | "get-data-report xlsx" | "update-records";

export interface SoakRequest {
  readonly endpoint: Endpoint;
  readonly method: "GET" | "POST";
  readonly path: string;
  readonly body: unknown;
}

export const LINES = ["Line 1", "Line 2", "Line 3", "Line 4"];
const SHIFTS = ["early", "late", "night"];

/** The soak bloc: the field kinds a real form holds (the first is required, the serial unique, the docket counted). */
export const SOAK_FIELDS = [
  { name: "Part", required: true },
  { name: "Quantity", type: "number" },
  { name: "Line", type: "select", options: LINES, indexed: true },
  { name: "Shift" },
  { name: "Serial", unique: true },
  { name: "Docket", type: "autogenerate", format: "DKT-{YYYY}{MM}-{seq:6}" },
  { name: "Delivered", type: "date" },
];

/** `YYYY-MM-DD HH:MM:SS` in UTC (the server's BLOC_TIMEZONE default), `minutesAgo` before now. */
export function stampAgo(minutesAgo: number): string {
  return new Date(Date.now() - minutesAgo * 60_000).toISOString().slice(0, 19).replace("T", " ");
}

/** A record's serial and the bloc it went to. */
export interface Scan {
  readonly blocId: string;
  readonly serial: string;
}

/** Serials handed out so far, so that updates can find records by their serial. */
export class Serials {
  private readonly issued: Scan[] = [];
  private next = 0;

  constructor(private readonly prefix: string) {}

  fresh(): string {
    const serial = `${this.prefix}-${String(this.next).padStart(7, "0")}`;
    this.next += 1;
    return serial;
  }

  /** Marks a serial as stored (its add answered 200). */
  stored(scan: Scan): void {
    this.issued.push(scan);
  }

  /** A stored scan, recent ones more often (corrections follow scans). */
  pick(rng: Prng): Scan | undefined {
    if (this.issued.length === 0) return undefined;
    const recent = rng.chance(0.8);
    const span = recent ? Math.min(500, this.issued.length) : this.issued.length;
    return this.issued[this.issued.length - 1 - rng.below(span)];
  }
}

export function addRequest(rng: Prng, blocId: string, moduleId: string, serial: string): SoakRequest {
  const values = {
    field_1: `P-${rng.between(100, 999)}`,
    field_2: String(rng.between(1, 50)),
    field_3: rng.pick(LINES),
    field_4: rng.pick(SHIFTS),
    field_5: serial,
    field_7: stampAgo(rng.between(0, 60 * 24 * 3)).slice(0, 10),
  };
  return {
    endpoint: "add-data", method: "POST", path: "/api/add-data",
    body: { scanStationID: blocId, jobID: moduleId, dataToAdd: JSON.stringify(values) },
  };
}

export function getDataRequest(rng: Prng, blocId: string): SoakRequest {
  const body: Record<string, unknown> = {
    blocId, resultLimit: rng.pick([10, 10, 25, 50, 100]), currentPage: rng.pick([1, 1, 1, 2, 3, 5, 10, 20]), reverse: rng.chance(0.2),
  };
  // A window makes fieldCounts count the window's records one by one (docs/performance.md): a dashboard's
  // "last hour" or "today" view, not every read.
  const view = rng.float();
  if (view < 0.3) {
    body.fromDate = stampAgo(rng.between(5, 120));
    if (rng.chance(0.5)) body.toDate = stampAgo(0);
  } else if (view < 0.4) {
    body.fromDate = stampAgo(0).slice(0, 10);
    body.toDate = stampAgo(0).slice(0, 10);
  }
  return { endpoint: "get-data", method: "GET", path: "/api/get-data", body };
}

export function reportRequest(rng: Prng, blocId: string, xlsx: boolean): SoakRequest {
  const filtering: Record<string, unknown> = {
    stationID: blocId,
    filterDataToQuery: { field_3: rng.chance(0.7) ? [rng.pick(LINES)] : [] },
    currentPage: rng.pick([1, 1, 2]),
    resultLimit: xlsx ? rng.pick([50, 100]) : rng.pick([50, 100, 200]),
    reverse: rng.chance(0.5),
  };
  const body: Record<string, unknown> = {
    stationID: blocId,
    fieldsToReport: rng.chance(0.5) ? "all" : JSON.stringify({ field_1: true, field_3: true, field_5: true, field_6: true, created_at: true }),
    requestedReportData: JSON.stringify({ reportFromDate: stampAgo(rng.between(10, 240)), reportToDate: stampAgo(0) }),
    dataFilteringData: JSON.stringify(filtering),
  };
  if (xlsx) body.responseType = "blob";
  return { endpoint: xlsx ? "get-data-report xlsx" : "get-data-report json", method: "GET", path: "/api/get-data-report", body };
}

export function updateRequest(rng: Prng, scan: Scan): SoakRequest {
  return {
    endpoint: "update-records", method: "POST", path: "/api/update-records-by-matching-values",
    body: { blocId: scan.blocId, fieldsToUpdate: { field_4: rng.pick(SHIFTS), field_2: String(rng.between(1, 50)) }, searchItems: { field_5: scan.serial } },
  };
}

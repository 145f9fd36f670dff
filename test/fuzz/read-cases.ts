import type { Prng } from "./prng.js";
import { bearer, newDraft, queryValue, type Draft } from "./request.js";
import type { World } from "./world.js";
import { JsonString, objectOf, RawJson } from "./json-text.js";
import {
  absent, BAD_DATES, deepValue, hugeId, unknownBlocId, unknownSlug, unstorableScalar, unstorableValue, wrongTypeId, type Case,
} from "./case-kit.js";

/** Integers out of range or not integers at all; none reads as absent (blank and null would). */
const BAD_LIMITS: readonly unknown[] = [0, -1, 1001, 1e9, 1.5, "abc", "1e3", "10.0", "0x10", "\u0661", true, false, {}, [], [10],
  new RawJson("1e400"), new RawJson("1e308"), new RawJson("-0"), new RawJson("0.5"), "10 10", "-5"];
const BAD_PAGES: readonly unknown[] = [0, -1, 1_000_000_001, 1.5, "x", true, {}, [], [1], "1.0", new RawJson("1e400"), "-1", "+1"];
const BAD_FLAGS: readonly unknown[] = ["yes", "TRUE", "True", 2, -1, "no", {}, [], [true], "t", 1.5, "true ", "00"];
/** Dates refused as bounds: impossible ones and values of other types. */
const BAD_BOUNDS: readonly unknown[] = [...BAD_DATES.filter((d) => d !== "2026-01-05 10:00:00"), 20260105, true, {}, [], ["2026-01-05"]];

/** The read endpoints take GET (the spec's form) or POST. */
function readMethod(rng: Prng): string {
  return rng.chance(0.75) ? "GET" : "POST";
}

function readDraft(endpoint: "get-data" | "get-data-report", name: string, rng: Prng, token: string, params: Record<string, unknown>,
  protect: readonly string[], tolerant: Record<string, unknown>[] = []): Draft {
  const method = readMethod(rng);
  return newDraft({
    route: `${method} /api/${endpoint}`, shape: endpoint, category: `${endpoint}/${name}`, method, path: `/api/${endpoint}`,
    authorization: bearer(token), params, extraKeysIgnored: true, protectedKeys: new Set(protect), tolerantObjects: tolerant,
    queryAllowed: true,
  });
}

/**
 * Moves the broken parameter to the query string when it can travel there (a string),
 * since the read endpoints take parameters from both; the body no longer holds it.
 */
function maybeInQuery(rng: Prng, draft: Draft, key: string): Draft {
  const value = draft.params?.[key];
  // Long values stay in the body: a URL over the header limit is a case of its own (envelope/huge-url).
  if (draft.params && typeof value === "string" && value.length <= 4000 && rng.chance(0.25)) {
    delete draft.params[key];
    draft.query.push([key, queryValue(value)]);
  }
  return draft;
}

function readerToken(rng: Prng, world: World): string {
  const t = world.tokens;
  return rng.pick([t.admin, t.writer, t.reader, t.writerReadOnly]);
}

// ---- get-data

export function validGetData(rng: Prng, world: World): Record<string, unknown> {
  const params: Record<string, unknown> = { blocId: world.main.id };
  if (rng.chance(0.6)) params.resultLimit = rng.pick<unknown>([1, 10, 1000, "25", 5]);
  if (rng.chance(0.5)) params.currentPage = rng.pick<unknown>([1, 2, "3", 1_000_000]);
  if (rng.chance(0.4)) params.reverse = rng.pick<unknown>([true, false, "true", "false", 1, 0]);
  if (rng.chance(0.4)) params.fromDate = rng.pick(["2026-01-01", "2026-01-03 00:00:00"]);
  if (rng.chance(0.4)) params.toDate = rng.pick(["2026-12-31", "2026-06-30 23:59:59"]);
  return params;
}

function getDataCase(name: string, weight: number, key: string, bad: (rng: Prng, world: World) => unknown): Case {
  return {
    name, weight,
    build(rng, world) {
      const params = validGetData(rng, world);
      params[key] = bad(rng, world);
      return maybeInQuery(rng, readDraft("get-data", name, rng, readerToken(rng, world), params, [key]), key);
    },
  };
}

export const GET_DATA_CASES: readonly Case[] = [
  {
    name: "blocId-missing", weight: 2,
    build(rng, world) { const p = validGetData(rng, world); absent(rng, p, "blocId"); return readDraft("get-data", this.name, rng, readerToken(rng, world), p, ["blocId"]); },
  },
  getDataCase("blocId-wrong-type", 2, "blocId", (rng) => wrongTypeId(rng)),
  getDataCase("blocId-unknown", 3, "blocId", (rng, w) => unknownBlocId(rng, w)),
  getDataCase("blocId-huge", 0.5, "blocId", (rng) => hugeId(rng)),
  getDataCase("resultLimit-invalid", 3, "resultLimit", (rng) => rng.pick(BAD_LIMITS)),
  getDataCase("currentPage-invalid", 3, "currentPage", (rng) => rng.pick(BAD_PAGES)),
  getDataCase("reverse-invalid", 2, "reverse", (rng) => rng.pick(BAD_FLAGS)),
  getDataCase("fromDate-invalid", 2, "fromDate", (rng) => rng.pick(BAD_BOUNDS)),
  getDataCase("toDate-invalid", 2, "toDate", (rng) => rng.pick(BAD_BOUNDS)),
  {
    name: "dates-inverted", weight: 1,
    build(rng, world) {
      const p = validGetData(rng, world);
      // Every from here starts after every to ends (a date-only toDate ends at 23:59:59).
      p.fromDate = rng.pick(["2026-03-02", "2026-03-02 00:00:01"]);
      p.toDate = rng.pick(["2026-03-01", "2026-03-01 23:59:59", "2026-02-28"]);
      return readDraft("get-data", this.name, rng, readerToken(rng, world), p, ["fromDate", "toDate"]);
    },
  },
  {
    name: "denied", weight: 2,
    build(rng, world) {
      const p = validGetData(rng, world);
      const t = world.tokens;
      const [token, blocId] = rng.pick([[t.outsider, world.main.id], [t.reader, world.closedBlocId], [t.writerReadOnly, world.limitedBlocId]] as const);
      p.blocId = blocId;
      return readDraft("get-data", this.name, rng, token, p, ["blocId"]);
    },
  },
  {
    name: "nested-deep", weight: 1,
    build(rng, world) {
      const p = validGetData(rng, world);
      const key = rng.pick(["resultLimit", "currentPage", "reverse", "fromDate", "toDate", "blocId"]);
      p[key] = deepValue(rng);
      return readDraft("get-data", this.name, rng, readerToken(rng, world), p, [key]);
    },
  },
];

// ---- get-data-report

interface ValidReport {
  readonly params: Record<string, unknown>;
  /** The nested objects that ignore unknown keys. */
  readonly dates: Record<string, unknown>;
  readonly filtering: Record<string, unknown>;
}

export function validReport(rng: Prng, world: World): ValidReport {
  const s = world.main.slugs;
  const params: Record<string, unknown> = { stationID: world.main.id };
  params.fieldsToReport = rng.chance(0.5) ? "all"
    : (rng.chance(0.5) ? (v: object) => new JsonString(v) : (v: object) => v)(objectOf([[s.requiredText, true], [s.select, true],
      ["created_at", rng.chance(0.5)], [s.unique, rng.chance(0.5)]]));
  const responseType = rng.pick([undefined, "json", "blob", "csv"]);
  if (responseType !== undefined) params.responseType = responseType;
  const dates: Record<string, unknown> = {};
  if (rng.chance(0.5)) dates.reportFromDate = "2026-01-01 00:00:00";
  if (rng.chance(0.5)) dates.reportToDate = "2026-12-31 23:59:59";
  params.requestedReportData = rng.chance(0.7) ? new JsonString(dates) : dates;
  const filtering: Record<string, unknown> = {};
  if (rng.chance(0.4)) filtering.stationID = world.main.id;
  if (rng.chance(0.5)) filtering.filterDataToQuery = objectOf([[s.select, rng.pick([["A", "B"], [], ["C"], "A"])]]);
  if (rng.chance(0.4)) {
    filtering.currentPage = rng.pick<unknown>([1, 2, "1"]);
    if (rng.chance(0.5)) filtering.resultLimit = rng.pick<unknown>([1, 50, 10_000]);
  }
  if (rng.chance(0.3)) filtering.reverse = rng.pick<unknown>([true, "false"]);
  params.dataFilteringData = rng.chance(0.7) ? new JsonString(filtering) : filtering;
  return { params, dates, filtering };
}

function reportDraft(name: string, rng: Prng, world: World, v: ValidReport, protect: readonly string[], token = readerToken(rng, world)): Draft {
  const tolerant = [v.dates, v.filtering].filter((o) => !protect.includes("requestedReportData") || o !== v.dates)
    .filter((o) => !protect.includes("dataFilteringData") || o !== v.filtering);
  return readDraft("get-data-report", name, rng, token, v.params, protect, tolerant);
}

function reportCase(name: string, weight: number, key: string, bad: (rng: Prng, world: World) => unknown): Case {
  return {
    name, weight,
    build(rng, world) {
      const v = validReport(rng, world);
      v.params[key] = bad(rng, world);
      return maybeInQuery(rng, reportDraft(name, rng, world, v, [key]), key);
    },
  };
}

/** A case that breaks one key of dataFilteringData (which stays a tolerant object for the other keys). */
function filteringCase(name: string, weight: number, apply: (rng: Prng, world: World, filtering: Record<string, unknown>) => void): Case {
  return {
    name, weight,
    build(rng, world) {
      const v = validReport(rng, world);
      apply(rng, world, v.filtering);
      return reportDraft(name, rng, world, v, ["dataFilteringData"]);
    },
  };
}

export const REPORT_CASES: readonly Case[] = [
  {
    name: "stationID-missing", weight: 2,
    build(rng, world) { const v = validReport(rng, world); absent(rng, v.params, "stationID"); return reportDraft(this.name, rng, world, v, ["stationID"]); },
  },
  reportCase("stationID-wrong-type", 1, "stationID", (rng) => wrongTypeId(rng)),
  reportCase("stationID-unknown", 2, "stationID", (rng, w) => unknownBlocId(rng, w)),
  reportCase("stationID-huge", 0.5, "stationID", (rng) => hugeId(rng)),
  {
    name: "fieldsToReport-missing", weight: 1,
    build(rng, world) { const v = validReport(rng, world); absent(rng, v.params, "fieldsToReport"); return reportDraft(this.name, rng, world, v, ["fieldsToReport"]); },
  },
  reportCase("fieldsToReport-invalid", 3, "fieldsToReport", (rng, w) => rng.pick<unknown>([
    "ALL", "All", "some", " all", "all\u0000", new JsonString({}), {}, new JsonString({ field_1: false }), { field_1: "yes" },
    objectOf([[unknownSlug(rng, w, ["created_at", "user_id", "time_stamp", "date_stamp"]), true]]), new JsonString(["field_1"]),
    "{bad", 5, true, [], ["all"], objectOf([["__proto__", true]]), { field_1: 1 }, { field_1: null },
  ])),
  reportCase("responseType-invalid", 2, "responseType", (rng) => rng.pick<unknown>(["xlsx", "BLOB", "CSV", "tsv", "pdf", "Json", 1, {}, [], true, "blob\u0000"])),
  reportCase("requestedReportData-invalid", 2, "requestedReportData", (rng) => rng.pick<unknown>([
    "{bad", new JsonString([1]), 5, true, [], new JsonString({ reportFromDate: rng.pick(BAD_BOUNDS) }),
    { reportToDate: rng.pick(BAD_BOUNDS) }, new JsonString({ reportFromDate: "2026-05-02", reportToDate: "2026-05-01 23:59:59" }),
  ])),
  reportCase("dataFilteringData-not-object", 1, "dataFilteringData", (rng) => rng.pick<unknown>(["{bad", new JsonString([]), 7, true, [], "[]"])),
  filteringCase("filtering-stationID-differs", 1, (rng, w, f) => {
    f.stationID = rng.pick<unknown>([w.closedBlocId, w.limitedBlocId, unknownBlocId(rng, w), 5, {}, []]);
  }),
  filteringCase("filtering-currentPage-invalid", 2, (rng, _w, f) => { f.currentPage = rng.pick(BAD_PAGES); }),
  filteringCase("filtering-resultLimit-invalid", 2, (rng, _w, f) => {
    f.currentPage = 1;
    f.resultLimit = rng.pick<unknown>([0, -1, 10_001, 1.5, "x", true, {}, [], new RawJson("1e400")]);
  }),
  filteringCase("filtering-reverse-invalid", 1, (rng, _w, f) => { f.reverse = rng.pick(BAD_FLAGS); }),
  filteringCase("filterDataToQuery-invalid", 3, (rng, w, f) => {
    const s = w.main.slugs;
    f.filterDataToQuery = rng.pick<unknown>([
      "[1]", 5, true, [1], "{bad", objectOf([[unknownSlug(rng, w), ["A"]]]), objectOf([[s.select, [unstorableValue(rng)]]]),
      objectOf([[s.select, unstorableScalar(rng)]]), new JsonString(objectOf([[unknownSlug(rng, w), []]])),
    ]);
  }),
  {
    name: "dates-inverted", weight: 1,
    build(rng, world) {
      const v = validReport(rng, world);
      v.params.requestedReportData = new JsonString({ reportFromDate: "2026-04-02 00:00:00", reportToDate: "2026-04-01 23:59:59" });
      return reportDraft(this.name, rng, world, v, ["requestedReportData"]);
    },
  },
  {
    name: "denied", weight: 2,
    build(rng, world) {
      const v = validReport(rng, world);
      const t = world.tokens;
      const [token, blocId] = rng.pick([[t.outsider, world.main.id], [t.reader, world.closedBlocId], [t.writerReadOnly, world.limitedBlocId]] as const);
      v.params.stationID = blocId;
      delete v.filtering.stationID;
      return reportDraft(this.name, rng, world, v, ["stationID"], token);
    },
  },
  {
    name: "nested-deep", weight: 1,
    build(rng, world) {
      const v = validReport(rng, world);
      const where = rng.pick(["currentPage", "resultLimit", "reverse", "reportFromDate", "fieldsToReport", "responseType"]);
      if (where === "reportFromDate") {
        v.dates.reportFromDate = deepValue(rng);
        return reportDraft(this.name, rng, world, v, ["requestedReportData"]);
      }
      if (where === "fieldsToReport" || where === "responseType") {
        v.params[where] = deepValue(rng);
        return reportDraft(this.name, rng, world, v, [where]);
      }
      if (where === "resultLimit") v.filtering.currentPage = 1;
      v.filtering[where] = deepValue(rng);
      return reportDraft(this.name, rng, world, v, ["dataFilteringData"]);
    },
  },
];

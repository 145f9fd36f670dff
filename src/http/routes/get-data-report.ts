import type { FastifyInstance } from "fastify";
import { Type } from "@sinclair/typebox";
import { InvalidInputError, MissingParameterError } from "../../domain/errors.js";
import { visibleFileName } from "../../domain/file-names.js";
import type { Context } from "../../domain/context.js";
import { parseWindow } from "../../domain/dates.js";
import { buildReport, type ReportInput } from "../../domain/report.js";
import { reportCsv, reportJson, reportXlsx } from "../../domain/report-writers.js";
import { currentPrincipal } from "../auth.js";
import { mergeReadParams, readParams } from "../body.js";
import { errorResponses } from "../error-schemas.js";
import { describeValue } from "../../domain/values.js";
import { flag, integer, jsonObject, optionalString, present, requiredId, type Params } from "../params.js";
import { schemaErrorFormatter } from "../schema-errors.js";
import { readRoute } from "./read-route.js";
import { asQueryString, REPORT_PARAMS, ReportAnswer, XLSX_TYPE } from "./record-schemas.js";

const CSV_TYPE = "text/csv; charset=utf-8";

const MAX_PAGE = 1_000_000_000;
const FIELDS_HINT = 'send "all" (in lower case) for every field, or a JSON-encoded object of field slug to true such as {"field_1": true}';

function fieldsToReport(params: Params): ReportInput["fields"] {
  const sent = params.fieldsToReport;
  if (!present(sent)) throw new MissingParameterError("fieldsToReport is required");
  if (sent === "all") return "all";
  if (typeof sent === "string") {
    if (sent.trim().toLowerCase() === "all") throw new InvalidInputError(`fieldsToReport ${describeValue(sent)} is not accepted; ${FIELDS_HINT}`);
    try {
      JSON.parse(sent);
    } catch (error) {
      throw new InvalidInputError(`fieldsToReport is neither "all" nor valid JSON (${(error as Error).message}); ${FIELDS_HINT}`);
    }
  }
  const chosen = jsonObject(params, "fieldsToReport")!;
  const keys = Object.entries(chosen).filter(([key, include]) => {
    if (include !== true && include !== false) {
      throw new InvalidInputError(`fieldsToReport.${key} must be true or false`);
    }
    return include;
  }).map(([key]) => key);
  if (keys.length === 0) throw new InvalidInputError('fieldsToReport selects no field; send "all" or at least one field set to true');
  return keys;
}

/** The schema says the same of an object sent as itself; a JSON-encoded one is checked here, once decoded. */
function valueFilter(filtering: Params): Record<string, readonly unknown[]> {
  const object = jsonObject(filtering, "dataFilteringData.filterDataToQuery");
  if (!object) return {};
  return Object.fromEntries(Object.entries(object).map(([slug, values]) => {
    if (!Array.isArray(values)) {
      const scalar = ["string", "number", "boolean"].includes(typeof values);
      throw new InvalidInputError(`dataFilteringData.filterDataToQuery.${slug} must be an array of accepted values, got ${describeValue(values)}` +
        (scalar ? `; send {"${slug}": [${JSON.stringify(values)}]}` : ""));
    }
    return [slug, values];
  }));
}

/**
 * Characters no file name should hold besides those visibleFileName replaces (controls and
 * format characters): path and shell-reserved characters, lone surrogates and noncharacters.
 * Both forms of the name are cut from the one cleaned name.
 */
const UNSAFE_IN_NAME = /[/\\:*?"<>|\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** `attachment` with an ASCII fallback name and the exact name in RFC 5987 form, both cleaned the same way. */
function contentDisposition(blocName: string, stamp: string, extension = "xlsx"): string {
  const name = visibleFileName(`${blocName}-${stamp.replace(/[-:]/g, "").replace(" ", "-")}.${extension}`).replace(UNSAFE_IN_NAME, "_");
  const ascii = name.replace(/[^A-Za-z0-9 ._-]/g, "_");
  // encodeURIComponent leaves ' ( ) unescaped, which RFC 5987's attr-char does not allow.
  const encoded = encodeURIComponent(name).replace(/['()]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

/** BLOC_MAX_REPORT_PAGE: the largest report page (`dataFilteringData.resultLimit`). */
export function getDataReportRoute(app: FastifyInstance, ctx: Context, maxReportPage: number): void {
  readRoute(app, {
    url: "/api/get-data-report",
    config: { endpoint: "get-data-report" },
    schema: {
      summary: "A bloc's records as a JSON report, an .xlsx or a CSV file",
      description: "Parameters in a JSON body (on GET, as the spec says, or on POST), or in the query string; a body's win over the query string's.",
      tags: ["records"],
      body: Type.Object(REPORT_PARAMS, { additionalProperties: true }),
      querystring: asQueryString(REPORT_PARAMS),
      response: {
        200: {
          description: "The report: JSON rows, or with responseType \"blob\" an .xlsx workbook, with \"csv\" a CSV file (RFC 4180, UTF-8 with BOM; Content-Disposition names either)",
          content: {
            "application/json": { schema: ReportAnswer },
            [XLSX_TYPE]: { schema: Type.String({ contentMediaType: XLSX_TYPE }) },
            "text/csv": { schema: Type.String({ contentMediaType: "text/csv" }) },
          },
        },
        ...errorResponses("get-data-report"),
      },
    },
    schemaErrorFormatter: schemaErrorFormatter(),
    preValidation: mergeReadParams,
    handler: async (request, reply) => {
      const params = readParams(request);
      const blocId = requiredId(params, "stationID");
      const fields = fieldsToReport(params);
      const responseType = optionalString(params, "responseType");
      if (responseType !== null && responseType !== "blob" && responseType !== "csv" && responseType !== "json") {
        throw new InvalidInputError(`responseType must be "blob" (for .xlsx), "csv" or "json", got ${describeValue(responseType)}`);
      }
      const dates = jsonObject(params, "requestedReportData") ?? {};
      const window = parseWindow(
        { from: "requestedReportData.reportFromDate", to: "requestedReportData.reportToDate" },
        dates.reportFromDate, dates.reportToDate,
      );
      // Keys carry their full name so that errors say which nested parameter was wrong.
      const filtering: Params = Object.fromEntries(Object.entries(jsonObject(params, "dataFilteringData") ?? {})
        .map(([key, value]) => [`dataFilteringData.${key}`, value]));
      if (present(filtering["dataFilteringData.stationID"]) &&
        requiredId(filtering, "dataFilteringData.stationID") !== blocId) {
        throw new InvalidInputError("dataFilteringData.stationID differs from stationID");
      }
      // resultLimit is checked even when, without currentPage, it is not used.
      const size = integer(filtering, "dataFilteringData.resultLimit", { min: 1, max: maxReportPage, fallback: Math.min(1000, maxReportPage) });
      const page = present(filtering["dataFilteringData.currentPage"])
        ? { number: integer(filtering, "dataFilteringData.currentPage", { min: 1, max: MAX_PAGE, fallback: 1 }), size }
        : undefined;
      const report = await buildReport(ctx, currentPrincipal(request), {
        blocId, fields, window, page,
        filter: valueFilter(filtering),
        order: flag(filtering, "dataFilteringData.reverse", false) ? "newest" : "oldest",
      });
      if (responseType === "blob") {
        return reply.type(XLSX_TYPE)
          .header("content-disposition", contentDisposition(report.bloc.name, ctx.now()))
          .send(reportXlsx(report, (ref) => `${request.protocol}://${request.host}/api/files/${encodeURIComponent(ref)}`));
      }
      if (responseType === "csv") {
        return reply.type(CSV_TYPE)
          .header("content-disposition", contentDisposition(report.bloc.name, ctx.now(), "csv"))
          .send(reportCsv(report));
      }
      return reply.type("application/json; charset=utf-8").send(reportJson(report));
    },
  });
}

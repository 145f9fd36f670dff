import type { FastifyInstance } from "fastify";
import { Type } from "@sinclair/typebox";
import type { Context } from "../../domain/context.js";
import { parseWindow } from "../../domain/dates.js";
import { readRecords } from "../../domain/records.js";
import { recordView } from "../../domain/record-view.js";
import { currentPrincipal } from "../auth.js";
import { mergeReadParams, readParams } from "../body.js";
import { errorResponses } from "../error-schemas.js";
import { flag, integer, requiredId } from "../params.js";
import { schemaErrorFormatter } from "../schema-errors.js";
import { readRoute } from "./read-route.js";
import { asQueryString, GetDataAnswer, getDataParams } from "./record-schemas.js";

const MAX_PAGE = 1_000_000_000;

/** BLOC_MAX_RESULT_LIMIT: the largest page get-data serves. */
export function getDataRoute(app: FastifyInstance, ctx: Context, maxResultLimit: number): void {
  const params = getDataParams(maxResultLimit);
  readRoute(app, {
    url: "/api/get-data",
    config: { endpoint: "get-data" },
    schema: {
      summary: "Read a page of a bloc's records with counts",
      description: "Parameters in a JSON body (on GET, as the spec says, or on POST), or in the query string; a body's win over the query string's.",
      tags: ["records"],
      body: Type.Object(params, { additionalProperties: true }),
      querystring: asQueryString(params),
      response: { 200: GetDataAnswer, ...errorResponses("get-data") },
    },
    schemaErrorFormatter: schemaErrorFormatter(),
    preValidation: mergeReadParams,
    handler: async (request) => {
      const params = readParams(request);
      const blocId = requiredId(params, "blocId");
      const limit = integer(params, "resultLimit", { min: 1, max: maxResultLimit, fallback: Math.min(10, maxResultLimit) });
      const page = integer(params, "currentPage", { min: 1, max: MAX_PAGE, fallback: 1 });
      const order = flag(params, "reverse", false) ? "oldest" : "newest";
      const window = parseWindow({ from: "fromDate", to: "toDate" }, params.fromDate, params.toDate);
      const result = await readRecords(ctx, currentPrincipal(request), { blocId, window, order, limit, page });

      // The spec's `data` is an object: records under "0", "1", … beside the aggregates.
      const data: Record<string, unknown> = {};
      result.records.forEach((record, index) => { data[String(index)] = recordView(result.bloc, record); });
      data.count = result.count;
      data.fieldCounts = result.fieldCounts.listed;
      // Only when a listing leaves values out (too many, too long, or past the byte budget): see docs/endpoints.md, "Answer sizes".
      if (result.fieldCounts.partial.length > 0) data.fieldCountsPartial = result.fieldCounts.partial;
      data.countLimitInfo = result.countLimitInfo;
      data.fieldNames = Object.fromEntries(result.bloc.fields.map((field) => [field.slug, field.name]));
      return { data };
    },
  });
}

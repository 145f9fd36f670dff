import type { FastifyInstance } from "fastify";
import { Type, type Static } from "@sinclair/typebox";
import type { Context } from "../../domain/context.js";
import { parseWindow } from "../../domain/dates.js";
import { InvalidInputError, MissingParameterError } from "../../domain/errors.js";
import { MAX_BUCKETS, timeline } from "../../domain/timeline.js";
import { currentPrincipal } from "../auth.js";
import { errorResponses } from "../error-schemas.js";
import { Id } from "./admin-schemas.js";

const Params = Type.Object({ blocId: Id });
const Query = Type.Object({
  from: Type.Optional(Type.String({ description: "first day, YYYY-MM-DD (in BLOC_TIMEZONE, as records' times)" })),
  to: Type.Optional(Type.String({ description: "last day, YYYY-MM-DD (whole day included)" })),
  unit: Type.Optional(Type.String({ description: "`hour` or `day` (default `day`)" })),
}, {
  additionalProperties: true,
  description: `Value filters as \`f.<field slug>=<value>\`, repeated for several values: a record counts when, for each field named, its value equals one of them. At most ${MAX_BUCKETS} buckets.`,
});
const Answer = Type.Object({
  blocId: Type.String(),
  unit: Type.Union([Type.Literal("hour"), Type.Literal("day")]),
  buckets: Type.Array(Type.Object({
    start: Type.String({ description: "YYYY-MM-DD HH:MM:SS, inclusive" }),
    end: Type.String({ description: "YYYY-MM-DD HH:MM:SS, inclusive" }),
    count: Type.Integer({ description: "records the caller sees in the bucket that the filters match" }),
  })),
});

const DAY = /^\d{4}-\d{2}-\d{2}$/;

function day(name: string, value: string | undefined): string {
  if (value === undefined || value === "") throw new MissingParameterError(`${name} is required (YYYY-MM-DD)`);
  if (!DAY.test(value)) throw new InvalidInputError(`${name} must be a date, YYYY-MM-DD`);
  return value;
}

/** `f.<slug>` parameters, each value once, in the order sent. */
function filterOf(url: string): Record<string, string[]> {
  const filter: Record<string, string[]> = Object.create(null) as Record<string, string[]>;
  for (const [key, value] of new URL(url, "http://localhost").searchParams) {
    if (!key.startsWith("f.")) continue;
    const slug = key.slice(2);
    const values = filter[slug] ?? (filter[slug] = []);
    if (!values.includes(value)) values.push(value);
  }
  return filter;
}

/**
 * GET /api/blocs/:blocId/timeline?from=…&to=…&unit=hour|day: the records the caller sees
 * per hour or day, for the console's chart. Refused as get-data-report refuses (401 `error`
 * without read access, 400 `error` for a bad parameter).
 */
export function timelineRoute(app: FastifyInstance, ctx: Context): void {
  app.get<{ Params: Static<typeof Params>; Querystring: Static<typeof Query> }>("/api/blocs/:blocId/timeline", {
    config: { endpoint: "get-data-report" },
    schema: {
      summary: "Records the caller can see in a bloc, per hour or per day of a window, optionally filtered by values",
      tags: ["records"], params: Params, querystring: Query,
      response: { 200: Answer, ...errorResponses("get-data-report") },
    },
  }, async (request) => {
    const from = day("from", request.query.from);
    const to = day("to", request.query.to);
    parseWindow({ from: "from", to: "to" }, from, to);
    const unit = request.query.unit ?? "day";
    if (unit !== "hour" && unit !== "day") throw new InvalidInputError("unit must be hour or day");
    const buckets = await timeline(ctx, currentPrincipal(request), { blocId: request.params.blocId, from, to, unit, filter: filterOf(request.url) });
    return { blocId: request.params.blocId, unit, buckets };
  });
}

import { PassThrough } from "node:stream";
import { once } from "node:events";
import type { FastifyInstance } from "fastify";
import { Type, type Static } from "@sinclair/typebox";
import { requireAccess } from "../../domain/access.js";
import type { Context } from "../../domain/context.js";
import { runStream } from "../../events/stream.js";
import type { EventRuntime } from "../../events/runtime.js";
import { bearerSecret, currentPrincipal } from "../auth.js";
import { errorResponses } from "../error-schemas.js";
import { errorReply } from "../error-shapes.js";
import { Id } from "./admin-schemas.js";

/** A comment line this often on a quiet stream keeps proxies and load balancers from closing it. */
const KEEP_ALIVE_MS = 15_000;
/** How often a stream reads its reader's token and access again when no event comes: a revocation ends it within this. */
const RECHECK_MS = 2_000;

const EventsQuery = Type.Object({
  blocId: Id,
  lastEventId: Type.Optional(Type.String({ maxLength: 200, description: "where to resume, for clients that cannot send the Last-Event-ID header" })),
}, { additionalProperties: false });

/**
 * GET /api/events?blocId=…: the bloc's record.added and record.updated events as
 * Server-Sent Events, those of records the caller may see (events/stream.ts), from now
 * on or, with Last-Event-ID, right after the last one the caller has.
 */
export function eventsRoute(app: FastifyInstance, ctx: Context, runtime: EventRuntime): void {
  app.get<{ Querystring: Static<typeof EventsQuery> }>("/api/events", {
    config: { endpoint: "events" },
    schema: {
      summary: "A bloc's record events, live, as Server-Sent Events (resumes after Last-Event-ID)",
      tags: ["records"],
      querystring: EventsQuery,
      response: {
        ...errorResponses("events"),
        200: {
          description: "text/event-stream: `ready` once, then `record.added`, `record.updated`, `record.deleted` and `record.restored` events (data: the event as JSON), " +
            "`reset` when events before it are no longer kept, `error` when the token or access is withdrawn (the stream then ends, within seconds even when no event comes)",
          content: { "text/event-stream": { schema: Type.String() } },
        },
      },
    },
  }, async (request, reply) => {
    const { blocId } = request.query;
    const principal = currentPrincipal(request);
    const { bloc } = await requireAccess(ctx, principal, blocId, "read");
    const ids = (await runtime.eventIds()).of(bloc.id, principal.user.id);
    const resumeFrom = request.headers["last-event-id"] ?? request.query.lastEventId;
    const resumed = typeof resumeFrom === "string" && resumeFrom !== "" ? ids.open(resumeFrom) : undefined;
    const after = resumed ?? await ctx.store.events.lastEventSeq(bloc.id);
    const stream = runtime.openStream(principal.user.id);
    const out = new PassThrough();
    const write = async (text: string): Promise<void> => {
      if (stream.signal.aborted) return;
      if (!out.write(text)) await once(out, "drain", { signal: stream.signal }).catch(() => undefined);
    };
    // The response closing (the subscriber went away, or the stop cut it) ends the stream, and the other way round.
    reply.raw.on("close", () => stream.abort());
    stream.signal.addEventListener("abort", () => out.end());
    void runStream({
      ctx, feed: runtime.feed, lastVisible: runtime.lastVisible, ids, secret: bearerSecret(request.headers.authorization) ?? "", blocId: bloc.id, after,
      lost: resumeFrom !== undefined && resumeFrom !== "" && resumed === undefined, keepAliveMs: KEEP_ALIVE_MS, recheckMs: RECHECK_MS,
      write, signal: stream.signal, refusal: (error) => Object.values(errorReply("events", error).body)[0] ?? error.message,
    }).catch((error: unknown) => request.log.error({ err: error }, "event stream failed"))
      .finally(() => stream.abort());
    return reply
      .type("text/event-stream; charset=utf-8")
      .header("cache-control", "no-store")
      .header("x-accel-buffering", "no")
      .send(out);
  });
}

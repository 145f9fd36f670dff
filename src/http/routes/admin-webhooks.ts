import type { FastifyInstance } from "fastify";
import { Type, type Static, type TSchema } from "@sinclair/typebox";
import type { Context } from "../../domain/context.js";
import { EVENT_TYPES } from "../../domain/events.js";
import { createWebhook, deleteWebhook, listDeliveries, listWebhooks, resendDelivery, type Send } from "../../domain/webhooks.js";
import { Id, tags } from "./admin-schemas.js";
import { answers, NoContent } from "./admin-responses.js";

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const EventType = Type.Union(EVENT_TYPES.map((type) => Type.Literal(type)));
const Stamp = Type.String({ description: "YYYY-MM-DD HH:MM:SS in BLOC_TIMEZONE" });

const WebhookBody = Type.Object({
  url: Type.String({ minLength: 1, maxLength: 2048, description: "where events are POSTed: an http:// or https:// URL" }),
  blocs: Type.Optional(Nullable(Type.Array(Id, { maxItems: 1000, description: "the blocs whose events it receives; left out or null: every bloc, present and future" }))),
  events: Type.Optional(Type.Array(EventType, { maxItems: 10, description: "the event types it receives; default the four record.* types" })),
  secret: Type.Optional(Type.String({ maxLength: 256, description: "signs each delivery (X-Bloc-Signature); 16 to 256 printable characters; generated when left out" })),
}, { additionalProperties: false });

const WebhookInfo = Type.Object({
  id: Type.String(), url: Type.String(), blocs: Nullable(Type.Array(Type.String())), events: Type.Array(EventType), createdAt: Stamp,
}, { additionalProperties: false });
export const CreatedWebhook = Type.Object({
  ...WebhookInfo.properties,
  secret: Type.String({ description: "the signing secret, shown this once" }),
}, { additionalProperties: false });
const Delivery = Type.Object({
  id: Type.Integer(), webhookId: Type.String(), blocId: Type.String(),
  seq: Type.Integer({ description: "the event's number in its bloc" }), eventId: Type.String(), type: EventType,
  attempt: Type.Integer({ description: "1 for an event's first attempt, counting on through retries and re-sends" }),
  at: Stamp, statusCode: Nullable(Type.Integer()), error: Nullable(Type.String()), durationMs: Type.Integer(),
  outcome: Type.Union(["delivered", "failed", "gave-up", "resent", "resend-failed"].map((o) => Type.Literal(o))),
}, { additionalProperties: false });

export const WebhookList = Type.Object({ webhooks: Type.Array(WebhookInfo) }, { additionalProperties: false });
export const DeliveryList = Type.Object({ deliveries: Type.Array(Delivery) }, { additionalProperties: false });

const WebhookParams = Type.Object({ webhookId: Id });
const DeliveryParams = Type.Object({ webhookId: Id, deliveryId: Id });
// Query strings are text (schemas do not coerce here): whole numbers are checked by pattern.
const DeliveriesQuery = Type.Object({
  limit: Type.Optional(Type.String({ pattern: "^(?:[1-9][0-9]{0,2}|1000)$", description: "1 to 1000; default 100" })),
  before: Type.Optional(Type.String({ pattern: "^[1-9][0-9]{0,14}$", description: "only attempts older than this delivery ID (the next page)" })),
}, { additionalProperties: false });

/** Webhooks: where events are delivered, and what became of each attempt. */
export function adminWebhookRoutes(app: FastifyInstance, ctx: Context, send: Send): void {
  app.post<{ Body: Static<typeof WebhookBody> }>("/api/admin/webhooks", {
    schema: { tags, summary: "A webhook: events of some blocs (or all), POSTed signed, in order, until acknowledged", body: WebhookBody, response: answers(201, CreatedWebhook) },
  }, async (request, reply) => reply.status(201).send(await createWebhook(ctx, request.body)));

  app.get("/api/admin/webhooks", {
    schema: { tags, summary: "Every webhook (never its secret)", response: answers(200, WebhookList) },
  }, async () => ({ webhooks: await listWebhooks(ctx) }));

  app.delete<{ Params: Static<typeof WebhookParams> }>("/api/admin/webhooks/:webhookId", {
    schema: { tags, summary: "Removes a webhook; its pending events are not delivered", params: WebhookParams, response: answers(204, NoContent) },
  }, async (request, reply) => {
    await deleteWebhook(ctx, request.params.webhookId);
    return reply.status(204).send();
  });

  app.get<{ Params: Static<typeof WebhookParams>; Querystring: Static<typeof DeliveriesQuery> }>("/api/admin/webhooks/:webhookId/deliveries", {
    schema: {
      tags, summary: "A webhook's delivery attempts, newest first (the newest 10,000 are kept)",
      params: WebhookParams, querystring: DeliveriesQuery, response: answers(200, DeliveryList),
    },
  }, async (request) => ({
    deliveries: await listDeliveries(ctx, request.params.webhookId, Number(request.query.limit ?? 100),
      request.query.before === undefined ? undefined : Number(request.query.before)),
  }));

  app.post<{ Params: Static<typeof DeliveryParams> }>("/api/admin/webhooks/:webhookId/deliveries/:deliveryId/resend", {
    schema: {
      tags, summary: "Sends a logged delivery's event again, now, and makes its bloc's waiting retries due now",
      params: DeliveryParams, response: answers(200, Type.Object({ delivery: Delivery })),
    },
  }, async (request) => ({ delivery: await resendDelivery(ctx, send, request.params.webhookId, request.params.deliveryId) }));
}

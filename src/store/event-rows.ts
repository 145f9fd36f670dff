import type { EventType } from "../domain/events.js";
import type { Delivery, DeliveryOutcome, Lane, StoredEvent, Webhook } from "../domain/ports/events.js";

/*
 * Events, webhooks, lanes and deliveries as rows of their tables (tables.ts), and back:
 * the same for every engine. Lists (a webhook's blocs and events) travel as JSON text.
 */

export const EVENT_COLUMNS = "bloc_id, seq, id, type, created_at, created_ms, record_id, data";

export interface EventRow {
  bloc_id: string;
  seq: number;
  id: string;
  type: string;
  created_at: string;
  created_ms: number;
  record_id: number | null;
  data: string;
}

export function toStoredEvent(row: EventRow): StoredEvent {
  return {
    blocId: row.bloc_id, seq: row.seq, id: row.id, type: row.type as EventType, at: row.created_at,
    atMs: row.created_ms, recordId: row.record_id, data: row.data,
  };
}

export const WEBHOOK_COLUMNS = "id, url, blocs, events, secret, created_at";

export interface WebhookRow {
  id: string;
  url: string;
  blocs: string | null;
  events: string;
  secret: string;
  created_at: string;
}

export function toWebhook(row: WebhookRow): Webhook {
  return {
    id: row.id, url: row.url, blocs: row.blocs === null ? null : JSON.parse(row.blocs) as string[],
    events: JSON.parse(row.events) as EventType[], secret: row.secret, createdAt: row.created_at,
  };
}

export function webhookRow(webhook: Webhook): WebhookRow {
  return {
    id: webhook.id, url: webhook.url, blocs: webhook.blocs === null ? null : JSON.stringify(webhook.blocs),
    events: JSON.stringify(webhook.events), secret: webhook.secret, created_at: webhook.createdAt,
  };
}

export const LANE_COLUMNS = "webhook_id, bloc_id, delivered_seq, attempts, first_failed_ms";

export interface LaneRow {
  webhook_id: string;
  bloc_id: string;
  delivered_seq: number;
  attempts: number;
  first_failed_ms: number | null;
}

export function toLane(row: LaneRow): Lane {
  return {
    webhookId: row.webhook_id, blocId: row.bloc_id, deliveredSeq: row.delivered_seq, attempts: row.attempts,
    firstFailedMs: row.first_failed_ms,
  };
}

export const DELIVERY_COLUMNS =
  "id, webhook_id, bloc_id, seq, event_id, type, attempt, at, status_code, error, duration_ms, outcome";
/** The columns a new delivery is written with (its ID is the table's own). */
export const NEW_DELIVERY_COLUMNS = DELIVERY_COLUMNS.replace(/^id, /, "");

export interface DeliveryRow {
  id: number;
  webhook_id: string;
  bloc_id: string;
  seq: number;
  event_id: string;
  type: string;
  attempt: number;
  at: string;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  outcome: string;
}

export function toDelivery(row: DeliveryRow): Delivery {
  return {
    id: row.id, webhookId: row.webhook_id, blocId: row.bloc_id, seq: row.seq, eventId: row.event_id,
    type: row.type as EventType, attempt: row.attempt, at: row.at, statusCode: row.status_code, error: row.error,
    durationMs: row.duration_ms, outcome: row.outcome as DeliveryOutcome,
  };
}

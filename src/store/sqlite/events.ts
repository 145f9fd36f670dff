import type { Delivery, Lane, LaneProgress, NewDelivery, NewEvent, StoredEvent, Webhook } from "../../domain/ports/store.js";
import {
  DELIVERY_COLUMNS, EVENT_COLUMNS, LANE_COLUMNS, NEW_DELIVERY_COLUMNS, WEBHOOK_COLUMNS,
  toDelivery, toLane, toStoredEvent, toWebhook, webhookRow,
  type DeliveryRow, type EventRow, type LaneRow, type WebhookRow,
} from "../event-rows.js";
import { IN_LIST, jsonList, type Statements } from "./statements.js";

/*
 * Events and webhooks in the SQLite engine. A write transaction holds the file's one
 * write lock, across processes, so a bloc's events are numbered in commit order by
 * construction, and a lane is claimed by one process at a time.
 */

export function appendEvents(sql: Statements, blocId: string, events: readonly NewEvent[]): void {
  if (events.length === 0) return;
  const { last_seq: last } = sql.get(`INSERT INTO event_sequences (bloc_id, last_seq) VALUES (?, ?)
    ON CONFLICT (bloc_id) DO UPDATE SET last_seq = last_seq + excluded.last_seq RETURNING last_seq`)
    .get(blocId, events.length) as { last_seq: number };
  const insert = sql.get(`INSERT INTO events (${EVENT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`);
  events.forEach((event, i) => {
    insert.run(blocId, last - events.length + 1 + i, event.id, event.type, event.at, event.atMs, event.recordId, event.data);
  });
}

export function createWebhook(sql: Statements, webhook: Webhook): void {
  const row = webhookRow(webhook);
  sql.get(`INSERT INTO webhooks (${WEBHOOK_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)`)
    .run(row.id, row.url, row.blocs, row.events, row.secret, row.created_at);
  // Lanes start after each bloc's last event: a webhook receives what happens from now on.
  if (webhook.blocs === null) {
    sql.get(`INSERT INTO webhook_lanes (webhook_id, bloc_id, delivered_seq) SELECT ?, bloc_id, last_seq FROM event_sequences`)
      .run(webhook.id);
    return;
  }
  const lane = sql.get(`INSERT INTO webhook_lanes (webhook_id, bloc_id, delivered_seq)
    VALUES (?, ?, COALESCE((SELECT last_seq FROM event_sequences WHERE bloc_id = ?), 0))`);
  for (const blocId of webhook.blocs) lane.run(webhook.id, blocId, blocId);
}

export function lastEventSeq(sql: Statements, blocId: string): number {
  const row = sql.get("SELECT last_seq FROM event_sequences WHERE bloc_id = ?").get(blocId) as { last_seq: number } | undefined;
  return row?.last_seq ?? 0;
}

/** Events in order with the bytes of data before each, cut where they pass the budget (the first always kept). */
const EVENTS_WITHIN = `
  SELECT ${EVENT_COLUMNS} FROM (
    SELECT ${EVENT_COLUMNS}, sum(length(CAST(data AS BLOB))) OVER (ORDER BY seq) - length(CAST(data AS BLOB)) AS before
    FROM events WHERE bloc_id = ? AND seq > ? ORDER BY seq LIMIT ?
  ) WHERE before < ? ORDER BY seq`;

export function eventsAfter(sql: Statements, blocId: string, afterSeq: number, limit: number, maxBytes: number): StoredEvent[] {
  return (sql.get(EVENTS_WITHIN).all(blocId, afterSeq, limit, maxBytes) as EventRow[]).map(toStoredEvent);
}

export function findEvent(sql: Statements, blocId: string, seq: number): StoredEvent | undefined {
  const row = sql.get(`SELECT ${EVENT_COLUMNS} FROM events WHERE bloc_id = ? AND seq = ?`).get(blocId, seq) as EventRow | undefined;
  return row && toStoredEvent(row);
}

export function listWebhooks(sql: Statements): Webhook[] {
  return (sql.get(`SELECT ${WEBHOOK_COLUMNS} FROM webhooks ORDER BY created_at, id`).all() as WebhookRow[]).map(toWebhook);
}

export function findWebhook(sql: Statements, id: string): Webhook | undefined {
  const row = sql.get(`SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE id = ?`).get(id) as WebhookRow | undefined;
  return row && toWebhook(row);
}

export function deleteWebhook(sql: Statements, id: string): boolean {
  sql.get("DELETE FROM webhook_lanes WHERE webhook_id = ?").run(id);
  sql.get("DELETE FROM webhook_deliveries WHERE webhook_id = ?").run(id);
  return sql.get("DELETE FROM webhooks WHERE id = ?").run(id).changes > 0;
}

export function listDeliveries(sql: Statements, webhookId: string, limit: number, beforeId: number | undefined): Delivery[] {
  return (sql.get(`SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE webhook_id = ? AND id < ? ORDER BY id DESC LIMIT ?`)
    .all(webhookId, beforeId ?? Number.MAX_SAFE_INTEGER, limit) as DeliveryRow[]).map(toDelivery);
}

export function findDelivery(sql: Statements, webhookId: string, id: number): Delivery | undefined {
  const row = sql.get(`SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE webhook_id = ? AND id = ?`)
    .get(webhookId, id) as DeliveryRow | undefined;
  return row && toDelivery(row);
}

export function addDeliveries(sql: Statements, deliveries: readonly NewDelivery[]): number {
  const insert = sql.get(`INSERT INTO webhook_deliveries (${NEW_DELIVERY_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  let first = 0;
  for (const d of deliveries) {
    const id = Number(insert.run(d.webhookId, d.blocId, d.seq, d.eventId, d.type, d.attempt, d.at, d.statusCode, d.error,
      d.durationMs, d.outcome).lastInsertRowid);
    first ||= id;
  }
  return first;
}

/** Lanes with something due, in the order they are claimed: the longest waiting first. */
const DUE = `FROM webhook_lanes l JOIN event_sequences s ON s.bloc_id = l.bloc_id
  WHERE l.delivered_seq < s.last_seq AND l.next_attempt_ms <= ? AND l.lease_until_ms < ? AND l.webhook_id NOT ${IN_LIST}`;
/** Blocs with events that an every-bloc webhook has no lane for yet: blocs made after it. */
const UNOPENED = `FROM webhooks w JOIN event_sequences s WHERE w.blocs IS NULL
  AND NOT EXISTS (SELECT 1 FROM webhook_lanes l WHERE l.webhook_id = w.id AND l.bloc_id = s.bloc_id)`;

/** Whether a claim would find anything: read first, so that an idle tick takes no write lock. */
export function claimable(sql: Statements, nowMs: number, busy: readonly string[]): boolean {
  return sql.get(`SELECT 1 ${DUE} UNION ALL SELECT 1 ${UNOPENED} LIMIT 1`).get(nowMs, nowMs, jsonList(busy)) !== undefined;
}

export function claimLanes(sql: Statements, owner: string, nowMs: number, leaseUntilMs: number, limit: number,
  busy: readonly string[]): Lane[] {
  // A bloc made after an every-bloc webhook gets its lane from its first event: all of them are news to it.
  sql.get(`INSERT INTO webhook_lanes (webhook_id, bloc_id, delivered_seq) SELECT w.id, s.bloc_id, 0 ${UNOPENED}`).run();
  const lanes = (sql.get(`SELECT ${LANE_COLUMNS.split(", ").map((c) => `l.${c}`).join(", ")} ${DUE}
    ORDER BY l.next_attempt_ms, l.webhook_id, l.bloc_id LIMIT ?`).all(nowMs, nowMs, jsonList(busy), limit) as LaneRow[]);
  const take = sql.get("UPDATE webhook_lanes SET lease_owner = ?, lease_until_ms = ? WHERE webhook_id = ? AND bloc_id = ?");
  for (const lane of lanes) take.run(owner, leaseUntilMs, lane.webhook_id, lane.bloc_id);
  return lanes.map(toLane);
}

export function saveLane(sql: Statements, owner: string, webhookId: string, blocId: string, progress: LaneProgress,
  deliveries: readonly NewDelivery[], leaseUntilMs: number): boolean {
  const saved = sql.get(`UPDATE webhook_lanes SET delivered_seq = ?, attempts = ?, first_failed_ms = ?, next_attempt_ms = ?,
    lease_owner = ?, lease_until_ms = ? WHERE webhook_id = ? AND bloc_id = ? AND lease_owner = ?`)
    .run(progress.deliveredSeq, progress.attempts, progress.firstFailedMs, progress.nextAttemptMs,
      progress.release ? null : owner, progress.release ? 0 : leaseUntilMs, webhookId, blocId, owner).changes > 0;
  if (saved) addDeliveries(sql, deliveries);
  return saved;
}

export function retryLaneNow(sql: Statements, webhookId: string, blocId: string): void {
  sql.get("UPDATE webhook_lanes SET next_attempt_ms = 0 WHERE webhook_id = ? AND bloc_id = ?").run(webhookId, blocId);
}

/**
 * Deletes one bloc's oldest events, those kept since before `beforeMs` that every lane of
 * the bloc is past, looking at no more than `limit` of them.
 */
function pruneBloc(sql: Statements, blocId: string, lastSeq: number, beforeMs: number, limit: number): number {
  const oldest = (sql.get("SELECT MIN(seq) AS seq FROM events WHERE bloc_id = ?").get(blocId) as { seq: number | null }).seq;
  if (oldest === null) return 0;
  const lanes = (sql.get("SELECT MIN(delivered_seq) AS seq FROM webhook_lanes WHERE bloc_id = ?").get(blocId) as { seq: number | null }).seq;
  const fresh = (sql.get(`SELECT MIN(seq) AS seq FROM events WHERE bloc_id = ? AND seq BETWEEN ? AND ? AND created_ms >= ?`)
    .get(blocId, oldest, oldest + limit, beforeMs) as { seq: number | null }).seq;
  const upTo = Math.min(lanes ?? lastSeq, fresh === null ? oldest + limit : fresh - 1);
  return upTo < oldest ? 0 : sql.get("DELETE FROM events WHERE bloc_id = ? AND seq <= ?").run(blocId, upTo).changes;
}

export function pruneEvents(sql: Statements, beforeMs: number, limit: number): number {
  const blocs = sql.get("SELECT bloc_id, last_seq FROM event_sequences").all() as { bloc_id: string; last_seq: number }[];
  let deleted = 0;
  for (const { bloc_id: blocId, last_seq: lastSeq } of blocs) {
    if (deleted >= limit) break;
    deleted += pruneBloc(sql, blocId, lastSeq, beforeMs, limit - deleted);
  }
  return deleted;
}

export function pruneDeliveries(sql: Statements, keep: number, limit: number): number {
  const webhooks = sql.get("SELECT id FROM webhooks").all() as { id: string }[];
  let deleted = 0;
  for (const { id } of webhooks) {
    const cutoff = sql.get("SELECT id FROM webhook_deliveries WHERE webhook_id = ? ORDER BY id DESC LIMIT 1 OFFSET ?")
      .get(id, keep) as { id: number } | undefined;
    if (!cutoff) continue;
    // The oldest first, a bounded number at a time: each call holds the write lock briefly.
    deleted += sql.get(`DELETE FROM webhook_deliveries WHERE webhook_id = ? AND id <= ?
      AND id <= (SELECT MIN(id) FROM webhook_deliveries WHERE webhook_id = ?) + ?`).run(id, cutoff.id, id, limit).changes;
  }
  return deleted;
}

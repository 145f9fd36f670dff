import type { Delivery, Lane, LaneProgress, NewDelivery, NewEvent, StoredEvent, Webhook } from "../../domain/ports/store.js";
import {
  DELIVERY_COLUMNS, EVENT_COLUMNS, LANE_COLUMNS, NEW_DELIVERY_COLUMNS, WEBHOOK_COLUMNS,
  toDelivery, toLane, toStoredEvent, toWebhook, webhookRow,
  type DeliveryRow, type EventRow, type LaneRow, type WebhookRow,
} from "../event-rows.js";
import { storable, type AheadWrite, type Db, type Param, type TxDb } from "./driver.js";

/*
 * Events and webhooks in the PostgreSQL engine. A bloc's events are numbered by an
 * upsert of its row in event_sequences, whose row lock the transaction holds until it
 * ends: the next writer of the bloc's events waits for it, so numbers follow commit
 * order and a reader that sees number n has every number below it. Lanes are claimed
 * with FOR UPDATE SKIP LOCKED, so that processes never wait for, or take, each other's.
 */

/**
 * The statement appending a bloc's events: the events travel as parallel arrays and are
 * numbered after the bloc's last, in one round trip.
 */
const APPEND = `
  WITH n AS (
    INSERT INTO event_sequences AS s (bloc_id, last_seq) VALUES ($1::text, $2::bigint)
    ON CONFLICT (bloc_id) DO UPDATE SET last_seq = s.last_seq + excluded.last_seq
    RETURNING last_seq
  )
  INSERT INTO events (${EVENT_COLUMNS})
  SELECT $1::text, n.last_seq - $2::bigint + x.i, x.id, x.type, x.created_at, x.created_ms, x.record_id, x.data
  FROM n, unnest($3::text[], $4::text[], $5::text[], $6::bigint[], $7::bigint[], $8::text[])
    WITH ORDINALITY AS x(id, type, created_at, created_ms, record_id, data, i)`;

export function appendParams(blocId: string, events: readonly NewEvent[]): Param[] {
  return [blocId, events.length, events.map((e) => e.id), events.map((e) => e.type), events.map((e) => e.at),
    events.map((e) => e.atMs), events.map((e) => e.recordId), events.map((e) => e.data)];
}

/** One bloc's events, appended with those of the other units of a group commit in one statement. */
const APPEND_EVENTS: AheadWrite<{ readonly blocId: string; readonly events: readonly NewEvent[] }> = {
  key: (row) => row.blocId,
  statement: (rows) => ({ text: APPEND, params: appendParams(rows[0]!.blocId, rows.flatMap((row) => row.events)) }),
};

/**
 * Sent without waiting for its answer (a round trip saved per add in a group commit): a
 * failure is kept by the transaction (write-transaction.ts).
 */
export function appendEvents(db: TxDb, blocId: string, events: readonly NewEvent[]): void {
  if (events.length === 0) return;
  db.ahead(APPEND_EVENTS, { blocId, events });
}

export async function createWebhook(db: Db, webhook: Webhook): Promise<void> {
  const row = webhookRow(webhook);
  await db.run(`INSERT INTO webhooks (${WEBHOOK_COLUMNS}) VALUES ($1::text, $2::text, $3::text, $4::text, $5::text, $6::text)`,
    [row.id, row.url, row.blocs, row.events, row.secret, row.created_at]);
  // Lanes start after each bloc's last event: a webhook receives what happens from now on.
  if (webhook.blocs === null) {
    await db.run(`INSERT INTO webhook_lanes (webhook_id, bloc_id, delivered_seq)
      SELECT $1::text, bloc_id, last_seq FROM event_sequences`, [webhook.id]);
    return;
  }
  await db.run(`INSERT INTO webhook_lanes (webhook_id, bloc_id, delivered_seq)
    SELECT $1::text, b.bloc_id, COALESCE(s.last_seq, 0)
    FROM unnest($2::text[]) AS b(bloc_id) LEFT JOIN event_sequences s ON s.bloc_id = b.bloc_id`, [webhook.id, [...webhook.blocs]]);
}

export async function eventIdKey(db: Db): Promise<string> {
  const [row] = await db.run<{ value: string }>("SELECT value FROM instance_keys WHERE name = 'event-ids'");
  return row!.value;
}

export async function lastEventSeq(db: Db, blocId: string): Promise<number> {
  if (!storable(blocId)) return 0;
  const [row] = await db.run<{ last_seq: number }>("SELECT last_seq FROM event_sequences WHERE bloc_id = $1::text", [blocId]);
  return row?.last_seq ?? 0;
}

/** Events in order with the bytes of data before each, cut where they pass the budget (the first always kept). */
const EVENTS_WITHIN = `
  SELECT ${EVENT_COLUMNS} FROM (
    SELECT ${EVENT_COLUMNS}, sum(octet_length(data)) OVER (ORDER BY seq) - octet_length(data) AS before
    FROM events WHERE bloc_id = $1::text AND seq > $2::bigint ORDER BY seq LIMIT $3::bigint
  ) e WHERE before < $4::bigint ORDER BY seq`;

export async function eventsAfter(db: Db, blocId: string, afterSeq: number, limit: number, maxBytes: number): Promise<StoredEvent[]> {
  if (!storable(blocId)) return [];
  return (await db.run<EventRow>(EVENTS_WITHIN, [blocId, afterSeq, limit, maxBytes])).map(toStoredEvent);
}

export async function findEvent(db: Db, blocId: string, seq: number): Promise<StoredEvent | undefined> {
  if (!storable(blocId)) return undefined;
  const [row] = await db.run<EventRow>(`SELECT ${EVENT_COLUMNS} FROM events WHERE bloc_id = $1::text AND seq = $2::bigint`,
    [blocId, seq]);
  return row && toStoredEvent(row);
}

export async function listWebhooks(db: Db): Promise<Webhook[]> {
  return (await db.run<WebhookRow>(`SELECT ${WEBHOOK_COLUMNS} FROM webhooks ORDER BY created_at, id`)).map(toWebhook);
}

export async function findWebhook(db: Db, id: string): Promise<Webhook | undefined> {
  if (!storable(id)) return undefined;
  const [row] = await db.run<WebhookRow>(`SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE id = $1::text`, [id]);
  return row && toWebhook(row);
}

/** One statement, so that it is atomic outside a transaction. */
export async function deleteWebhook(db: Db, id: string): Promise<boolean> {
  if (!storable(id)) return false;
  const [row] = await db.run<{ n: number }>(`
    WITH lanes AS (DELETE FROM webhook_lanes WHERE webhook_id = $1::text),
    log AS (DELETE FROM webhook_deliveries WHERE webhook_id = $1::text),
    hook AS (DELETE FROM webhooks WHERE id = $1::text RETURNING 1)
    SELECT count(*)::integer AS n FROM hook`, [id]);
  return row!.n > 0;
}

export async function listDeliveries(db: Db, webhookId: string, limit: number, beforeId: number | undefined): Promise<Delivery[]> {
  if (!storable(webhookId)) return [];
  return (await db.run<DeliveryRow>(`SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries
    WHERE webhook_id = $1::text AND id < $2::bigint ORDER BY id DESC LIMIT $3::bigint`,
  [webhookId, beforeId ?? Number.MAX_SAFE_INTEGER, limit])).map(toDelivery);
}

export async function findDelivery(db: Db, webhookId: string, id: number): Promise<Delivery | undefined> {
  if (!storable(webhookId)) return undefined;
  const [row] = await db.run<DeliveryRow>(`SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries
    WHERE webhook_id = $1::text AND id = $2::bigint`, [webhookId, id]);
  return row && toDelivery(row);
}

/** The attempts as a record set of parallel arrays, from parameter `$first` on. */
function deliveryRows(first: number): string {
  const p = (i: number, type: string): string => `$${first + i}::${type}[]`;
  return `unnest(${p(0, "text")}, ${p(1, "text")}, ${p(2, "bigint")}, ${p(3, "text")}, ${p(4, "text")}, ${p(5, "bigint")},
    ${p(6, "text")}, ${p(7, "bigint")}, ${p(8, "text")}, ${p(9, "bigint")}, ${p(10, "text")})
    AS x(${NEW_DELIVERY_COLUMNS})`;
}

function deliveryParams(deliveries: readonly NewDelivery[]): Param[] {
  const column = <T extends Param>(pick: (d: NewDelivery) => T): T[] => deliveries.map(pick);
  return [column((d) => d.webhookId), column((d) => d.blocId), column((d) => d.seq), column((d) => d.eventId),
    column((d) => d.type), column((d) => d.attempt), column((d) => d.at), column((d) => d.statusCode),
    column((d) => d.error), column((d) => d.durationMs), column((d) => d.outcome)];
}

export async function addDeliveries(db: Db, deliveries: readonly NewDelivery[]): Promise<number> {
  if (deliveries.length === 0) return 0;
  const rows = await db.run<{ id: number }>(`INSERT INTO webhook_deliveries (${NEW_DELIVERY_COLUMNS})
    SELECT * FROM ${deliveryRows(1)} RETURNING id`, deliveryParams(deliveries));
  return Math.min(...rows.map((row) => row.id));
}

const DUE = `FROM webhook_lanes l JOIN event_sequences s ON s.bloc_id = l.bloc_id
  WHERE l.delivered_seq < s.last_seq AND l.next_attempt_ms <= $1::bigint AND l.lease_until_ms < $1::bigint
    AND NOT (l.webhook_id = ANY($2::text[]))`;
const UNOPENED = `FROM webhooks w CROSS JOIN event_sequences s WHERE w.blocs IS NULL
  AND NOT EXISTS (SELECT 1 FROM webhook_lanes l WHERE l.webhook_id = w.id AND l.bloc_id = s.bloc_id)`;

export async function claimLanes(db: Db, owner: string, nowMs: number, leaseUntilMs: number, limit: number,
  busy: readonly string[]): Promise<Lane[]> {
  const [found] = await db.run(`SELECT 1 ${DUE} UNION ALL SELECT 1 ${UNOPENED} LIMIT 1`, [nowMs, [...busy]]);
  if (!found) return [];
  // A bloc made after an every-bloc webhook gets its lane from its first event: all of them are news to it.
  await db.run(`INSERT INTO webhook_lanes (webhook_id, bloc_id, delivered_seq) SELECT w.id, s.bloc_id, 0 ${UNOPENED}
    ON CONFLICT DO NOTHING`);
  // The outer condition is checked again on the row as locked: a lane another process took meanwhile is not taken.
  const rows = await db.run<LaneRow>(`
    UPDATE webhook_lanes t SET lease_owner = $3::text, lease_until_ms = $4::bigint
    FROM (SELECT l.webhook_id, l.bloc_id ${DUE} ORDER BY l.next_attempt_ms, l.webhook_id, l.bloc_id LIMIT $5::bigint
          FOR UPDATE OF l SKIP LOCKED) c
    WHERE t.webhook_id = c.webhook_id AND t.bloc_id = c.bloc_id AND t.lease_until_ms < $1::bigint
    RETURNING ${LANE_COLUMNS.split(", ").map((column) => `t.${column}`).join(", ")}`,
  [nowMs, [...busy], owner, leaseUntilMs, limit]);
  return rows.map(toLane);
}

/** One statement: the lane moves and its attempts are logged together, or neither when the lane is no longer ours. */
export async function saveLane(db: Db, owner: string, webhookId: string, blocId: string, progress: LaneProgress,
  deliveries: readonly NewDelivery[], leaseUntilMs: number): Promise<boolean> {
  const [row] = await db.run<{ saved: number }>(`
    WITH saved AS (
      UPDATE webhook_lanes SET delivered_seq = $1::bigint, attempts = $2::integer, first_failed_ms = $3::bigint,
        next_attempt_ms = $4::bigint, lease_owner = $5::text, lease_until_ms = $6::bigint
      WHERE webhook_id = $7::text AND bloc_id = $8::text AND lease_owner = $9::text RETURNING 1
    ),
    logged AS (
      INSERT INTO webhook_deliveries (${NEW_DELIVERY_COLUMNS})
      SELECT * FROM ${deliveryRows(10)} WHERE EXISTS (SELECT 1 FROM saved)
    )
    SELECT count(*)::integer AS saved FROM saved`,
  [progress.deliveredSeq, progress.attempts, progress.firstFailedMs, progress.nextAttemptMs,
    progress.release ? null : owner, progress.release ? 0 : leaseUntilMs, webhookId, blocId, owner,
    ...deliveryParams(deliveries)]);
  return row!.saved > 0;
}

export async function retryLaneNow(db: Db, webhookId: string, blocId: string): Promise<void> {
  await db.run("UPDATE webhook_lanes SET next_attempt_ms = 0 WHERE webhook_id = $1::text AND bloc_id = $2::text", [webhookId, blocId]);
}

/**
 * Deletes one bloc's oldest events, those kept since before `beforeMs` that every lane
 * of the bloc is past, looking at no more than `limit` of them.
 */
async function pruneBloc(db: Db, blocId: string, lastSeq: number, beforeMs: number, limit: number): Promise<number> {
  const [row] = await db.run<{ n: number }>(`
    WITH bounds AS (
      SELECT o.oldest,
        LEAST(
          COALESCE((SELECT min(delivered_seq) FROM webhook_lanes WHERE bloc_id = $1::text), $2::bigint),
          COALESCE((SELECT min(seq) - 1 FROM events WHERE bloc_id = $1::text AND seq BETWEEN o.oldest AND o.oldest + $4::bigint
            AND created_ms >= $3::bigint), o.oldest + $4::bigint)) AS up_to
      FROM (SELECT min(seq) AS oldest FROM events WHERE bloc_id = $1::text) o
    ),
    gone AS (DELETE FROM events e USING bounds b WHERE e.bloc_id = $1::text AND e.seq <= b.up_to RETURNING 1)
    SELECT count(*)::integer AS n FROM gone`, [blocId, lastSeq, beforeMs, limit]);
  return row!.n;
}

export async function pruneEvents(db: Db, beforeMs: number, limit: number): Promise<number> {
  const blocs = await db.run<{ bloc_id: string; last_seq: number }>("SELECT bloc_id, last_seq FROM event_sequences");
  let deleted = 0;
  for (const { bloc_id: blocId, last_seq: lastSeq } of blocs) {
    if (deleted >= limit) break;
    deleted += await pruneBloc(db, blocId, lastSeq, beforeMs, limit - deleted);
  }
  return deleted;
}

export async function pruneDeliveries(db: Db, keep: number, limit: number): Promise<number> {
  const [row] = await db.run<{ n: number }>(`
    WITH cutoffs AS (
      SELECT w.id AS webhook_id,
        (SELECT d.id FROM webhook_deliveries d WHERE d.webhook_id = w.id ORDER BY d.id DESC LIMIT 1 OFFSET $1::bigint) AS cutoff,
        (SELECT min(d.id) FROM webhook_deliveries d WHERE d.webhook_id = w.id) AS oldest
      FROM webhooks w
    ),
    gone AS (
      DELETE FROM webhook_deliveries d USING cutoffs c
      WHERE d.webhook_id = c.webhook_id AND d.id <= c.cutoff AND d.id <= c.oldest + $2::bigint RETURNING 1
    )
    SELECT count(*)::integer AS n FROM gone`, [keep, limit]);
  return row!.n;
}

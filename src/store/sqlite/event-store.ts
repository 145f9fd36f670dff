import type { Delivery, EventStore, Lane, LaneProgress, NewDelivery, StoredEvent, Webhook } from "../../domain/ports/store.js";
import type { SqliteConnection } from "./connection.js";
import * as events from "./events.js";

/**
 * Events and webhooks outside any unit of work (Store.events) in the SQLite engine: reads
 * answered once durable, deletions of webhooks as durable writes, and the delivery
 * lanes' bookkeeping as writes whose caller need not wait for the disk.
 */
export class SqliteEventStore implements EventStore {
  constructor(private readonly connection: SqliteConnection) {}

  private get sql(): SqliteConnection["sql"] {
    return this.connection.sql;
  }

  eventIdKey(): Promise<string> {
    return this.connection.read(async () => (this.sql.get("SELECT value FROM instance_keys WHERE name = 'event-ids'").get() as { value: string }).value);
  }

  lastEventSeq(blocId: string): Promise<number> {
    return this.connection.read(async () => events.lastEventSeq(this.sql, blocId));
  }

  eventsAfter(blocId: string, afterSeq: number, limit: number, maxBytes: number): Promise<StoredEvent[]> {
    return this.connection.read(async () => events.eventsAfter(this.sql, blocId, afterSeq, limit, maxBytes));
  }

  findEvent(blocId: string, seq: number): Promise<StoredEvent | undefined> {
    return this.connection.read(async () => events.findEvent(this.sql, blocId, seq));
  }

  listWebhooks(): Promise<Webhook[]> {
    return this.connection.read(async () => events.listWebhooks(this.sql));
  }

  findWebhook(id: string): Promise<Webhook | undefined> {
    return this.connection.read(async () => events.findWebhook(this.sql, id));
  }

  deleteWebhook(id: string): Promise<boolean> {
    return this.connection.write(async () => events.deleteWebhook(this.sql, id));
  }

  listDeliveries(webhookId: string, limit: number, beforeId?: number): Promise<Delivery[]> {
    return this.connection.read(async () => events.listDeliveries(this.sql, webhookId, limit, beforeId));
  }

  findDelivery(webhookId: string, id: number): Promise<Delivery | undefined> {
    return this.connection.read(async () => events.findDelivery(this.sql, webhookId, id));
  }

  addDeliveries(deliveries: readonly NewDelivery[]): Promise<number> {
    return this.connection.bookkeeping(() => events.addDeliveries(this.sql, deliveries));
  }

  async claimLanes(owner: string, nowMs: number, leaseUntilMs: number, limit: number, busy: readonly string[]): Promise<Lane[]> {
    // Most ticks find nothing due: asked with a read, so that they take no write lock.
    if (!(await this.connection.lock.run(async () => events.claimable(this.sql, nowMs, busy)))) return [];
    return this.connection.bookkeeping(() => events.claimLanes(this.sql, owner, nowMs, leaseUntilMs, limit, busy));
  }

  saveLane(owner: string, webhookId: string, blocId: string, progress: LaneProgress, deliveries: readonly NewDelivery[],
    leaseUntilMs: number): Promise<boolean> {
    return this.connection.bookkeeping(() => events.saveLane(this.sql, owner, webhookId, blocId, progress, deliveries, leaseUntilMs));
  }

  retryLaneNow(webhookId: string, blocId: string): Promise<void> {
    return this.connection.bookkeeping(() => events.retryLaneNow(this.sql, webhookId, blocId));
  }

  pruneEvents(beforeMs: number, limit: number): Promise<number> {
    return this.connection.bookkeeping(() => events.pruneEvents(this.sql, beforeMs, limit));
  }

  pruneDeliveries(keep: number, limit: number): Promise<number> {
    return this.connection.bookkeeping(() => events.pruneDeliveries(this.sql, keep, limit));
  }
}

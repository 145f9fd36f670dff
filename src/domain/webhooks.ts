import crypto from "node:crypto";
import type { Context } from "./context.js";
import { InvalidInputError, NotFoundError } from "./errors.js";
import { EVENT_TYPES, RECORD_EVENT_TYPES, eventBody, isEventType, type EventType } from "./events.js";
import type { Delivery, NewDelivery, StoredEvent, Webhook } from "./ports/store.js";

/**
 * Webhooks: an admin names a URL, the blocs and the event types it wants; every such
 * event is POSTed to it as JSON, signed with the webhook's secret, in order per bloc,
 * until the receiver acknowledges it with a 2xx (events/dispatcher.ts delivers them).
 */

/** What a delivery attempt needs: the receiver's answer, or why there was none. */
export interface SendResult {
  readonly statusCode: number | null;
  readonly error: string | null;
  readonly durationMs: number;
}

/** Sends one request to a receiver (events/sender.ts); given to the domain so that it stays free of the network. */
export type Send = (url: string, body: string, headers: Readonly<Record<string, string>>, signal?: AbortSignal) => Promise<SendResult>;

/** Attempts a webhook's log keeps (the newest): enough to see a receiver's story, bounded whatever the traffic. */
export const KEPT_DELIVERIES = 10_000;
/** The longest wait between two attempts at one event. */
export const MAX_RETRY_DELAY_MS = 60 * 60 * 1000;

const MIN_SECRET = 16;
const MAX_SECRET = 256;
const MAX_URL = 2048;
const MAX_BLOCS = 1000;

/** `sha256=<hex>`: HMAC-SHA256 of the exact body bytes, keyed with the webhook's secret. */
function signature(secret: string, body: string): string {
  return `sha256=${crypto.createHmac("sha256", secret).update(body).digest("hex")}`;
}

/** The headers of one delivery: what it is, and the proof that it comes from this service. */
export function deliveryHeaders(webhook: Webhook, event: StoredEvent, body: string, attempt: number): Record<string, string> {
  return {
    "content-type": "application/json",
    "user-agent": "bloc-data-service",
    "x-bloc-event-id": event.id,
    "x-bloc-event-type": event.type,
    "x-bloc-delivery-attempt": String(attempt),
    "x-bloc-signature": signature(webhook.secret, body),
  };
}

/** Whether a receiver's answer acknowledges the event. */
export function acknowledged(result: SendResult): boolean {
  return result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
}

/** The wait after the `failures`-th failed attempt at one event: `firstMs`, doubling each time, at most an hour. */
export function retryDelay(failures: number, firstMs: number): number {
  return Math.min(firstMs * 2 ** Math.min(failures - 1, 40), MAX_RETRY_DELAY_MS);
}

/** A webhook as the admin API and the CLI show it: everything but its secret and the credentials in its URL. */
export interface WebhookInfo {
  readonly id: string;
  readonly url: string;
  readonly blocs: readonly string[] | null;
  readonly events: readonly EventType[];
  readonly createdAt: string;
}

/**
 * The URL with any user name and password in it shown as `***`: deliveries use them, but
 * no listing, answer or log shows them.
 */
function withoutCredentials(href: string): string {
  const url = new URL(href);
  if (url.username === "" && url.password === "") return href;
  url.username = "***";
  url.password = "";
  return url.href;
}

function info(webhook: Webhook): WebhookInfo {
  return { id: webhook.id, url: withoutCredentials(webhook.url), blocs: webhook.blocs, events: webhook.events, createdAt: webhook.createdAt };
}

export interface WebhookInput {
  readonly url: string;
  readonly blocs?: readonly string[] | null | undefined;
  readonly events?: readonly string[] | undefined;
  readonly secret?: string | undefined;
}

function checkUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new InvalidInputError(`url must be an absolute http:// or https:// URL, got ${JSON.stringify(raw.slice(0, 100))}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new InvalidInputError("url must be an http:// or https:// URL");
  if (raw.length > MAX_URL) throw new InvalidInputError(`url must be at most ${MAX_URL} characters`);
  return url.href;
}

function checkEvents(raw: readonly string[] | undefined): EventType[] {
  // Every record event: a receiver mirroring a bloc's records would go wrong without deletions.
  if (raw === undefined) return [...RECORD_EVENT_TYPES];
  if (raw.length === 0) throw new InvalidInputError(`events must name at least one of ${EVENT_TYPES.join(", ")}`);
  const unknown = raw.find((type) => !isEventType(type));
  if (unknown !== undefined) throw new InvalidInputError(`events: "${unknown}" is not one of ${EVENT_TYPES.join(", ")}`);
  return [...new Set(raw as EventType[])];
}

async function checkBlocs(ctx: Context, raw: readonly string[] | null | undefined): Promise<string[] | null> {
  if (raw === undefined || raw === null) return null;
  if (raw.length === 0) throw new InvalidInputError("blocs must name at least one bloc, or be left out for every bloc");
  if (raw.length > MAX_BLOCS) throw new InvalidInputError(`blocs may name at most ${MAX_BLOCS} blocs`);
  const blocs = [...new Set(raw)];
  for (const id of blocs) if (!(await ctx.store.blocs.findBloc(id))) throw new NotFoundError(`Bloc "${id}" does not exist`);
  return blocs;
}

function checkSecret(raw: string | undefined): string {
  if (raw === undefined) return crypto.randomBytes(32).toString("base64url");
  if (raw.length < MIN_SECRET || raw.length > MAX_SECRET || /[^\x21-\x7e]/.test(raw)) {
    throw new InvalidInputError(`secret must be ${MIN_SECRET} to ${MAX_SECRET} printable ASCII characters without spaces`);
  }
  return raw;
}

/**
 * A new webhook. It receives the events committed from now on (each bloc's lane starts
 * after its last event); without `blocs`, those of every bloc, including blocs made
 * later. The secret is the one given, else a generated one: either way it is in the
 * answer, and never shown again.
 */
export async function createWebhook(ctx: Context, input: WebhookInput): Promise<WebhookInfo & { readonly secret: string }> {
  const url = checkUrl(input.url);
  const events = checkEvents(input.events);
  const secret = checkSecret(input.secret);
  const blocs = await checkBlocs(ctx, input.blocs);
  const webhook: Webhook = { id: crypto.randomUUID(), url, blocs, events, secret, createdAt: ctx.now() };
  await ctx.store.transaction((tx) => tx.events.createWebhook(webhook));
  return { ...info(webhook), secret };
}

export async function listWebhooks(ctx: Context): Promise<WebhookInfo[]> {
  return (await ctx.store.events.listWebhooks()).map(info);
}

async function requireWebhook(ctx: Context, id: string): Promise<Webhook> {
  const webhook = await ctx.store.events.findWebhook(id);
  if (!webhook) throw new NotFoundError(`Webhook "${id}" does not exist`);
  return webhook;
}

export async function deleteWebhook(ctx: Context, id: string): Promise<void> {
  if (!(await ctx.store.events.deleteWebhook(id))) throw new NotFoundError(`Webhook "${id}" does not exist`);
}

/** A webhook's attempts, newest first. */
export async function listDeliveries(ctx: Context, id: string, limit: number, beforeId?: number): Promise<Delivery[]> {
  await requireWebhook(ctx, id);
  return ctx.store.events.listDeliveries(id, limit, beforeId);
}

function toDeliveryId(raw: string): number {
  if (!/^[1-9]\d{0,15}$/.test(raw)) throw new NotFoundError(`Delivery "${raw}" does not exist`);
  return Number(raw);
}

/**
 * Sends a logged delivery's event again, now, once, and logs the attempt ("resent" when
 * acknowledged, else "resend-failed"). The event's lane, if it is waiting to retry, is
 * made due now: a receiver that was down and is back gets the rest without waiting.
 */
export async function resendDelivery(ctx: Context, send: Send, webhookId: string, deliveryId: string): Promise<Delivery> {
  const webhook = await requireWebhook(ctx, webhookId);
  const logged = await ctx.store.events.findDelivery(webhookId, toDeliveryId(deliveryId));
  if (!logged) throw new NotFoundError(`Delivery "${deliveryId}" does not exist`);
  const event = await ctx.store.events.findEvent(logged.blocId, logged.seq);
  if (!event) throw new NotFoundError(`The event of delivery "${deliveryId}" is no longer kept (BLOC_EVENTS_KEEP_HOURS)`);
  const body = eventBody(event);
  const attempt = logged.attempt + 1;
  const at = ctx.now();
  const result = await send(webhook.url, body, deliveryHeaders(webhook, event, body, attempt));
  const entry: NewDelivery = {
    webhookId, blocId: event.blocId, seq: event.seq, eventId: event.id, type: event.type, attempt, at, ...result,
    outcome: acknowledged(result) ? "resent" : "resend-failed",
  };
  const id = await ctx.store.events.addDeliveries([entry]);
  ctx.telemetry.webhookAttempt(entry.outcome);
  await ctx.store.events.retryLaneNow(webhookId, event.blocId);
  return { id, ...entry };
}

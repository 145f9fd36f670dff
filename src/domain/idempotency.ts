import crypto from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { ConflictError, IdempotencyMismatchError, InvalidInputError } from "./errors.js";
import type { Context } from "./context.js";
import type { Store, Tx } from "./ports/store.js";
import type { AddedRecord, Replacement } from "./record-writes.js";
import { claimIdempotencyKey } from "./capabilities.js";

/**
 * Safe retries of add-data. A client names a request with an Idempotency-Key; the first
 * request with that key from that user adds its record, and the key (its hash), the
 * request's hash and the answer are written in the record's transaction, so that one is
 * never kept without the other. A repeat within the retention time answers what the
 * first one answered and adds nothing; the same key with another request is refused.
 * Only successes are kept: a refused request may be corrected and sent again.
 */

/** Printable ASCII, at most 255 characters. */
const KEY = /^[\x20-\x7e]{1,255}$/;
/** How long a request waits for another one with its key (in another transaction) to finish. */
const BUSY_LIMIT_MS = 30_000;
/** Expired keys are deleted at most this often per process. */
const PURGE_EVERY_MS = 60_000;

/** The key of a request and what identifies the request itself. */
export interface IdempotentRequest {
  readonly keyHash: string;
  readonly requestHash: string;
}

/** What a request is, for telling a repeat from another request under the same key. */
export interface RequestContent {
  readonly blocId: string;
  readonly jobId: string | null;
  readonly values: Readonly<Record<string, unknown>>;
  readonly submittedStatus: number;
  /** Each file part: its field and the SHA-256 of its content. */
  readonly files: readonly { readonly slug: string; readonly sha256: string }[];
}

function byText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function sha256(text: string): string {
  return crypto.createHash("sha256").update(text, "utf8").digest("hex");
}

/** JSON with every object's keys sorted: one text for one value, whatever order a client wrote. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => byText(a, b));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** The Idempotency-Key header, checked; undefined when the request has none. */
export function checkIdempotencyKey(header: string | readonly string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  if (typeof header !== "string" || !KEY.test(header)) {
    throw new InvalidInputError("Idempotency-Key must be 1 to 255 printable ASCII characters");
  }
  return header;
}

/** A request's key and content as hashes; undefined when it has no key. */
export function idempotentRequest(key: string | undefined, content: RequestContent): IdempotentRequest | undefined {
  const checked = checkIdempotencyKey(key);
  if (checked === undefined) return undefined;
  const files = content.files.map((f) => [f.slug, f.sha256] as const).sort(([a], [b]) => byText(a, b));
  return {
    keyHash: sha256(checked),
    requestHash: sha256(canonical([content.blocId, content.jobId, content.values, content.submittedStatus, files])),
  };
}

/** Another transaction holds the key: this one ends, and the request tries again once that one has. */
class KeyBusy extends Error {}

/** When each open store last had its expired keys deleted by this process. */
const lastPurge = new WeakMap<Store, number>();

/** Deletes expired keys now and then; a key found expired before then is simply replaced. */
async function purgeExpired(ctx: Context, now: number): Promise<void> {
  if (now - (lastPurge.get(ctx.store) ?? 0) < PURGE_EVERY_MS) return;
  lastPurge.set(ctx.store, now);
  await ctx.store.idempotency.purgeIdempotencyKeys(now - ctx.idempotencyMs);
}

/**
 * Runs `insert` once per user and key: in one transaction, checks the key, then inserts
 * and keeps the key with the answer. Returns the answer and whether it is a repeat's.
 */
export async function addOnce(
  ctx: Context, userId: string, request: IdempotentRequest, group: string, insert: (tx: Tx) => Promise<AddedRecord>,
): Promise<{ readonly answer: AddedRecord; readonly repeat: boolean }> {
  await purgeExpired(ctx, Date.now());
  const deadline = Date.now() + BUSY_LIMIT_MS;
  for (let wait = 5; ; wait = Math.min(wait * 2, 200)) {
    try {
      return await ctx.store.transaction(async (tx) => {
        if (!(await claimIdempotencyKey(tx, userId, request.keyHash))) throw new KeyBusy();
        const now = Date.now();
        const kept = await tx.idempotency.findIdempotencyKey(userId, request.keyHash, now - ctx.idempotencyMs);
        if (kept) {
          if (kept.requestHash !== request.requestHash) {
            throw new IdempotencyMismatchError("This Idempotency-Key was already used with a different request; use a new key for a new request");
          }
          const replacements = JSON.parse(kept.replacements) as Replacement[];
          return { answer: { id: kept.recordId, autogenerateReplacements: replacements }, repeat: true };
        }
        const answer = await insert(tx);
        await tx.idempotency.saveIdempotencyKey({
          userId, keyHash: request.keyHash, requestHash: request.requestHash, recordId: answer.id,
          replacements: JSON.stringify(answer.autogenerateReplacements), createdMs: now,
        });
        return { answer, repeat: false };
      }, { group });
    } catch (error) {
      if (!(error instanceof KeyBusy)) throw error;
      if (Date.now() >= deadline) {
        throw new ConflictError("A request with this Idempotency-Key is still being processed; retry it later");
      }
      await sleep(wait);
    }
  }
}

import type { StoredRecord } from "../../src/domain/model.js";
import { importRecords } from "../../src/domain/record-writes.js";
import type { TestServer } from "./server.js";
import { expiredTokenThroughApi } from "./expired-token.js";

/** A record inserted straight through the real store, with a chosen `created_at`. */
export async function insertAt(
  server: TestServer, blocId: string, createdAt: string, values: Record<string, string>, userId = "seed-user",
): Promise<number> {
  const [id] = await server.ctx.store.transaction((tx) =>
    importRecords(tx, [{ blocId, createdAt, userId, submittedStatus: 1, jobId: null, values }]));
  return id!;
}

/** Every record of a bloc as stored, oldest first. */
export function storedRecords(server: TestServer, blocId: string): Promise<StoredRecord[]> {
  return server.ctx.store.records.listRecords({ blocId }, { order: "oldest", limit: 1_000_000, offset: 0 });
}

/** A new token for a user through the admin API; returns its id and secret. */
export async function issueToken(
  server: TestServer, userId: string, body: { name?: string; expiresAt?: string } = {},
): Promise<{ id: string; token: string }> {
  const reply = await server.call("POST", `/api/admin/users/${userId}/tokens`, { json: body });
  if (reply.status !== 201) throw new Error(`creating a token answered ${reply.status} ${reply.text}`);
  return { id: reply.json.id as string, token: reply.json.token as string };
}

/** A revoked token of a user: issued, then deleted through the admin API. */
export async function revokedToken(server: TestServer, userId: string): Promise<string> {
  const issued = await issueToken(server, userId);
  const reply = await server.call("DELETE", `/api/admin/tokens/${issued.id}`);
  if (reply.status !== 204) throw new Error(`revoking a token answered ${reply.status} ${reply.text}`);
  return issued.token;
}

/** A token that has expired (support/expired-token.ts: the API refuses a past expiresAt). */
export async function expiredToken(server: TestServer, userId: string): Promise<string> {
  return (await expiredTokenThroughApi(server.url, server.adminToken, userId)).token;
}

/** The keys of an object, sorted, for exact-shape assertions. */
export function keysOf(value: object): string[] {
  return Object.keys(value).sort();
}

/** A deterministic shuffle (LCG), so that record IDs and creation times disagree in a reproducible way. */
export function shuffled<T>(items: readonly T[], seed = 12345): T[] {
  const out = [...items];
  let state = seed >>> 0;
  for (let i = out.length - 1; i > 0; i -= 1) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    const j = state % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** `YYYY-MM-DD HH:MM:SS` for a base instant plus some seconds, in UTC. */
export function stamp(base: string, plusSeconds: number): string {
  const ms = Date.parse(`${base.replace(" ", "T")}Z`) + plusSeconds * 1000;
  return new Date(ms).toISOString().slice(0, 19).replace("T", " ");
}

import assert from "node:assert/strict";
import type { TestServer } from "./server.js";
import type { JsonBody } from "./json.js";

/** An admin API call that must succeed; its JSON answer. */
export async function asAdmin(server: TestServer, method: string, path: string, json?: unknown): Promise<JsonBody> {
  const reply = await server.call(method, path, json === undefined ? {} : { json });
  assert.ok(reply.status < 300, `${method} ${path}: ${reply.status} ${reply.text}`);
  return reply.json;
}

/** A member with a profile, a grant on `blocId` (none when null) and a token of their own. */
export async function addReader(server: TestServer, blocId: string, name: string, grant: Record<string, boolean> | null,
  profile?: string[]): Promise<{ id: string; token: string }> {
  const made = await asAdmin(server, "POST", "/api/admin/users", { name, role: "member" });
  if (profile) await asAdmin(server, "PUT", `/api/admin/users/${made.id}`, { profile });
  if (grant) await asAdmin(server, "PUT", `/api/admin/blocs/${blocId}/access/${made.id}`, grant);
  return { id: made.id as string, token: (await asAdmin(server, "POST", `/api/admin/users/${made.id}/tokens`, {})).token as string };
}

import type { Prng } from "./prng.js";
import { encodeUrlPart, type Shape } from "./request.js";
import type { World } from "./world.js";

/** The kinds of ID a path names; each has existing values and unknown ones (test/fuzz/unknown.ts). */
export type IdKind = "user" | "role" | "bloc" | "token" | "slug" | "fileRef";

/** A route of the admin API (or another route a token may call), with a request it would accept. */
export interface RouteSpec {
  readonly method: string;
  readonly template: string;
  readonly shape: Shape;
  /** Path parameters in template order. */
  readonly ids: readonly IdKind[];
  /** Keys the body schema allows (additionalProperties is false): anything else is refused. */
  readonly allowedKeys?: readonly string[];
  /** A body the route accepts; absent when it takes none. */
  readonly body?: (rng: Prng, world: World) => Record<string, unknown>;
}

const SETTINGS_KEYS = ["openToAllUsers", "acceptingData", "restriction", "moduleId", "requireJob", "scanLimit", "scanLimitPeriod"];
const FIELD_KEYS = ["name", "slug", "applyProfileFilter", "type", "options", "required", "unique", "maxLength", "pattern", "format", "indexed"];
const GRANT_KEYS = ["read", "add", "update", "delete", "seeHidden"];

function grant(rng: Prng): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const key of GRANT_KEYS) if (rng.chance(0.5)) body[key] = rng.chance(0.5);
  return body;
}

export function validField(rng: Prng): Record<string, unknown> {
  return rng.pick<Record<string, unknown>>([
    { name: "Extra" }, { name: "Count", type: "number", required: true }, { name: "Kind", type: "select", options: ["x", "y"] },
    { name: "Ref", type: "autogenerate", format: "R-{seq:3}" }, { name: "Code", unique: true, pattern: "[a-z]+", maxLength: 9 },
  ]);
}

export const ADMIN_ROUTES: readonly RouteSpec[] = [
  { method: "POST", template: "/api/admin/users", shape: "admin", ids: [], allowedKeys: ["name", "role"],
    body: (rng) => ({ name: "New user", ...(rng.chance(0.5) ? { role: rng.pick(["admin", "member"]) } : {}) }) },
  { method: "GET", template: "/api/admin/users/:userId", shape: "admin", ids: ["user"] },
  { method: "PUT", template: "/api/admin/users/:userId", shape: "admin", ids: ["user"], allowedKeys: ["profile"],
    body: () => ({ profile: ["Dublin", "Galway"] }) },
  { method: "POST", template: "/api/admin/users/:userId/tokens", shape: "admin", ids: ["user"],
    allowedKeys: ["name", "expiresAt", "permissions", "blocs"],
    body: (rng, w) => rng.pick([{}, { name: "t" }, { permissions: ["read"], blocs: [w.main.id] }, { expiresAt: "2030-01-01" }]) },
  { method: "DELETE", template: "/api/admin/tokens/:tokenId", shape: "admin", ids: ["token"] },
  { method: "POST", template: "/api/admin/roles", shape: "admin", ids: [], allowedKeys: ["name"], body: () => ({ name: "New role" }) },
  { method: "GET", template: "/api/admin/roles", shape: "admin", ids: [] },
  { method: "PUT", template: "/api/admin/users/:userId/roles/:roleId", shape: "admin", ids: ["user", "role"] },
  { method: "DELETE", template: "/api/admin/users/:userId/roles/:roleId", shape: "admin", ids: ["user", "role"] },
  { method: "POST", template: "/api/admin/modules", shape: "admin", ids: [], allowedKeys: ["name"], body: () => ({ name: "New module" }) },
  { method: "GET", template: "/api/admin/modules", shape: "admin", ids: [] },
  { method: "POST", template: "/api/admin/blocs", shape: "admin", ids: [], allowedKeys: ["name", "fields", "id", ...SETTINGS_KEYS],
    body: (rng) => ({ name: "New bloc", fields: [validField(rng), { name: "Other" }] }) },
  { method: "GET", template: "/api/admin/blocs", shape: "admin", ids: [] },
  { method: "GET", template: "/api/admin/blocs/:blocId", shape: "admin", ids: ["bloc"] },
  { method: "PATCH", template: "/api/admin/blocs/:blocId", shape: "admin", ids: ["bloc"], allowedKeys: SETTINGS_KEYS,
    body: (rng) => rng.pick([{ acceptingData: true }, { restriction: "none" }, { scanLimit: null }]) },
  { method: "POST", template: "/api/admin/blocs/:blocId/fields", shape: "admin", ids: ["bloc"], allowedKeys: FIELD_KEYS,
    body: (rng) => validField(rng) },
  { method: "PATCH", template: "/api/admin/blocs/:blocId/fields/:slug", shape: "admin", ids: ["bloc", "slug"],
    allowedKeys: FIELD_KEYS.filter((k) => k !== "slug"), body: () => ({ name: "Renamed" }) },
  { method: "PUT", template: "/api/admin/blocs/:blocId/access/:userId", shape: "admin", ids: ["bloc", "user"], allowedKeys: GRANT_KEYS,
    body: (rng) => grant(rng) },
  { method: "DELETE", template: "/api/admin/blocs/:blocId/access/:userId", shape: "admin", ids: ["bloc", "user"] },
  { method: "PUT", template: "/api/admin/blocs/:blocId/access/roles/:roleId", shape: "admin", ids: ["bloc", "role"], allowedKeys: GRANT_KEYS,
    body: (rng) => grant(rng) },
  { method: "DELETE", template: "/api/admin/blocs/:blocId/access/roles/:roleId", shape: "admin", ids: ["bloc", "role"] },
  { method: "PUT", template: "/api/admin/blocs/:blocId/restrictions/:userId", shape: "admin", ids: ["bloc", "user"], allowedKeys: ["mode"],
    body: (rng) => ({ mode: rng.pick(["none", "own", "hidden"]) }) },
  { method: "DELETE", template: "/api/admin/blocs/:blocId/restrictions/:userId", shape: "admin", ids: ["bloc", "user"] },
  { method: "POST", template: "/api/admin/webhooks", shape: "admin", ids: [], allowedKeys: ["url", "blocs", "events", "secret"],
    body: (_rng, w) => ({ url: "http://127.0.0.1:9/hook", blocs: [w.main.id] }) },
];

/** Routes any token may call (no admin role needed). */
export const PUBLIC_ROUTES: readonly RouteSpec[] = [
  { method: "GET", template: "/api/me", shape: "public", ids: [] },
  { method: "GET", template: "/api/files/:ref", shape: "public", ids: ["fileRef"] },
  // Only ever with an unknown bloc here: a stream of a readable bloc would not end.
  { method: "GET", template: "/api/events?blocId=:blocId", shape: "public", ids: ["bloc"] },
];

/** An existing ID of a kind (the main bloc's, and a field slug of it). */
export function existingId(rng: Prng, world: World, kind: IdKind): string {
  switch (kind) {
    case "user": return rng.pick([...world.existing.users]);
    case "role": return world.roleId;
    case "bloc": return world.main.id;
    case "token": return rng.pick([...world.existing.tokens]);
    case "slug": return rng.pick(world.main.allSlugs);
    case "fileRef": return world.main.fileRef;
  }
}

/** The path with each `:param` replaced, in order, by the given values (encoded). */
export function fillPath(template: string, values: readonly string[]): string {
  let index = 0;
  return template.replace(/:[A-Za-z]+/g, () => encodeUrlPart(values[index++] ?? ""));
}

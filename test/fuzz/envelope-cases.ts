import type { Prng } from "./prng.js";
import { bearer, BODY_LIMIT, newDraft, type Draft } from "./request.js";
import type { World } from "./world.js";
import { validAdd } from "./add-data-cases.js";
import { validGetData, validReport } from "./read-cases.js";
import { validUpdate } from "./update-cases.js";
import { ADMIN_ROUTES, existingId, PUBLIC_ROUTES, type RouteSpec } from "./admin-routes.js";
import { routeDraft } from "./admin-cases.js";
import { setKey } from "./json-text.js";
import type { Case } from "./case-kit.js";

/**
 * Requests the service would accept, broken at the HTTP level: the credentials, the
 * content type, the JSON text, the body's size, or how the body arrives. Any route can
 * be broken this way, so each case first makes a valid request to some route.
 */


type Want = "any" | "body" | "bodiless";

/** A request some route would accept, with a token allowed to make it. */
function validRequest(rng: Prng, world: World, want: Want, category: string): Draft {
  const withBody = (r: RouteSpec): boolean => r.body !== undefined;
  const kinds = want === "bodiless" ? ["route"] : ["add", "get", "report", "update", "route"];
  const kind = rng.pick(kinds);
  const data = (route: string, shape: Draft["shape"], method: string, path: string, token: string, params: Record<string, unknown>): Draft =>
    newDraft({ route: `${method} ${route}`, shape, category, method, path, authorization: bearer(token), params, extraKeysIgnored: true });
  const readMethod = rng.chance(0.75) ? "GET" : "POST";
  switch (kind) {
    case "add": {
      const v = validAdd(rng, world);
      return data("/api/add-data", "add-data", "POST", "/api/add-data", v.token, v.params);
    }
    case "get":
      return data("/api/get-data", "get-data", readMethod, "/api/get-data", rng.pick([world.tokens.admin, world.tokens.reader]), validGetData(rng, world));
    case "report":
      return data("/api/get-data-report", "get-data-report", readMethod, "/api/get-data-report", world.tokens.admin, validReport(rng, world).params);
    case "update": {
      const v = validUpdate(rng, world);
      return data("/api/update-records-by-matching-values", "update-records", "POST", "/api/update-records-by-matching-values", v.token, v.params);
    }
    default: {
      const pool = [...ADMIN_ROUTES, ...PUBLIC_ROUTES].filter((r) => want === "any" || (want === "body") === withBody(r));
      const route = rng.pick(pool);
      const ids = route.ids.map((kind) => existingId(rng, world, kind));
      return routeDraft(route, category, ids, world.tokens.admin, route.body?.(rng, world));
    }
  }
}

function envelope(name: string, weight: number, want: Want, breakIt: (rng: Prng, world: World, draft: Draft) => void): Case {
  return {
    name, weight,
    build(rng, world) {
      const draft = validRequest(rng, world, want, `envelope/${name}`);
      breakIt(rng, world, draft);
      return draft;
    },
  };
}

/** Authorization headers that name no usable token (each unlike what the service's Bearer pattern accepts as a known token). */
function badAuthorization(rng: Prng, world: World): string | undefined {
  const valid = world.tokens.admin;
  return rng.pick<string | undefined>([
    undefined, "Bearer", "Bearer ", "Basic dXNlcjpwYXNz", `Bearer${valid}`, `Token ${valid}`, valid, `Bearer ${valid} extra`,
    `Bearer ${valid}x`, `Bearer ${valid.slice(0, -1)}`, `Bearer bds_${rng.uint32().toString(36)}${rng.uint32().toString(36)}`,
    `Bearer 'OR'1'='1`, `Bearer ${"A".repeat(8000)}`, "Bearer null", "Bearer undefined", `Bearer ${world.tokens.revoked}`,
    `Bearer ${world.tokens.expired}`, "Bearer %00", `Bearer ${encodeURIComponent("bds_ü")}`,
  ]);
}

/** Media types that are not JSON; add-data also takes multipart/form-data, so that one is never used. */
const NOT_JSON = ["application/xml", "text/csv", "application/x-www-form-urlencoded", "application/octet-stream", "text/html",
  "multipart/mixed; boundary=x", "image/png", "application/javascript", "text/xml; charset=utf-8", "application/yaml"];

/** JSON text made invalid: cut short, followed by garbage, or written as JavaScript; checked to be invalid. */
function malform(rng: Prng, body: Buffer): Buffer {
  for (let attempt = 0; attempt < 8; attempt += 1) {
    const candidate = malformOnce(rng, body);
    try {
      JSON.parse(candidate.toString("utf8"));
    } catch {
      return candidate;
    }
  }
  return Buffer.concat([body, Buffer.from(" x")]);
}

function malformOnce(rng: Prng, body: Buffer): Buffer {
  const text = body.toString("latin1");
  switch (rng.below(6)) {
    // Every strict prefix of an object's JSON text lacks its closing brace; never empty.
    case 0: return body.subarray(0, 1 + rng.below(Math.max(1, body.length - 1)));
    case 1: return Buffer.concat([body, Buffer.from(rng.pick([" x", "}", ",", "{}", " // c", "\u0000"]))]);
    case 2: return Buffer.from(text.replace(/"/, "'"), "latin1");
    case 3: return Buffer.from(`/* c */${text}`, "latin1");
    case 4: return Buffer.from(text.replace("{\"", "{"), "latin1");
    default: return Buffer.from(text.replace(/:/, ":NaN,\"z\":"), "latin1");
  }
}

/** A padding key that takes the body over the limit; sent whole before the answer is read. */
function oversize(rng: Prng, d: Draft): void {
  d.params ??= {};
  setKey(d.params, "padding", "x".repeat(BODY_LIMIT + rng.between(1, 3 * BODY_LIMIT)));
  d.protectedKeys.add("padding");
  d.transport = rng.chance(0.7) ? { kind: "whole-body-first" } : { kind: "chunked" };
}

export const ENVELOPE_CASES: readonly Case[] = [
  envelope("auth-missing-or-malformed", 4, "any", (rng, world, d) => { d.authorization = badAuthorization(rng, world); }),
  envelope("auth-forbidden", 3, "any", (rng, world, d) => {
    const t = world.tokens;
    if (d.shape === "admin") d.authorization = bearer(rng.pick([t.writer, t.reader, t.outsider, t.adminScoped, t.writerReadOnly]));
    else if (d.shape === "public") d.authorization = bearer(t.revoked);
    else d.authorization = bearer(t.outsider);
  }),
  envelope("content-type-text-plain", 2, "body", (_rng, _w, d) => { d.contentType = "text/plain"; }),
  envelope("content-type-not-json", 2, "body", (rng, _w, d) => { d.contentType = rng.pick(NOT_JSON); }),
  envelope("malformed-json", 4, "body", (rng, _w, d) => { d.bodyTransform = (body) => malform(rng, body); }),
  envelope("body-not-object", 2, "body", (rng, _w, d) => {
    d.params = undefined;
    d.rawBody = Buffer.from(rng.pick(["[]", "[{}]", "\"text\"", "5", "true", "-1e400", "[[[[[[]]]]]]"]));
  }),
  envelope("oversized", 1.2, "body", (rng, _w, d) => {
    if (d.method === "GET") Object.assign(d, { method: "POST", route: d.route.replace(/^GET /, "POST ") });
    oversize(rng, d);
  }),
  envelope("oversized-get", 0.6, "body", (rng, world, d) => {
    const report = rng.chance(0.5);
    Object.assign(d, {
      method: "GET", route: `GET /api/get-data${report ? "-report" : ""}`, path: `/api/get-data${report ? "-report" : ""}`,
      shape: report ? "get-data-report" : "get-data", authorization: bearer(world.tokens.admin),
      params: report ? validReport(rng, world).params : validGetData(rng, world),
    });
    oversize(rng, d);
  }),
  envelope("truncated-body", 1.5, "body", (rng, _w, d) => {
    d.transport = { kind: "truncated", keep: rng.float() * 0.999 };
  }),
];

/** Oversized bodies on routes that take none (GET and DELETE): 413 "on every endpoint", once http-limits lands. */
export const OVERSIZED_BODILESS_CASES: readonly Case[] = [
  envelope("oversized-bodiless", 1, "bodiless", (rng, _w, d) => {
    d.params = { padding: "x".repeat(BODY_LIMIT + rng.between(1, 2 * BODY_LIMIT)) };
    d.transport = rng.chance(0.7) ? { kind: "whole-body-first" } : { kind: "chunked" };
  }),
];

/** Bodies that trickle in far slower than BLOC_REQUEST_TIMEOUT_MS allows: 408 once http-limits lands. */
export const SLOW_CASES: readonly Case[] = [
  envelope("slow-body", 1, "body", (rng, _w, d) => {
    d.transport = { kind: "slow", keep: rng.float() * 0.9, intervalMs: 400 };
  }),
];

/**
 * A request line over Node's 16 KiB header limit: answered 431 by Fastify's client-error
 * handler, which then destroys the socket without saying `Connection: close`, so a
 * keep-alive client's next request on it fails.
 */
export const HUGE_URL_CASES: readonly Case[] = [
  envelope("huge-url", 1, "any", (rng, _w, d) => {
    // 20 to 60 KB once encoded: over the 16 KiB limit, yet written whole before the answer (a longer
    // request line would be cut by the server's close while Node's client is still writing it, and Node
    // drops an answer it has not read when its write fails).
    const unit = rng.pick(["b", "é", "%"]);
    const encoded = encodeURIComponent(unit).length;
    d.query.push([rng.pick(["blocId", "stationID", "x"]), unit.repeat(Math.floor(rng.pick([20_000, 40_000, 60_000]) / encoded))]);
  }),
];

/** Paths and methods no route serves. */
export const UNKNOWN_ROUTE_CASES: readonly Case[] = [{
  name: "unknown-route", weight: 1,
  build(rng, world) {
    const [method, path] = rng.pick<readonly [string, string]>([
      ["DELETE", "/api/add-data"], ["PUT", "/api/get-data"], ["PATCH", "/api/get-data-report"], ["GET", "/api/update-records-by-matching-values"],
      ["GET", "/api/add-data/x"], ["POST", "/api/get-data2"], ["GET", "/api/admin"], ["GET", "/api/admin/blocs/x/unknown"],
      ["POST", "/api/ADD-DATA"], ["GET", "/api/%00"], ["GET", "/"], ["GET", "/api/openapi.json/x"], ["DELETE", "/api/admin/blocs/fuzz_main"],
      ["POST", "/api/admin/users/1"], ["GET", `/api/${"a".repeat(3000)}`], ["OPTIONS", "/api/add-data"], ["GET", "/api/admin/blocs/fuzz_main/fields"],
      ["TRACE", "/api/me"], ["GET", "/api/files"], ["GET", "/api/files/"],
    ]);
    const draft = newDraft({
      route: "unknown route", shape: "public", category: "envelope/unknown-route", method, path,
      authorization: rng.chance(0.7) ? bearer(world.tokens.admin) : undefined,
    });
    if (method !== "GET" && method !== "OPTIONS" && method !== "TRACE" && rng.chance(0.5)) draft.params = { blocId: world.main.id };
    return draft;
  },
}];

import type { Prng } from "./prng.js";
import { bearer, newDraft, type Draft } from "./request.js";
import type { World } from "./world.js";
import { objectOf, RawJson } from "./json-text.js";
import { IMPOSSIBLE_DATES, SQL_TEXT } from "./nasty.js";
import { isUnknown, unknownId } from "./unknown.js";
import { ADMIN_ROUTES, existingId, fillPath, PUBLIC_ROUTES, validField, type IdKind, type RouteSpec } from "./admin-routes.js";
import { deepValue, hugeId, unknownBlocId, unknownSlug, type Case } from "./case-kit.js";

const BAD_NAMES: readonly unknown[] = ["", "   ", "\t\n", "x".repeat(201), 5, null, [], {}, true, ["name"]];
const BAD_BOOLEANS: readonly unknown[] = ["yes", "true", 1, 0, null, [], {}, "false"];
const RESERVED_SLUGS = ["created_at", "user_id", "submitted_status", "service_entry_row_id", "time_stamp", "date_stamp",
  "count", "fieldCounts", "countLimitInfo", "fieldNames", "__proto__"];
/** Slugs the slug pattern refuses. */
const MALFORMED_SLUGS: readonly unknown[] = ["a b", "1abc", "x' OR 1=1", "$.x", "a-b", "é", "a".repeat(65), "", "field.1", "a\u0000",
  "-", "data->>'a'", 5, null, [], {}];
/** Names of Object.prototype's properties: valid by the slug pattern, refused once store-findings lands. */
export const PROTOTYPE_SLUGS = ["constructor", "toString", "valueOf", "hasOwnProperty", "isPrototypeOf", "propertyIsEnumerable",
  "toLocaleString", "__defineGetter__", "__lookupGetter__", "__defineSetter__", "__lookupSetter__"];

type Body = Record<string, unknown>;

/**
 * A field definition that breaks one rule whatever field it is applied to: for a patch,
 * every rule that a field's current settings could complete (a select's options, an
 * autogenerate field's format) is given explicitly, so that it is refused on any field.
 */
function badField(rng: Prng, forPatch: boolean): Body {
  const kinds: (() => Body)[] = [
    () => ({ name: "f", type: rng.pick<unknown>(["blob", "TEXT", "", 1, null, ["text"], "file "]) }),
    () => ({ name: "f", type: "select", ...(!forPatch && rng.chance(0.3) ? {} : { options: rng.pick<unknown>([[], null]) }) }),
    () => ({ name: "f", type: "text", options: ["a"] }),
    () => ({ name: "f", type: "select", options: rng.pick<unknown>([["x".repeat(201)], Array.from({ length: 1001 }, (_, i) => `o${i}`), [1], "A,B", [null]]) }),
    () => ({ name: "f", type: "autogenerate", ...(!forPatch && rng.chance(0.3) ? {} : {
      format: rng.pick(["INV-{x}", "{seq:0}", "{seq:16}", "{seq:3}{seq:3}", "{seq:3 by nofield}", "INV-{", "}{seq:2}", "no seq",
        "{YYYY}", "x".repeat(201), "{seq:3 by field_1'}", "{seq:99}"]),
    }) }),
    () => ({ name: "f", type: "text", format: "INV-{seq:3}" }),
    () => ({ name: "f", maxLength: rng.pick<unknown>([0, -1, 1.5, "5", true, new RawJson("1e400")]) }),
    () => ({ name: "f", pattern: rng.pick<unknown>(["(", "[", "\\", "a{2,1}", "(?<n>a)(?<n>b)", "x".repeat(501), 5, "\\p{Nope}", "*"]) }),
    () => ({ name: "f", [rng.pick(["required", "unique", "indexed", "applyProfileFilter"])]: rng.pick(BAD_BOOLEANS) }),
    () => ({ name: rng.pick(BAD_NAMES) }),
    () => objectOf([["name", "f"], [rng.pick(["extra", "__proto__", "id", "position", ...(forPatch ? ["slug"] : [])]), "x"]]),
  ];
  if (!forPatch) {
    // Without a name a new field is refused; a patch may leave the name out.
    kinds.push(() => ({ type: "text" }));
    kinds.push(() => ({ name: "f", slug: rng.pick([...MALFORMED_SLUGS, ...RESERVED_SLUGS]) }));
  }
  return rng.pick(kinds)();
}

function badSettings(rng: Prng, world: World): Body {
  return rng.pick<() => Body>([
    () => ({ [rng.pick(["openToAllUsers", "acceptingData", "requireJob"])]: rng.pick(BAD_BOOLEANS) }),
    () => ({ restriction: rng.pick<unknown>(["all", "", "OWN", 1, null, ["own"]]) }),
    () => ({ moduleId: rng.chance(0.5) ? unknownId(rng, world.existing.modules, 200) : rng.pick<unknown>([0, -5, 1.5, {}, true, []]) }),
    () => ({ scanLimit: rng.pick<unknown>([0, -1, 1.5, "5", true, new RawJson("1e400")]) }),
    () => ({ scanLimitPeriod: rng.pick<unknown>(["year", "", "DAY", 1, []]) }),
  ])();
}

/** An extra key the route's schema does not allow. */
function extraKey(rng: Prng, allowed: readonly string[]): string {
  for (;;) {
    const key = rng.pick(["extra", "__proto__", "constructor", "prototype", "id", "name", "fields", "slug", "role", "admin", ...SQL_TEXT]);
    if (!allowed.includes(key)) return key;
  }
}

/** Bodies that break one rule, per route; each is refused whatever the path names. */
function badBodies(route: RouteSpec, rng: Prng, world: World): { name: string; body: unknown } {
  const allowed = route.allowedKeys ?? [];
  const base = route.body ? route.body(rng, world) : {};
  const generic = (): { name: string; body: unknown } => rng.pick([
    { name: "extra-key", body: objectOf([...Object.entries(base), [extraKey(rng, allowed), rng.pick<unknown>(["x", 1, {}, null])]]) },
    { name: "not-object", body: rng.pick<unknown>([[], [base], "text", 5, true]) },
    { name: "nested-deep", body: objectOf([...Object.entries(base), [rng.pick(allowed.length > 0 ? allowed : ["x"]), deepValue(rng)]]) },
  ]);
  switch (route.template) {
    case "/api/admin/users":
      return rng.pick([
        generic(), { name: "bad-name", body: { ...base, name: rng.pick(BAD_NAMES) } }, { name: "missing-name", body: { role: "member" } },
        { name: "bad-role", body: { name: "u", role: rng.pick<unknown>(["root", "ADMIN", "", 1, null, ["admin"], "admin "]) } },
      ]);
    case "/api/admin/users/:userId":
      return rng.pick([generic(), { name: "missing-profile", body: {} }, {
        name: "bad-profile",
        body: { profile: rng.pick<unknown>(["Dublin", [1], [null], [{}], ["x".repeat(201)], Array.from({ length: 1001 }, () => "a"), {}, null, 5]) },
      }]);
    case "/api/admin/users/:userId/tokens":
      return rng.pick([generic(), rng.pick([
        { name: "bad-name", body: { name: rng.pick<unknown>(["x".repeat(201), 5, null, [], {}]) } },
        { name: "bad-expiresAt", body: { expiresAt: rng.pick<unknown>([...IMPOSSIBLE_DATES, "", 5, null, {}]) } },
        { name: "bad-permissions", body: { permissions: rng.pick<unknown>([[], ["write"], "read", [null], ["READ"], [1], {}, ["read", "admin"]]) } },
        { name: "bad-blocs", body: { blocs: rng.pick<unknown>([[], [unknownBlocId(rng, world)], [-1], [1.5], [{}], world.main.id, [null], [hugeId(rng).slice(0, 5000)]]) } },
      ])]);
    case "/api/admin/roles":
      return rng.pick([generic(), { name: "bad-name", body: { name: rng.pick(BAD_NAMES) } },
        { name: "taken-name", body: { name: rng.pick([world.roleName, ` ${world.roleName} `]) } }]);
    case "/api/admin/modules":
      return rng.pick([generic(), { name: "bad-name", body: { name: rng.pick(BAD_NAMES) } }]);
    case "/api/admin/blocs":
      return rng.pick([
        generic(),
        { name: "bad-name", body: { ...base, name: rng.pick(BAD_NAMES) } },
        { name: "missing-name", body: { fields: base.fields } },
        { name: "bad-id", body: { ...base, id: rng.pick<unknown>([...world.existing.blocs, "a b", "", "x".repeat(65), "é", "a/b", -1, 1.5, true, null, {}, [], "a\u0000"]) } },
        { name: "bad-fields", body: { ...base, fields: rng.pick<unknown>(["x", {}, 5, null, Array.from({ length: 501 }, (_, i) => ({ name: `f${i}` })), ["a"], [5], [null]]) } },
        { name: "bad-field", body: { ...base, fields: [validField(rng), badField(rng, false)] } },
        { name: "duplicate-slugs", body: { ...base, fields: [{ name: "a", slug: "same" }, { name: "b", slug: "same" }] } },
        { name: "bad-settings", body: { ...base, ...badSettings(rng, world) } },
      ]);
    case "/api/admin/blocs/:blocId":
      return rng.pick([generic(), { name: "bad-settings", body: badSettings(rng, world) },
        { name: "not-a-setting", body: objectOf([[rng.pick(["name", "fields", "id", "__proto__"]), rng.pick<unknown>(["x", []])]]) }]);
    case "/api/admin/blocs/:blocId/fields":
      return rng.pick([generic(), { name: "bad-field", body: badField(rng, false) },
        { name: "taken-slug", body: { name: "again", slug: rng.pick(world.main.allSlugs) } }]);
    case "/api/admin/blocs/:blocId/fields/:slug":
      return rng.pick([generic(), { name: "bad-patch", body: badField(rng, true) }]);
    case "/api/admin/blocs/:blocId/access/:userId":
    case "/api/admin/blocs/:blocId/access/roles/:roleId":
      return rng.pick([generic(), { name: "bad-grant", body: { [rng.pick(["read", "add", "update", "delete", "seeHidden"])]: rng.pick(BAD_BOOLEANS) } }]);
    case "/api/admin/webhooks":
      return rng.pick([
        generic(),
        { name: "missing-url", body: { blocs: base.blocs } },
        { name: "bad-url", body: { ...base, url: rng.pick<unknown>(["", "ftp://x.example/", "not a url", "//x", 5, null, [], {}, `http://x.example/${"x".repeat(3000)}`]) } },
        { name: "bad-events", body: { ...base, events: rng.pick<unknown>([[], ["record.removed"], "record.added", [1], [null], ["RECORD.ADDED"], {}]) } },
        { name: "bad-blocs", body: { ...base, blocs: rng.pick<unknown>([[], [unknownBlocId(rng, world)], "x", [1.5], [null], [{}], Array.from({ length: 1001 }, () => world.main.id)]) } },
        { name: "bad-secret", body: { ...base, secret: rng.pick<unknown>(["short", "with a space 123456", "x".repeat(257), "é".repeat(20), 5, null, []]) } },
      ]);
    case "/api/admin/blocs/:blocId/restrictions/:userId":
      return rng.pick([generic(), { name: "bad-mode", body: rng.pick<unknown>([{}, { mode: "all" }, { mode: "" }, { mode: "OWN" }, { mode: 1 }, { mode: null }, { mode: ["own"] }]) }]);
    default:
      return generic();
  }
}

function idsFor(rng: Prng, world: World, route: RouteSpec): string[] {
  return route.ids.map((kind) => existingId(rng, world, kind));
}

function existingOf(world: World, kind: IdKind): ReadonlySet<string> {
  switch (kind) {
    case "user": return world.existing.users;
    case "role": return world.existing.roles;
    case "bloc": return world.existing.blocs;
    case "token": return world.existing.tokens;
    case "slug": return new Set(world.main.allSlugs);
    case "fileRef": return world.existing.fileRefs;
  }
}

function unknownOf(rng: Prng, world: World, kind: IdKind): string {
  if (kind === "slug") {
    for (;;) {
      const slug = unknownSlug(rng, world);
      if (slug !== "" && isUnknown(slug, existingOf(world, kind))) return slug;
    }
  }
  // A file reference longer than 100 characters is refused by the route's schema: still a refusal.
  return unknownId(rng, existingOf(world, kind), 3000);
}

export function routeDraft(route: RouteSpec, category: string, ids: readonly string[], token: string, body: unknown): Draft {
  return newDraft({
    route: `${route.method} ${route.template}`, shape: route.shape, category, method: route.method,
    path: fillPath(route.template, ids), authorization: bearer(token),
    params: body === undefined ? undefined : (body as Record<string, unknown>),
  });
}

/** Every admin and public route, each broken by an unknown ID in its path, and (where it takes one) by a bad body. */
export const ADMIN_CASES: readonly Case[] = [...ADMIN_ROUTES, ...PUBLIC_ROUTES].flatMap((route): Case[] => {
  const label = `${route.method} ${route.template}`;
  const cases: Case[] = route.ids.map((kind, position): Case => ({
    name: `${label} unknown-${kind}`, weight: 1,
    build(rng, world) {
      const ids = idsFor(rng, world, route);
      ids[position] = unknownOf(rng, world, kind);
      const token = route.shape === "public" ? rng.pick([world.tokens.admin, world.tokens.reader, world.tokens.outsider]) : world.tokens.admin;
      return routeDraft(route, `admin/${label} unknown-${kind}`, ids, token, route.body?.(rng, world));
    },
  }));
  if (route.template === "/api/files/:ref") {
    cases.push({
      name: `${label} not-readable`, weight: 1,
      build(rng, world) {
        return routeDraft(route, `admin/${label} not-readable`, [world.main.fileRef], rng.pick([world.tokens.outsider]), undefined);
      },
    });
  }
  if (route.body) {
    cases.push({
      name: `${label} bad-body`, weight: 2,
      build(rng, world) {
        const ids = idsFor(rng, world, route);
        const { name, body } = badBodies(route, rng, world);
        return routeDraft(route, `admin/${label} ${name}`, ids, world.tokens.admin, body);
      },
    });
  }
  return cases;
});

/**
 * Field slugs named after Object.prototype's properties: refused at field creation
 * once store-findings lands (today they are accepted, so this category changes data).
 */
export const PROTOTYPE_SLUG_CASES: readonly Case[] = [{
  name: "prototype-slug", weight: 1,
  build(rng, world) {
    const slug = rng.pick(PROTOTYPE_SLUGS);
    const route = rng.pick(ADMIN_ROUTES.filter((r) => r.method === "POST" &&
      (r.template === "/api/admin/blocs" || r.template === "/api/admin/blocs/:blocId/fields")));
    const body = route.template === "/api/admin/blocs"
      ? { name: "Proto", fields: [{ name: "p", slug }] }
      : { name: "p", slug };
    return routeDraft(route, "admin/prototype-slug", route.ids.map(() => world.main.id), world.tokens.admin, body);
  },
}];

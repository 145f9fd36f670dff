import type { Prng } from "./prng.js";
import { bearer, newDraft, type Draft } from "./request.js";
import type { World } from "./world.js";
import { JsonString, objectOf } from "./json-text.js";
import {
  absent, BAD_DATES, BAD_DATETIMES, BAD_NUMBERS, badOption, badSerialPattern, deepValue, hugeId, jsonParam, unknownBlocId,
  unknownSlug, unstorableValue, wrongTypeId, type Case,
} from "./case-kit.js";

const ROUTE = "/api/update-records-by-matching-values";

interface ValidUpdate {
  readonly token: string;
  readonly params: Record<string, unknown>;
  readonly set: Record<string, unknown>;
  readonly search: Record<string, unknown>;
}

/**
 * An update the service would apply. Its search often matches stored records, so that
 * a broken rule the service failed to catch would show as changed data.
 */
export function validUpdate(rng: Prng, world: World, who: "admin" | "writer" = rng.pick(["admin", "writer"])): ValidUpdate {
  const s = world.main.slugs;
  const set: Record<string, unknown> = {};
  const [slug, value] = rng.pick([[s.number, "7"], [s.requiredText, "P-updated"], [s.select, "B"], [s.number, 2.5]] as const);
  set[slug] = value;
  if (rng.chance(0.3)) set[s.date] = "2026-03-03";
  const search: Record<string, unknown> = rng.pick([
    objectOf([[s.select, world.main.sharedGrade]]), objectOf([["service_entry_row_id", rng.between(1, 18)]]),
    objectOf([[s.unique, rng.pick(world.main.takenSerials)]]), objectOf([[s.requiredText, "P-3"], [s.select, "A"]]),
  ]);
  const params: Record<string, unknown> = { blocId: world.main.id, fieldsToUpdate: jsonParam(rng, set), searchItems: jsonParam(rng, search) };
  return { token: who === "admin" ? world.tokens.admin : world.tokens.writer, params, set, search };
}

function draft(name: string, v: ValidUpdate, protect: readonly string[]): Draft {
  return newDraft({
    route: `POST ${ROUTE}`, shape: "update-records", category: `update-records/${name}`, method: "POST", path: ROUTE,
    authorization: bearer(v.token), params: v.params, extraKeysIgnored: true, protectedKeys: new Set(protect),
  });
}

function setCase(name: string, weight: number, slugOf: (w: World) => string, bad: (rng: Prng, w: World) => unknown): Case {
  return {
    name, weight,
    build(rng, world) {
      const v = validUpdate(rng, world);
      v.set[slugOf(world)] = bad(rng, world);
      return draft(name, v, ["fieldsToUpdate"]);
    },
  };
}

export const UPDATE_CASES: readonly Case[] = [
  {
    name: "blocId-missing", weight: 2,
    build(rng, world) { const v = validUpdate(rng, world); absent(rng, v.params, "blocId"); return draft(this.name, v, ["blocId"]); },
  },
  {
    name: "blocId-wrong-type", weight: 1,
    build(rng, world) { const v = validUpdate(rng, world); v.params.blocId = wrongTypeId(rng); return draft(this.name, v, ["blocId"]); },
  },
  {
    name: "blocId-unknown", weight: 2,
    build(rng, world) { const v = validUpdate(rng, world); v.params.blocId = unknownBlocId(rng, world); return draft(this.name, v, ["blocId"]); },
  },
  {
    name: "blocId-huge", weight: 0.5,
    build(rng, world) { const v = validUpdate(rng, world); v.params.blocId = hugeId(rng); return draft(this.name, v, ["blocId"]); },
  },
  {
    name: "fieldsToUpdate-missing", weight: 1,
    build(rng, world) {
      const v = validUpdate(rng, world);
      if (rng.chance(0.5)) absent(rng, v.params, "fieldsToUpdate"); else v.params.fieldsToUpdate = rng.pick<unknown>([{}, new JsonString({}), "{}"]);
      return draft(this.name, v, ["fieldsToUpdate"]);
    },
  },
  {
    name: "searchItems-missing", weight: 1,
    build(rng, world) {
      const v = validUpdate(rng, world);
      if (rng.chance(0.5)) absent(rng, v.params, "searchItems"); else v.params.searchItems = rng.pick<unknown>([{}, new JsonString({}), "{}"]);
      return draft(this.name, v, ["searchItems"]);
    },
  },
  {
    name: "not-objects", weight: 2,
    build(rng, world) {
      const v = validUpdate(rng, world);
      const key = rng.pick(["fieldsToUpdate", "searchItems"]);
      v.params[key] = rng.pick<unknown>(["[1]", "{bad", 5, true, [], [v.set], "null", "\"x\"", new JsonString([1])]);
      return draft(this.name, v, [key]);
    },
  },
  {
    name: "fieldsToUpdate-unknown-slug", weight: 3,
    build(rng, world) {
      const v = validUpdate(rng, world);
      Object.defineProperty(v.set, unknownSlug(rng, world, ["submitted_status"]), { value: rng.pick<unknown>(["x", 1, null]), enumerable: true });
      return draft(this.name, v, ["fieldsToUpdate"]);
    },
  },
  setCase("fieldsToUpdate-unstorable", 2, (w) => w.main.slugs.number, (rng) => unstorableValue(rng)),
  setCase("rule-number", 2, (w) => w.main.slugs.number, (rng) => rng.pick(BAD_NUMBERS)),
  setCase("rule-date", 1, (w) => w.main.slugs.date, (rng) => rng.pick(BAD_DATES)),
  setCase("rule-datetime", 1, (w) => w.main.slugs.datetime, (rng) => rng.pick(BAD_DATETIMES)),
  setCase("rule-required", 1, (w) => w.main.slugs.requiredText, (rng) => rng.pick(["", null])),
  setCase("rule-file", 1, (w) => w.main.slugs.file, (rng, w) => rng.pick([w.main.fileRef, "x", "../x"])),
  setCase("rule-pattern", 1, (w) => w.main.slugs.unique, (rng) => badSerialPattern(rng)),
  setCase("rule-maxLength", 1, (w) => w.main.slugs.unique, (rng) => "B".repeat(rng.pick([21, 3000]))),
  setCase("rule-select", 1, (w) => w.main.slugs.select, (rng, w) => badOption(rng, w.main.selectOptions)),
  setCase("submitted_status-invalid", 1, () => "submitted_status", (rng) => rng.pick<unknown>([2, -1, "x", {}, [], 1.5, "01", true])),
  {
    name: "rule-unique-many", weight: 2,
    build(rng, world) {
      // Grade A is held by several records: one unique value set on all of them must be refused.
      const v = validUpdate(rng, world, "admin");
      v.search[world.main.slugs.select] = world.main.sharedGrade;
      for (const key of Object.keys(v.search)) if (key !== world.main.slugs.select) delete v.search[key];
      v.set[world.main.slugs.unique] = rng.pick([`FZ-SAME-${rng.below(1000)}`, ...world.main.takenSerials]);
      return draft(this.name, v, ["fieldsToUpdate", "searchItems"]);
    },
  },
  {
    name: "rule-profile", weight: 1,
    build(rng, world) {
      const v = validUpdate(rng, world, "writer");
      v.set[world.main.slugs.profile] = rng.pick(["Cork", "", null, "dublin"]);
      return draft(this.name, v, ["fieldsToUpdate"]);
    },
  },
  {
    name: "searchItems-unknown-slug", weight: 2,
    build(rng, world) {
      const v = validUpdate(rng, world);
      Object.defineProperty(v.search, unknownSlug(rng, world, ["service_entry_row_id", "submitted_status"]), { value: "x", enumerable: true });
      return draft(this.name, v, ["searchItems"]);
    },
  },
  {
    name: "searchItems-unstorable", weight: 1,
    build(rng, world) {
      const v = validUpdate(rng, world);
      v.search[rng.pick([world.main.slugs.select, "service_entry_row_id"])] = unstorableValue(rng);
      return draft(this.name, v, ["searchItems"]);
    },
  },
  {
    name: "denied", weight: 2,
    build(rng, world) {
      const v = validUpdate(rng, world);
      const t = world.tokens;
      const d = draft(this.name, v, []);
      d.authorization = bearer(rng.pick([t.reader, t.outsider, t.writerReadOnly, t.adminScoped]));
      return d;
    },
  },
  {
    name: "nested-deep", weight: 1,
    build(rng, world) {
      const v = validUpdate(rng, world);
      const where = rng.pick(["blocId", "set", "search"]);
      if (where === "blocId") { v.params.blocId = deepValue(rng); return draft(this.name, v, ["blocId"]); }
      (where === "set" ? v.set : v.search)[world.main.slugs.select] = deepValue(rng);
      return draft(this.name, v, [where === "set" ? "fieldsToUpdate" : "searchItems"]);
    },
  },
];

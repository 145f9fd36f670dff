import type { Prng } from "./prng.js";
import { bearer, newDraft, type Draft } from "./request.js";
import type { World } from "./world.js";
import { JsonString, objectOf, RawJson } from "./json-text.js";
import { FORMULA_TEXT, JSON_PATH_TEXT, SQL_TEXT } from "./nasty.js";
import { unknownId } from "./unknown.js";
import {
  absent, BAD_DATES, BAD_DATETIMES, BAD_NUMBERS, badOption, badSerialPattern, deepValue, hugeId, unknownBlocId,
  unknownSlug, unstorableValue, wrongTypeId, type Case,
} from "./case-kit.js";

type Writer = "admin" | "writer";

interface ValidAdd {
  readonly token: string;
  readonly writer: Writer;
  readonly params: Record<string, unknown>;
  /** The record's values, still an object: cases change them before encoding. */
  readonly values: Record<string, unknown>;
}

/** A record that add-data would store: every rule of the main bloc kept, a fresh serial. */
export function validAdd(rng: Prng, world: World, writer: Writer = rng.pick(["admin", "writer"])): ValidAdd {
  const s = world.main.slugs;
  const day = rng.between(1, 28);
  const values: Record<string, unknown> = { [s.requiredText]: rng.pick(["P-1", "Widget", "x", ...FORMULA_TEXT, ...SQL_TEXT]) };
  if (rng.chance(0.7)) values[s.number] = rng.pick(["3", "-12", "3.5", "1e3", 7, 0.25]);
  if (rng.chance(0.5)) values[s.date] = `2026-02-${String(day).padStart(2, "0")}`;
  if (rng.chance(0.5)) values[s.datetime] = `2026-02-${String(day).padStart(2, "0")} 23:59:59`;
  if (rng.chance(0.3)) values[s.autogenerate] = "";
  if (rng.chance(0.7)) values[s.unique] = `FZ-${rng.uint32().toString(16).toUpperCase()}`;
  if (rng.chance(0.7)) values[s.select] = rng.pick(world.main.selectOptions);
  values[s.profile] = writer === "writer" ? "Dublin" : rng.pick(["Dublin", "Cork", ""]);
  const params: Record<string, unknown> = {
    scanStationID: world.main.id,
    dataToAdd: rng.chance(0.7) ? new JsonString(values) : values,
  };
  if (rng.chance(0.5)) params.jobID = world.moduleId;
  if (rng.chance(0.3)) params.submittedStatus = rng.pick([0, 1, "0", "1"]);
  return { token: writer === "admin" ? world.tokens.admin : world.tokens.writer, writer, params, values };
}

function draft(name: string, valid: ValidAdd, protect: readonly string[]): Draft {
  return newDraft({
    route: "POST /api/add-data", shape: "add-data", category: `add-data/${name}`, method: "POST", path: "/api/add-data",
    authorization: bearer(valid.token), params: valid.params, extraKeysIgnored: true, protectedKeys: new Set(protect),
  });
}

/** A case that breaks one value of the record. */
function valueCase(name: string, weight: number, slugOf: (w: World, rng: Prng) => string, bad: (rng: Prng, w: World) => unknown, writer?: Writer): Case {
  return {
    name, weight,
    build(rng, world) {
      const valid = validAdd(rng, world, writer);
      valid.values[slugOf(world, rng)] = bad(rng, world);
      return draft(name, valid, ["dataToAdd"]);
    },
  };
}

export const ADD_DATA_CASES: readonly Case[] = [
  {
    name: "scanStationID-missing", weight: 2,
    build(rng, world) { const v = validAdd(rng, world); absent(rng, v.params, "scanStationID"); return draft(this.name, v, ["scanStationID"]); },
  },
  {
    name: "scanStationID-wrong-type", weight: 2,
    build(rng, world) { const v = validAdd(rng, world); v.params.scanStationID = wrongTypeId(rng); return draft(this.name, v, ["scanStationID"]); },
  },
  {
    name: "scanStationID-unknown", weight: 3,
    build(rng, world) { const v = validAdd(rng, world); v.params.scanStationID = unknownBlocId(rng, world); return draft(this.name, v, ["scanStationID"]); },
  },
  {
    name: "scanStationID-huge", weight: 0.5,
    build(rng, world) { const v = validAdd(rng, world); v.params.scanStationID = hugeId(rng); return draft(this.name, v, ["scanStationID"]); },
  },
  {
    name: "dataToAdd-missing", weight: 2,
    build(rng, world) { const v = validAdd(rng, world); absent(rng, v.params, "dataToAdd"); return draft(this.name, v, ["dataToAdd"]); },
  },
  {
    name: "dataToAdd-not-object", weight: 2,
    build(rng, world) {
      const v = validAdd(rng, world);
      v.params.dataToAdd = rng.pick<unknown>(["{bad json", "[1,2]", "42", "null", "\"text\"", "{\"field_1\":", 5, true, [], [v.values],
        new JsonString([v.values]), new JsonString("x"), "{'field_1':'x'}", "{\"field_1\":\"x\"} trailing"]);
      return draft(this.name, v, ["dataToAdd"]);
    },
  },
  {
    name: "dataToAdd-unknown-slug", weight: 4,
    build(rng, world) {
      const v = validAdd(rng, world);
      Object.defineProperty(v.values, unknownSlug(rng, world), { value: rng.pick<unknown>(["x", 1, null, {}]), enumerable: true });
      return draft(this.name, v, ["dataToAdd"]);
    },
  },
  valueCase("value-unstorable", 3, (w, rng) => rng.pick(storingSlugs(w)), (rng) => unstorableValue(rng)),
  valueCase("rule-number", 3, (w) => w.main.slugs.number, (rng) => rng.pick(BAD_NUMBERS)),
  valueCase("rule-date", 2, (w) => w.main.slugs.date, (rng) => rng.pick(BAD_DATES)),
  valueCase("rule-datetime", 2, (w) => w.main.slugs.datetime, (rng) => rng.pick(BAD_DATETIMES)),
  valueCase("rule-required", 2, (w) => w.main.slugs.requiredText, (rng) => rng.pick(["", null])),
  valueCase("rule-file-in-json", 2, (w) => w.main.slugs.file, (rng, w) => rng.pick([w.main.fileRef, "../../../etc/passwd", "x", ...JSON_PATH_TEXT])),
  valueCase("rule-unique", 3, (w) => w.main.slugs.unique, (rng, w) => rng.pick(w.main.takenSerials)),
  valueCase("rule-pattern", 2, (w) => w.main.slugs.unique, (rng) => badSerialPattern(rng)),
  valueCase("rule-maxLength", 1, (w) => w.main.slugs.unique, (rng) => "A".repeat(rng.pick([21, 100, 5000]))),
  valueCase("rule-select", 2, (w) => w.main.slugs.select, (rng, w) => badOption(rng, w.main.selectOptions)),
  valueCase("rule-profile", 2, (w) => w.main.slugs.profile, (rng) => rng.pick(["Cork", "dublin", "Dublin ", "", null, "' OR '1'='1"]), "writer"),
  {
    name: "rule-required-absent", weight: 1,
    build(rng, world) { const v = validAdd(rng, world); delete v.values[world.main.slugs.requiredText]; return draft(this.name, v, ["dataToAdd"]); },
  },
  {
    name: "jobID-wrong", weight: 2,
    build(rng, world) {
      const v = validAdd(rng, world);
      v.params.jobID = rng.chance(0.3) ? rng.pick<unknown>([{}, [], true, [world.moduleId]]) : unknownId(rng, world.existing.modules);
      return draft(this.name, v, ["jobID"]);
    },
  },
  {
    name: "submittedStatus-invalid", weight: 2,
    build(rng, world) {
      const v = validAdd(rng, world);
      v.params.submittedStatus = rng.pick<unknown>([2, -1, 1.5, "yes", "true", true, false, "01", "1 ", {}, [], [1], new RawJson("1e400"), "\u0000"]);
      return draft(this.name, v, ["submittedStatus"]);
    },
  },
  {
    name: "denied", weight: 3,
    build(rng, world) {
      const v = validAdd(rng, world, "admin");
      const t = world.tokens;
      const d = draft(this.name, v, []);
      d.authorization = bearer(rng.pick([t.reader, t.outsider, t.writerReadOnly, t.adminScoped]));
      return d;
    },
  },
  {
    name: "closed-bloc", weight: 1,
    build(rng, world) {
      const v = validAdd(rng, world, "writer");
      v.params.scanStationID = world.closedBlocId;
      v.params.dataToAdd = objectOf([["field_1", "note"]]);
      delete v.params.jobID;
      return draft(this.name, v, ["scanStationID", "dataToAdd", "jobID"]);
    },
  },
  {
    name: "scan-limit-reached", weight: 1,
    build(rng, world) {
      const v = validAdd(rng, world);
      v.params.scanStationID = world.limitedBlocId;
      v.params.dataToAdd = objectOf([["field_1", rng.pick(["note", "second"])]]);
      delete v.params.jobID;
      return draft(this.name, v, ["scanStationID", "dataToAdd", "jobID"]);
    },
  },
  {
    name: "nested-deep", weight: 1,
    build(rng, world) {
      const v = validAdd(rng, world);
      const key = rng.pick(["scanStationID", "jobID", "submittedStatus", "dataToAdd"]);
      v.params[key] = deepValue(rng);
      return draft(this.name, v, [key]);
    },
  },
];

/** Fields that refuse a value that is not a string, number, boolean or null. */
function storingSlugs(world: World): string[] {
  const s = world.main.slugs;
  return [s.requiredText, s.number, s.date, s.datetime, s.unique, s.select, s.profile, s.file, s.autogenerate];
}

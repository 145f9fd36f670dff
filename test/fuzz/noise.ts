import type { Prng } from "./prng.js";
import type { Draft } from "./request.js";
import { setKey } from "./json-text.js";
import { badUtf8, nastyValue, SQL_TEXT } from "./nasty.js";

/**
 * Noise: hostile things around the broken rule that cannot mend it. Extra keys never
 * take a parameter's name, noise never touches a protected key, and every noise value
 * lives in a key of its own, so a request stays as certainly refused as its case made it.
 */

/** Every parameter name of the four endpoints: noise keys are never one of these. */
const PARAMETER_NAMES = new Set([
  "scanStationID", "jobID", "dataToAdd", "submittedStatus", "blocId", "resultLimit", "currentPage", "reverse", "fromDate",
  "toDate", "stationID", "fieldsToReport", "responseType", "requestedReportData", "dataFilteringData", "fieldsToUpdate",
  "searchItems", "filterDataToQuery", "reportFromDate", "reportToDate",
]);

const NOISE_KEYS = [
  "x", "extra", "__proto__", "constructor", "prototype", "toString", "hasOwnProperty", "", "a".repeat(300), "$where",
  "$.blocId", "blocId ", "BLOCID", "data->>'x'", "\u0000", "\uFFFF", "\uD800", "padding", "debug", "isAdmin", ...SQL_TEXT,
];

function noiseKey(rng: Prng, draft: Draft): string | undefined {
  for (let i = 0; i < 5; i += 1) {
    const key = rng.pick(NOISE_KEYS);
    if (!PARAMETER_NAMES.has(key) && !draft.protectedKeys.has(key)) return key;
  }
  return undefined;
}

const HEADER_NOISE: readonly (readonly [string, string])[] = [
  ["x-forwarded-for", "1.2.3.4, 10.0.0.1"], ["accept", "application/xml"], ["accept", "*/*"], ["x-request-id", "' OR 1=1 --"],
  ["cookie", "session=abc; admin=true"], ["accept-encoding", "gzip, br"], ["user-agent", "fuzz/1 () { :; }; echo vulnerable"],
  ["x-http-method-override", "DELETE"], ["origin", "http://evil.example"], ["x-forwarded-proto", "javascript"],
];

const JSON_TYPES = ["application/json", "application/json; charset=utf-8", "application/json;charset=UTF-8", "Application/JSON"];

export function addNoise(rng: Prng, draft: Draft): void {
  const operations = rng.below(4);
  for (let i = 0; i < operations; i += 1) {
    switch (rng.below(7)) {
      case 0:
      case 1: {
        // An extra key: ignored by the data endpoints, another broken rule for the admin API.
        // Admin bad bodies may be arrays, strings or numbers: only objects take keys.
        if (typeof draft.params !== "object" || draft.params === null || Array.isArray(draft.params)) break;
        const key = noiseKey(rng, draft);
        if (key !== undefined) setKey(draft.params, key, rng.chance(0.2) ? badUtf8(rng, "noise:") : nastyValue(rng));
        break;
      }
      case 2: {
        const target = draft.tolerantObjects.length > 0 ? rng.pick(draft.tolerantObjects) : undefined;
        const key = noiseKey(rng, draft);
        if (target && key !== undefined) setKey(target, key, nastyValue(rng, 1));
        break;
      }
      case 3: {
        if (!draft.queryAllowed) break;
        const key = noiseKey(rng, draft);
        if (key !== undefined) draft.query.push([key, rng.pick(["1", "' OR '1'='1", "%00", "\u00e9", "$.x", "a".repeat(500)])]);
        break;
      }
      case 4: {
        const [name, value] = rng.pick(HEADER_NOISE);
        draft.headers[name] = value;
        if (rng.chance(0.3)) draft.headers["idempotency-key"] = `fuzz-${rng.uint32().toString(36)}-${rng.uint32().toString(36)}`;
        break;
      }
      case 5: {
        // The read endpoints take parameters from the query string too: move the unbroken ones there.
        if (!draft.queryAllowed || typeof draft.params !== "object" || draft.params === null) break;
        for (const [key, value] of Object.entries(draft.params)) {
          if (draft.protectedKeys.has(key) || typeof value !== "string" || value.length > 2000 || !rng.chance(0.7)) continue;
          delete draft.params[key];
          draft.query.push([key, value]);
        }
        break;
      }
      default:
        if (draft.contentType !== undefined && draft.contentType.toLowerCase().startsWith("application/json")) {
          // A JSON type spelled another way, or none at all.
          draft.contentType = rng.chance(0.8) ? rng.pick(JSON_TYPES) : undefined;
        }
    }
  }
}

import type { Prng } from "./prng.js";
import { bearer, newDraft, type Draft } from "./request.js";
import type { World } from "./world.js";
import { validAdd } from "./add-data-cases.js";
import { BAD_NUMBERS, unknownBlocId, unknownSlug, type Case } from "./case-kit.js";

/**
 * Multipart add-data, written byte by byte so that it can be wrong in ways FormData
 * cannot: no boundary, another boundary, too many parts, files where text belongs,
 * a cut-off form. The fuzz server runs with BLOC_MAX_FILE_BYTES=65536 (see run.ts),
 * so a larger file is refused too. Every refused upload must leave the files folder as
 * it was.
 */

export const FUZZ_MAX_FILE_BYTES = 64 * 1024;

interface Part {
  readonly name: string;
  readonly value: Buffer;
  readonly file?: { readonly filename: string; readonly type: string };
}

function text(name: string, value: string | Buffer): Part {
  return { name, value: typeof value === "string" ? Buffer.from(value, "utf8") : value };
}

function file(name: string, size: number, filename = "photo.jpg", type = "image/jpeg"): Part {
  return { name, value: Buffer.alloc(size, 0x61 + (size % 26)), file: { filename, type } };
}

function encodeParts(boundary: string, parts: readonly Part[], close = true): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = `form-data; name="${part.name.replace(/"/g, "%22")}"` +
      (part.file ? `; filename="${part.file.filename}"` : "");
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n` +
      (part.file ? `Content-Type: ${part.file.type}\r\n` : "") + "\r\n"), part.value, Buffer.from("\r\n"));
  }
  if (close) chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

/** The text parts of an add the service would store. */
function validTextParts(rng: Prng, world: World): { token: string; parts: Part[]; values: Record<string, unknown> } {
  const v = validAdd(rng, world);
  const parts: Part[] = [text("scanStationID", world.main.id), text("dataToAdd", JSON.stringify(v.values))];
  if (rng.chance(0.5)) parts.push(text("jobID", world.moduleId));
  return { token: v.token, parts, values: v.values };
}

function draft(name: string, token: string, boundary: string | undefined, body: Buffer): Draft {
  return newDraft({
    route: "POST /api/add-data (multipart)", shape: "add-data", category: `multipart/${name}`, method: "POST", path: "/api/add-data",
    authorization: bearer(token), rawBody: body,
    contentType: boundary === undefined ? "multipart/form-data" : `multipart/form-data; boundary=${boundary}`,
  });
}

/** A boundary RFC 2046 allows (its own characters include ' ( ) + _ , - . / : = ?). */
function boundaryOf(rng: Prng): string {
  return `----fuzz${rng.uint32().toString(16)}${rng.pick(["", "'", "()+_,-./:=?"])}`;
}

function photo(rng: Prng, world: World): Part {
  return file(world.main.slugs.file, rng.pick([1, 100, 5000, 60_000]));
}

export const MULTIPART_CASES: readonly Case[] = [
  {
    name: "no-boundary", weight: 1,
    build(rng, world) {
      const { token, parts } = validTextParts(rng, world);
      return draft(this.name, token, undefined, encodeParts(boundaryOf(rng), [...parts, photo(rng, world)]));
    },
  },
  {
    name: "other-boundary", weight: 1,
    build(rng, world) {
      const { token, parts } = validTextParts(rng, world);
      return draft(this.name, token, boundaryOf(rng), encodeParts(`${boundaryOf(rng)}-other`, [...parts, photo(rng, world)]));
    },
  },
  {
    name: "malformed-boundary-header", weight: 1,
    build(rng, world) {
      const { token, parts } = validTextParts(rng, world);
      const body = encodeParts("fuzz\"q", [...parts, photo(rng, world)]);
      const d = draft(this.name, token, undefined, body);
      d.contentType = rng.pick(["multipart/form-data; boundary=fuzz\"q", "multipart/form-data; boundary=", "multipart/form-data; boundary=\"",
        `multipart/form-data; boundary=${"b".repeat(200)}`, "multipart/form-data; boundary=a; boundary=b", "multipart/form-data;;;"]);
      return d;
    },
  },
  {
    name: "too-many-parts", weight: 1,
    build(rng, world) {
      // Over any parts limit, and without scanStationID: refused whichever check comes first.
      const { token, parts } = validTextParts(rng, world);
      const many: Part[] = parts.filter((p) => p.name !== "scanStationID");
      const count = rng.between(101, 400);
      for (let i = 0; i < count; i += 1) {
        many.push(rng.chance(0.2) ? file(rng.pick([world.main.slugs.file, `f${i}`, "field_1"]), rng.between(1, 200)) : text(`p${i}`, "v"));
      }
      const boundary = boundaryOf(rng);
      return draft(this.name, token, boundary, encodeParts(boundary, many));
    },
  },
  {
    name: "wrong-part-type", weight: 2,
    build(rng, world) {
      const { token, parts } = validTextParts(rng, world);
      const boundary = boundaryOf(rng);
      const s = world.main.slugs;
      const variant = rng.below(4);
      let list: Part[];
      if (variant === 0) {
        // A text parameter sent as a file: the parameter is then missing.
        const victim = rng.pick(["scanStationID", "dataToAdd"]);
        list = [...parts.filter((p) => p.name !== victim), { ...file(victim, 20, "x.json", "application/json"), value: parts.find((p) => p.name === victim)!.value }];
      } else if (variant === 1) {
        list = [...parts, file(rng.pick([s.requiredText, s.number, s.select, s.unique]), 50)];
      } else if (variant === 2) {
        // No quote, backslash or line break: each would change how the part's header parses (a backslash escapes the quote).
        list = [...parts, file(unknownSlug(rng, world).replace(/[\\\r\n"]/g, "") || "nofield", 50)];
      } else {
        list = [...parts, photo(rng, world), photo(rng, world)];
      }
      return draft(this.name, token, boundary, encodeParts(boundary, list));
    },
  },
  {
    name: "bad-text-with-file", weight: 3,
    build(rng, world) {
      const { token, parts, values } = validTextParts(rng, world);
      const boundary = boundaryOf(rng);
      const variant = rng.below(4);
      let list: Part[] = parts;
      if (variant === 0) list = parts.map((p) => (p.name === "scanStationID" ? text("scanStationID", unknownBlocId(rng, world).slice(0, 5000)) : p));
      else if (variant === 1) list = parts.map((p) => (p.name === "dataToAdd" ? text("dataToAdd", rng.pick(["{bad", "[]", "", "null"])) : p));
      else if (variant === 2) list = parts.map((p) => (p.name === "dataToAdd" ? text("dataToAdd", JSON.stringify({ ...values, [world.main.slugs.number]: rng.pick(BAD_NUMBERS) })) : p));
      else list = parts.map((p) => (p.name === "dataToAdd" ? text("dataToAdd", JSON.stringify({ ...values, [world.main.slugs.unique]: rng.pick(world.main.takenSerials) })) : p));
      const withFile = rng.chance(0.5) ? [photo(rng, world), ...list] : [...list, photo(rng, world)];
      return draft(this.name, token, boundary, encodeParts(boundary, withFile));
    },
  },
  {
    name: "file-too-large", weight: 1,
    build(rng, world) {
      const { token, parts } = validTextParts(rng, world);
      const boundary = boundaryOf(rng);
      return draft(this.name, token, boundary, encodeParts(boundary, [...parts, file(world.main.slugs.file, FUZZ_MAX_FILE_BYTES + rng.between(1, 200_000))]));
    },
  },
  {
    name: "cut-off", weight: 1,
    build(rng, world) {
      const { token, parts } = validTextParts(rng, world);
      const boundary = boundaryOf(rng);
      const whole = encodeParts(boundary, [...parts, photo(rng, world)], false);
      // Cut inside the last part, before its closing boundary: the form never ends.
      return draft(this.name, token, boundary, whole.subarray(0, Math.max(1, whole.length - 1 - rng.below(Math.min(40, whole.length - 1)))));
    },
  },
  {
    name: "denied-with-file", weight: 1,
    build(rng, world) {
      const { parts } = validTextParts(rng, world);
      const boundary = boundaryOf(rng);
      const t = world.tokens;
      const token = rng.pick([t.reader, t.outsider, t.writerReadOnly]);
      return draft(this.name, token, boundary, encodeParts(boundary, rng.chance(0.5) ? [photo(rng, world), ...parts] : [...parts, photo(rng, world)]));
    },
  },
  {
    name: "huge-text-part", weight: 0.5,
    build(rng, world) {
      const { token, parts, values } = validTextParts(rng, world);
      const boundary = boundaryOf(rng);
      // Over 1 MiB, and naming a field the bloc lacks: refused whether or not the part is cut at a size limit.
      const huge = JSON.stringify({ ...values, [world.main.slugs.requiredText]: "x".repeat(1024 * 1024 + rng.below(500_000)), zz_no_such_field: 1 });
      return draft(this.name, token, boundary, encodeParts(boundary, parts.map((p) => (p.name === "dataToAdd" ? text("dataToAdd", huge) : p))));
    },
  },
];

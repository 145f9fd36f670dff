/**
 * JSON text as a fuzzer needs to write it: with numbers JSON.stringify cannot write
 * (1e400), nesting deeper than it can recurse, own `__proto__` keys, bytes that are not
 * UTF-8 inside strings, and "JSON-encoded string" parameters whose inner text carries
 * all of these too. The output is bytes, because invalid UTF-8 is not a JS string.
 */

/** Text spliced in verbatim where a value goes. */
export class RawJson {
  constructor(readonly text: string) {}
}

/** A string value holding bytes that are not valid UTF-8 between two ordinary parts. */
export class BadUtf8 {
  constructor(readonly before: string, readonly bytes: Buffer, readonly after: string) {}
}

/** A value sent as a string holding its JSON (the spec's "JSON-encoded string" parameters). */
export class JsonString {
  constructor(readonly value: unknown) {}
}

/** An object that may hold keys a literal cannot set as own keys (`__proto__`). */
export function objectOf(entries: readonly (readonly [string, unknown])[]): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  for (const [key, value] of entries) setKey(object, key, value);
  return object;
}

/** Sets an own, enumerable key, `__proto__` included, without touching the prototype. */
export function setKey(object: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
}

/** The body of a JSON string literal for `text`, as bytes. */
function stringBody(text: string): Buffer {
  return Buffer.from(JSON.stringify(text).slice(1, -1), "utf8");
}

/**
 * Escapes bytes as the inside of a JSON string literal, leaving bytes ≥ 0x80 as they
 * are, so that invalid UTF-8 in an inner text stays invalid in the outer one.
 */
function escapeBytes(bytes: Buffer): Buffer {
  const out: number[] = [];
  for (const byte of bytes) {
    if (byte === 0x22 || byte === 0x5c) out.push(0x5c, byte);
    else if (byte < 0x20) out.push(...Buffer.from(`\\u${byte.toString(16).padStart(4, "0")}`));
    else out.push(byte);
  }
  return Buffer.from(out);
}

const QUOTE = Buffer.from('"');

function encodeInto(value: unknown, out: Buffer[]): void {
  if (value instanceof RawJson) {
    out.push(Buffer.from(value.text, "utf8"));
  } else if (value instanceof BadUtf8) {
    out.push(QUOTE, stringBody(value.before), value.bytes, stringBody(value.after), QUOTE);
  } else if (value instanceof JsonString) {
    out.push(QUOTE, escapeBytes(encodeJson(value.value)), QUOTE);
  } else if (Array.isArray(value)) {
    out.push(Buffer.from("["));
    value.forEach((item, index) => {
      if (index > 0) out.push(Buffer.from(","));
      encodeInto(item, out);
    });
    out.push(Buffer.from("]"));
  } else if (typeof value === "object" && value !== null) {
    out.push(Buffer.from("{"));
    Object.entries(value).forEach(([key, item], index) => {
      out.push(Buffer.from(`${index > 0 ? "," : ""}${JSON.stringify(key)}:`));
      encodeInto(item, out);
    });
    out.push(Buffer.from("}"));
  } else {
    out.push(Buffer.from(JSON.stringify(value) ?? "null", "utf8"));
  }
}

export function encodeJson(value: unknown): Buffer {
  const out: Buffer[] = [];
  encodeInto(value, out);
  return Buffer.concat(out);
}

/** The text of a value for a query string or a multipart text part (invalid bytes become U+FFFD). */
export function encodeText(value: unknown): string {
  if (typeof value === "string") return value;
  return encodeJson(value).toString("utf8");
}

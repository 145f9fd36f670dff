/**
 * The content-type rule, in one place (docs/endpoints.md, "Content types"):
 * - JSON is `application/json` or any `application/<name>+json` (`application/vnd.api+json`,
 *   `application/merge-patch+json`), with no charset or a UTF-8 one: JSON is UTF-8 (RFC 8259).
 * - A body without a Content-Type is read as JSON: the spec's clients send JSON and some
 *   omit the header (Python's `requests` with `data=`), and JSON is all the endpoints speak.
 * - `multipart/form-data` with a boundary is for add-data only.
 * - Everything else (text/plain, application/xml, text/csv, form-urlencoded, another charset) is 415.
 */
export type BodyKind = "json" | "multipart" | "unsupported";

export const JSON_TYPES_TEXT = "application/json (or application/*+json), in UTF-8";

interface MediaType {
  readonly type: string;
  readonly parameters: ReadonlyMap<string, string>;
}

function parse(header: string): MediaType {
  const [type = "", ...rest] = header.split(";");
  const parameters = new Map<string, string>();
  for (const part of rest) {
    const cut = part.indexOf("=");
    if (cut < 0) continue;
    parameters.set(part.slice(0, cut).trim().toLowerCase(), part.slice(cut + 1).trim().replace(/^"(.*)"$/, "$1"));
  }
  return { type: type.trim().toLowerCase(), parameters };
}

const JSON_TYPE = /^application\/(?:[a-z0-9!#$&^_.-]+\+)?json$/;
const UTF8 = new Set(["utf-8", "utf8"]);

export function bodyKind(header: string | undefined): BodyKind {
  if (header === undefined || header.trim() === "") return "json";
  const { type, parameters } = parse(header);
  if (JSON_TYPE.test(type)) {
    const charset = parameters.get("charset");
    return charset === undefined || UTF8.has(charset.toLowerCase()) ? "json" : "unsupported";
  }
  if (type === "multipart/form-data") return "multipart";
  return "unsupported";
}

/** Whether a multipart/form-data header names its boundary; without one the parts cannot be found. */
export function hasBoundary(header: string | undefined): boolean {
  return header !== undefined && (parse(header).parameters.get("boundary") ?? "") !== "";
}

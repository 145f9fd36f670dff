import { encodeJson, encodeText } from "./json-text.js";

/** The body limit the service promises (BLOC_MAX_BODY_BYTES, default 1 MiB). */
export const BODY_LIMIT = 1024 * 1024;

/** Whose error table an answer follows (src/http/error-shapes.ts). */
export type Shape = "add-data" | "get-data" | "get-data-report" | "update-records" | "admin" | "public";

/** How the bytes go over the wire. */
export type Transport =
  /** node:http on a keep-alive agent. */
  | { readonly kind: "http" }
  /** A socket of its own: the whole body is written before the answer counts (a client such as Python requests). */
  | { readonly kind: "whole-body-first" }
  /** Like whole-body-first, with the body in chunked transfer encoding (no Content-Length). */
  | { readonly kind: "chunked" }
  /** Content-Length promises the whole body; only the fraction `keep` of it is sent, then the client half-closes. */
  | { readonly kind: "truncated"; readonly keep: number }
  /** The fraction `keep` of the body is sent, then the rest a byte every `intervalMs`, far slower than a request timeout allows. */
  | { readonly kind: "slow"; readonly keep: number; readonly intervalMs: number };

/** One generated request, ready to send. */
export interface FuzzRequest {
  /** Route template, for counts: "POST /api/add-data". */
  readonly route: string;
  readonly shape: Shape;
  /** The rule it breaks, which makes its refusal certain. */
  readonly category: string;
  readonly method: string;
  /** Path and query, encoded. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer | undefined;
  readonly transport: Transport;
}

/**
 * A request being built: parameters stay values until the end, so that noise can be
 * added around the broken rule without touching it.
 */
export interface Draft {
  route: string;
  shape: Shape;
  category: string;
  method: string;
  path: string;
  query: [string, string][];
  /** The Authorization header as sent; undefined sends none. */
  authorization: string | undefined;
  /** undefined sends no Content-Type. */
  contentType: string | undefined;
  /** The JSON body, usually an object (a bad body may be any JSON value); undefined sends none (unless rawBody is set). */
  params: Record<string, unknown> | undefined;
  /** Bytes that replace the encoded params (multipart). */
  rawBody: Buffer | undefined;
  /** Applied to the body's bytes last, after noise (malformed JSON). */
  bodyTransform: ((body: Buffer) => Buffer) | undefined;
  headers: Record<string, string>;
  transport: Transport;
  /** Keys the broken rule lives in: noise leaves them alone. */
  readonly protectedKeys: Set<string>;
  /** Whether unknown keys in the body are ignored (so extra keys are noise, not another broken rule). */
  readonly extraKeysIgnored: boolean;
  /** Noise may add keys inside these nested objects of params (they ignore unknown keys). */
  readonly tolerantObjects: Record<string, unknown>[];
  /** Noise may go in the query string (the read endpoints take parameters there too). */
  readonly queryAllowed: boolean;
}

export function bearer(token: string): string {
  return `Bearer ${token}`;
}

export function newDraft(init: Pick<Draft, "route" | "shape" | "category" | "method" | "path"> & Partial<Draft>): Draft {
  return {
    query: [], authorization: undefined, contentType: "application/json", params: undefined, rawBody: undefined, bodyTransform: undefined,
    headers: {}, transport: { kind: "http" }, protectedKeys: new Set(), extraKeysIgnored: false,
    tolerantObjects: [], queryAllowed: false, ...init,
  };
}

/**
 * Percent-encodes a path segment or query part. A lone surrogate (which
 * encodeURIComponent refuses) goes as the bytes of its WTF-8 form: invalid UTF-8 in a URL.
 */
export function encodeUrlPart(text: string): string {
  let out = "";
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    const pair = code >= 0xd800 && code <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00;
    if (code >= 0xd800 && code <= 0xdfff && !pair) {
      out += `%${(0xe0 | (code >> 12)).toString(16)}%${(0x80 | ((code >> 6) & 0x3f)).toString(16)}%${(0x80 | (code & 0x3f)).toString(16)}`.toUpperCase();
    } else {
      const char = pair ? text.slice(i, i + 2) : text[i]!;
      out += encodeURIComponent(char);
      if (pair) i += 1;
    }
  }
  return out;
}

function queryString(pairs: readonly [string, string][]): string {
  if (pairs.length === 0) return "";
  return `?${pairs.map(([k, v]) => `${encodeUrlPart(k)}=${encodeUrlPart(v)}`).join("&")}`;
}

export function finish(draft: Draft): FuzzRequest {
  const encoded = draft.rawBody ?? (draft.params === undefined ? undefined : encodeJson(draft.params));
  const body = encoded !== undefined && draft.bodyTransform ? draft.bodyTransform(encoded) : encoded;
  const headers: Record<string, string> = { ...draft.headers };
  if (draft.authorization !== undefined) headers.authorization = draft.authorization;
  if (body !== undefined && draft.contentType !== undefined) headers["content-type"] = draft.contentType;
  return {
    route: draft.route, shape: draft.shape, category: draft.category, method: draft.method,
    path: draft.path + queryString(draft.query), headers, body, transport: draft.transport,
  };
}

/** A value as it would travel in a query string. */
export function queryValue(value: unknown): string {
  return encodeText(value);
}

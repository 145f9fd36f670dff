import crypto from "node:crypto";
import { createReadStream } from "node:fs";
import path from "node:path";
import { Readable } from "node:stream";

/** A file to upload into a file field: bytes, a stream, or a path on disk (streamed). */
export interface UploadFile {
  /** The bytes, a readable stream of them, or `{ path }` to stream a file from disk. */
  readonly content: Uint8Array | string | Readable | { readonly path: string };
  /** The name the service keeps; defaults to the path's base name, or the field slug. */
  readonly filename?: string;
  /** Defaults to application/octet-stream. */
  readonly contentType?: string;
}

/** A header parameter value: quotes, backslashes and line breaks would end or split it. */
function quoted(value: string): string {
  return `"${value.replace(/[\r\n]/g, " ").replace(/["\\]/g, (c) => encodeURIComponent(c))}"`;
}

function contentOf(file: UploadFile): Readable | Uint8Array {
  const content = file.content;
  if (typeof content === "string") return Buffer.from(content);
  if (content instanceof Uint8Array || content instanceof Readable) return content;
  return createReadStream(content.path);
}

/**
 * A multipart/form-data body, streamed: the text parts first (the service needs
 * scanStationID before any file), then each file as it is read, never whole in memory.
 */
export function multipartBody(
  fields: Readonly<Record<string, string>>, files: Readonly<Record<string, UploadFile>>,
): { body: Readable; contentType: string } {
  const boundary = `----bloc-${crypto.randomBytes(12).toString("hex")}`;
  async function* parts(): AsyncGenerator<Uint8Array> {
    for (const [name, value] of Object.entries(fields)) {
      yield Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name=${quoted(name)}\r\n\r\n${value}\r\n`);
    }
    for (const [slug, file] of Object.entries(files)) {
      const fallback = typeof file.content === "object" && "path" in file.content ? path.basename(file.content.path) : slug;
      yield Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name=${quoted(slug)}; filename=${quoted(file.filename ?? fallback)}\r\n` +
        `Content-Type: ${(file.contentType ?? "application/octet-stream").replace(/[\r\n]/g, "")}\r\n\r\n`);
      const content = contentOf(file);
      if (content instanceof Readable) {
        for await (const chunk of content) yield typeof chunk === "string" ? Buffer.from(chunk) : chunk as Uint8Array;
      } else yield content;
      yield Buffer.from("\r\n");
    }
    yield Buffer.from(`--${boundary}--\r\n`);
  }
  return { body: Readable.from(parts(), { objectMode: false }), contentType: `multipart/form-data; boundary=${boundary}` };
}

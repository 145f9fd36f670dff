import { once } from "node:events";
import { createReadStream } from "node:fs";
import { PassThrough, type Readable, type Writable } from "node:stream";
import { createDeflateRaw, crc32, type DeflateRaw } from "node:zlib";
import { Zip, type ZipInputFile } from "fflate";

/**
 * Deflate level of every part. 1 compresses report text about as well as 6 here (rows
 * repeat their shape) at a fraction of the time; deflate runs on libuv's thread pool,
 * off the thread that builds rows.
 */
const LEVEL = 1;
/** Bytes of text gathered before they go to deflate: fewer, larger writes. */
const CHUNK = 64 * 1024;
/**
 * fflate writes no ZIP64 records, so no offset or size may reach 4 GiB. Sheets are cut
 * well before (xlsx-workbook.ts); an archive that still grows past this fails instead of
 * being silently corrupt.
 */
export const ZIP32_LIMIT = 0xFFFF_FFFF;

/** Resolves true once `stream` can take more, false if `output` closed first (the reader left). */
function drained(stream: Writable, output: Readable): Promise<boolean> {
  if (output.destroyed) return Promise.resolve(false);
  return new Promise((resolve) => {
    const done = (ok: boolean) => (): void => {
      stream.off("drain", onDrain); stream.off("close", onClose); output.off("close", onClose);
      resolve(ok);
    };
    const onDrain = done(true);
    const onClose = done(false);
    stream.once("drain", onDrain);
    stream.once("close", onClose);
    output.once("close", onClose);
  });
}

/** Resolves when `event` fires on `emitter` or `output` closes, leaving no listener behind. */
async function untilOrClosed(emitter: NodeJS.EventEmitter, event: string, output: Readable): Promise<void> {
  const abort = new AbortController();
  try {
    await Promise.race([once(emitter, event, { signal: abort.signal }), once(output, "close", { signal: abort.signal })]);
  } finally {
    abort.abort();
  }
}

/** One part being written: text in, deflated by zlib (native, off-thread), CRC by zlib.crc32. */
export class ZipPart {
  private crc = 0;
  private size = 0;
  private pending: string[] = [];
  private pendingLength = 0;

  constructor(private readonly deflate: DeflateRaw, private readonly file: { crc: number; size: number }, private readonly output: Readable) {}

  /** Bytes of text (UTF-16 length, roughly bytes for report text) given so far. */
  get written(): number { return this.size + this.pendingLength; }

  /** Adds text to what the next flush writes (no await per row). */
  append(text: string): void {
    this.pending.push(text);
    this.pendingLength += text.length;
  }

  /** Adds text; resolves false when the reader left and writing should stop. */
  async write(text: string): Promise<boolean> {
    this.append(text);
    return this.pendingLength < CHUNK ? !this.output.destroyed : this.flush();
  }

  /** Hands what was appended to deflate, waiting while it is behind; false when the reader left. */
  async flush(): Promise<boolean> {
    if (this.pendingLength === 0) return !this.output.destroyed;
    const bytes = Buffer.from(this.pending.join(""), "utf8");
    this.pending = [];
    this.pendingLength = 0;
    this.crc = crc32(bytes, this.crc);
    this.size += bytes.length;
    if (this.size > ZIP32_LIMIT) throw new Error("an .xlsx part reached 4 GiB");
    if (this.deflate.write(bytes)) return !this.output.destroyed;
    return drained(this.deflate, this.output);
  }

  /** Ends the part; resolves once all of it was handed to the archive. */
  async end(): Promise<boolean> {
    if (!(await this.flush())) return false;
    this.file.crc = this.crc >>> 0;
    this.file.size = this.size;
    this.deflate.end();
    await untilOrClosed(this.deflate, "end", this.output).catch(() => undefined);
    return !this.output.destroyed;
  }
}

/**
 * A ZIP archive (fflate's container: local headers, data descriptors, central
 * directory) streamed to `readable`. Parts are written one after the other; deflate's
 * output waits while the reader is slow, and writers wait on deflate, so at most a few
 * chunks per stage are held whatever the report's size.
 */
export class ZipOutput {
  readonly readable = new PassThrough({ highWaterMark: 256 * 1024 });
  private readonly zip: Zip;
  private offset = 0;
  private readonly blocked = new Set<Readable>();

  constructor() {
    this.zip = new Zip((error, chunk, final) => {
      if (error) { this.readable.destroy(error); return; }
      this.offset += chunk.length;
      if (this.offset > ZIP32_LIMIT) { this.readable.destroy(new Error("the .xlsx archive reached 4 GiB")); return; }
      if (!this.readable.write(chunk)) this.pauseSources();
      if (final) this.readable.end();
    });
    // A reader that leaves stops the part being fed.
    this.readable.once("close", () => this.current?.destroy());
    this.readable.on("drain", () => {
      for (const source of this.blocked) source.resume();
      this.blocked.clear();
    });
  }

  private current: Readable | undefined;

  private pauseSources(): void {
    if (this.current && !this.blocked.has(this.current)) {
      this.current.pause();
      this.blocked.add(this.current);
    }
  }

  /** Feeds a stream of already-deflated bytes as the data of `file`, honouring backpressure. */
  private feed(file: ZipInputFile, source: Readable): void {
    this.zip.add(file);
    this.current = source;
    // Node buffers are Uint8Arrays over an ArrayBuffer at run time; TypeScript allows a shared one.
    source.on("data", (chunk: Buffer) => file.ondata!(null, chunk as Uint8Array<ArrayBuffer>, false));
    source.once("end", () => {
      if (this.current === source) this.current = undefined;
      file.ondata!(null, new Uint8Array(0), true);
    });
    source.once("error", (error: Error) => this.readable.destroy(error));
  }

  /** Starts a deflated part whose text is written through the returned ZipPart. */
  part(name: string): ZipPart {
    const file: ZipInputFile = { filename: name, size: 0, crc: 0, compression: 8, mtime: new Date() };
    const deflate = createDeflateRaw({ level: LEVEL });
    this.feed(file, deflate);
    return new ZipPart(deflate, file, this.readable);
  }

  /** A whole small part at once. */
  async text(name: string, text: string): Promise<boolean> {
    const part = this.part(name);
    await part.write(text);
    return part.end();
  }

  /** A part whose deflated bytes, CRC and size were prepared elsewhere (the spooled shared strings). */
  async deflatedFile(name: string, path: string, crc: number, size: number): Promise<boolean> {
    const file: ZipInputFile = { filename: name, size, crc, compression: 8, mtime: new Date() };
    const source = createReadStream(path, { highWaterMark: 64 * 1024 });
    this.feed(file, source);
    await untilOrClosed(source, "close", this.readable).catch(() => undefined);
    return !this.readable.destroyed;
  }

  /** Writes the central directory; the readable ends once the reader took it. */
  end(): void {
    this.zip.end();
  }
}

/** Spools deflated text to a file (for a part that must follow another whose length is unknown). */
export class DeflatedSpool {
  private readonly deflate = createDeflateRaw({ level: LEVEL });
  private crcValue = 0;
  private sizeValue = 0;
  private readonly finished: Promise<unknown>;

  constructor(file: Writable, private readonly output: Readable) {
    this.deflate.pipe(file);
    this.finished = once(file, "finish");
  }

  async write(text: string): Promise<boolean> {
    const bytes = Buffer.from(text, "utf8");
    this.crcValue = crc32(bytes, this.crcValue);
    this.sizeValue += bytes.length;
    if (this.sizeValue > ZIP32_LIMIT) throw new Error("the .xlsx shared strings reached 4 GiB");
    if (this.deflate.write(bytes)) return !this.output.destroyed;
    return drained(this.deflate, this.output);
  }

  /** Ends the spool; resolves with the CRC and size of the text once it is all on disk. */
  async end(): Promise<{ crc: number; size: number }> {
    this.deflate.end();
    await this.finished;
    return { crc: this.crcValue >>> 0, size: this.sizeValue };
  }

  destroy(): void { this.deflate.destroy(); }
}

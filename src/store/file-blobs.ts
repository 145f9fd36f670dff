import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { Transform, type Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { Blobs, ReceivedContent } from "../domain/ports/blobs.js";
import { syncFile, syncFolder } from "./fsync.js";

export type { ReceivedContent } from "../domain/ports/blobs.js";

/**
 * Uploaded files' content on disk, stored by SHA-256: `<dir>/ab/abcdef…`. Content is
 * streamed to a temporary file while it is hashed, so no upload is ever held in
 * memory, and moved into place only once complete. Deciding when content may be
 * deleted is the store's business (content holds and file rows), not this class's.
 */
export class FileBlobs implements Blobs {
  private readonly tmp: string;

  constructor(private readonly dir: string) {
    this.tmp = path.join(dir, "tmp");
    fs.mkdirSync(this.tmp, { recursive: true });
  }

  private pathOf(sha256: string): string {
    return path.join(this.dir, sha256.slice(0, 2), sha256);
  }

  /** Streams content to a temporary file; on any failure (a size limit included) nothing is left behind. */
  async receive(content: Readable): Promise<ReceivedContent> {
    const temporary = path.join(this.tmp, crypto.randomUUID());
    const hash = crypto.createHash("sha256");
    let size = 0;
    const measure = new Transform({
      transform(chunk: Buffer, _encoding, done) { hash.update(chunk); size += chunk.length; done(null, chunk); },
    });
    const sink = fs.createWriteStream(temporary, { flags: "wx" });
    try {
      await pipeline(content, measure, sink);
      // On disk before the record that refers to it can be committed (and answered).
      await syncFile(temporary);
    } catch (error) {
      // The pipeline can fail while the file is still being opened; the open then
      // completes and creates it. Removing it before the sink has closed could leave an
      // empty file behind.
      if (!sink.closed) await new Promise<void>((closed) => sink.once("close", () => closed()));
      await fs.promises.rm(temporary, { force: true });
      throw error;
    }
    return { temporary, sha256: hash.digest("hex"), size };
  }

  /** Moves received content into place; identical content already there is kept and the copy dropped. */
  async place(content: ReceivedContent): Promise<void> {
    const target = this.pathOf(content.sha256);
    const folder = path.dirname(target);
    const created = await fs.promises.mkdir(folder, { recursive: true });
    // rename replaces atomically, so a concurrent identical upload can only ever see whole content.
    await fs.promises.rename(content.temporary, target);
    // A rename is durable once its folder is synced (and a new folder once its parent is).
    await syncFolder(folder);
    if (created !== undefined) await syncFolder(this.dir);
  }

  async discard(content: ReceivedContent): Promise<void> {
    await fs.promises.rm(content.temporary, { force: true });
  }

  /** Opens content for reading; fails (ENOENT) before anything is sent if it is missing. */
  async open(sha256: string): Promise<fs.ReadStream> {
    const handle = await fs.promises.open(this.pathOf(sha256));
    return handle.createReadStream();
  }

  /** The size of stored content; fails (ENOENT) if it is missing. */
  async size(sha256: string): Promise<number> {
    return (await fs.promises.stat(this.pathOf(sha256))).size;
  }

  removeNow(sha256: string): void {
    fs.rmSync(this.pathOf(sha256), { force: true });
  }
}

import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { Transform, type Readable } from "node:stream";
import { pipeline } from "node:stream/promises";

export interface ReceivedBlob {
  readonly sha256: string;
  readonly size: number;
  /** False when the same content was already stored (it is then shared, not copied). */
  readonly created: boolean;
}

/**
 * Uploaded files' content on disk, stored by SHA-256: `<dir>/ab/abcdef…`. Content is
 * streamed to a temporary file while it is hashed, so no upload is ever held in
 * memory, and moved into place only once complete.
 */
export class FileBlobs {
  private readonly tmp: string;

  constructor(private readonly dir: string) {
    this.tmp = path.join(dir, "tmp");
    fs.mkdirSync(this.tmp, { recursive: true });
  }

  private pathOf(sha256: string): string {
    return path.join(this.dir, sha256.slice(0, 2), sha256);
  }

  /** Stores a stream's content; on any failure (a size limit included) nothing is left behind. */
  async receive(content: Readable): Promise<ReceivedBlob> {
    const temporary = path.join(this.tmp, crypto.randomUUID());
    const hash = crypto.createHash("sha256");
    let size = 0;
    const measure = new Transform({
      transform(chunk: Buffer, _encoding, done) { hash.update(chunk); size += chunk.length; done(null, chunk); },
    });
    try {
      await pipeline(content, measure, fs.createWriteStream(temporary, { flags: "wx" }));
    } catch (error) {
      await fs.promises.rm(temporary, { force: true });
      throw error;
    }
    const sha256 = hash.digest("hex");
    const target = this.pathOf(sha256);
    await fs.promises.mkdir(path.dirname(target), { recursive: true });
    if (fs.existsSync(target)) {
      await fs.promises.rm(temporary, { force: true });
      return { sha256, size, created: false };
    }
    await fs.promises.rename(temporary, target);
    return { sha256, size, created: true };
  }

  open(sha256: string): fs.ReadStream {
    return fs.createReadStream(this.pathOf(sha256));
  }

  async remove(sha256: string): Promise<void> {
    await fs.promises.rm(this.pathOf(sha256), { force: true });
  }
}

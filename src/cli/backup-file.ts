import fs from "node:fs";
import { once } from "node:events";
import path from "node:path";
import readline from "node:readline";
import zlib from "node:zlib";
import { syncFile, syncFolder } from "../store/fsync.js";
import type { Row } from "../domain/ports/store.js";

/**
 * The backup file: gzip-compressed JSON lines, readable and writable as a stream, so
 * that neither side ever holds more than one row or one chunk of a file in memory.
 *
 *   {"format":"bloc-data-backup","version":1,"createdAt":…,"engine":…,"tables":[…]}
 *   {"table":"users","row":{…}}                one line per row, tables in the header's order
 *   {"content":"<sha256>","size":n}            an uploaded file's content, once per distinct content,
 *   {"chunk":"<base64>"}                       followed by its bytes in chunks
 *   {"end":true,"rows":{…},"contents":n,"highestRecordId":n}
 *
 * The last line says what came before it, so a cut or damaged file is recognised.
 */

export const FORMAT = "bloc-data-backup";
export const VERSION = 1;
export interface Header {
  readonly format: typeof FORMAT;
  readonly version: number;
  readonly createdAt: string;
  readonly engine: string;
  readonly tables: readonly string[];
}

export interface Trailer {
  readonly end: true;
  readonly rows: Readonly<Record<string, number>>;
  readonly contents: number;
  readonly highestRecordId: number;
}

export type Entry =
  | { readonly kind: "row"; readonly table: string; readonly row: Row }
  | { readonly kind: "content"; readonly sha256: string; readonly size: number }
  | { readonly kind: "chunk"; readonly bytes: Buffer };

/** A backup or restore that cannot be made or did not finish; the CLI prints its message on one line. */
export class BackupError extends Error {}

/** Writes a backup to `<file>.partial`, then renames it into place once complete and on disk. */
export class BackupWriter {
  private constructor(
    private readonly file: string, private readonly partial: string,
    private readonly output: fs.WriteStream, private readonly gzip: zlib.Gzip, private readonly written: Promise<void>,
  ) {}

  static async create(file: string): Promise<BackupWriter> {
    const partial = `${file}.partial`;
    const output = fs.createWriteStream(partial);
    await once(output, "open").catch((error: unknown) => {
      throw new BackupError(`cannot write ${partial}: ${error instanceof Error ? error.message : String(error)}`);
    });
    const gzip = zlib.createGzip();
    gzip.pipe(output);
    const written = new Promise<void>((resolve, reject) => {
      output.once("close", resolve);
      output.once("error", reject);
      gzip.once("error", reject);
    });
    written.catch(() => undefined); // awaited in finish(); a failure before then is seen by the next write
    return new BackupWriter(file, partial, output, gzip, written);
  }

  /** One line; waits while the compressor and the disk catch up. */
  async line(value: unknown): Promise<void> {
    if (!this.gzip.write(`${JSON.stringify(value)}\n`)) await Promise.race([once(this.gzip, "drain"), this.written]);
  }

  async finish(): Promise<void> {
    this.gzip.end();
    await this.written;
    await syncFile(this.partial);
    await fs.promises.rename(this.partial, this.file);
    // The rename, too, must reach the disk before the backup is reported done.
    await syncFolder(path.dirname(path.resolve(this.file)));
  }

  /** Removes what was written; the file named by the user is never touched. */
  async abandon(): Promise<void> {
    this.gzip.destroy();
    this.output.destroy();
    await fs.promises.rm(this.partial, { force: true });
  }
}

function damaged(file: string, line: number, why: string): BackupError {
  return new BackupError(`${file} is not a complete bloc-data backup (line ${line}: ${why})`);
}

function isZlibError(error: unknown): error is Error {
  return error instanceof Error && "code" in error && String(error.code).startsWith("Z_");
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Reads a backup: the header, then each entry in order, then the trailer. Throws BackupError on anything malformed. */
export async function readBackup(
  file: string, onHeader: (header: Header) => void | Promise<void>, onEntry: (entry: Entry) => void | Promise<void>,
): Promise<Trailer> {
  let input: fs.ReadStream;
  try {
    await fs.promises.access(file, fs.constants.R_OK);
    input = fs.createReadStream(file);
  } catch {
    throw new BackupError(`cannot read ${file}`);
  }
  const gunzip = zlib.createGunzip();
  const lines = readline.createInterface({ input: input.pipe(gunzip), crlfDelay: Infinity });
  let failure: Error | undefined;
  const fail = (error: Error): void => { failure ??= error; lines.close(); };
  input.once("error", fail);
  gunzip.once("error", fail);
  let number = 0;
  let trailer: Trailer | undefined;
  try {
    for await (const text of lines) {
      number += 1;
      if (trailer) throw damaged(file, number, "text after the end line");
      let value: unknown;
      try { value = JSON.parse(text); } catch { throw damaged(file, number, "not JSON"); }
      if (!isObject(value)) throw damaged(file, number, "not a JSON object");
      if (number === 1) {
        if (value.format !== FORMAT || !Array.isArray(value.tables) || !value.tables.every((t) => typeof t === "string")) {
          throw new BackupError(`${file} is not a bloc-data backup`);
        }
        if (value.version !== VERSION) {
          throw new BackupError(`${file} is a backup of format version ${String(value.version)}; this bloc-data reads version ${VERSION}`);
        }
        await onHeader(value as unknown as Header);
      } else if (typeof value.table === "string" && isObject(value.row)) {
        await onEntry({ kind: "row", table: value.table, row: value.row as Row });
      } else if (typeof value.content === "string" && typeof value.size === "number") {
        await onEntry({ kind: "content", sha256: value.content, size: value.size });
      } else if (typeof value.chunk === "string") {
        await onEntry({ kind: "chunk", bytes: Buffer.from(value.chunk, "base64") });
      } else if (value.end === true && isObject(value.rows) && typeof value.contents === "number") {
        trailer = value as unknown as Trailer;
      } else {
        throw damaged(file, number, "an unknown kind of line");
      }
    }
  } catch (error) {
    // The file's own failures (a cut gzip stream) as the damage they are; the caller's as they are.
    if (error instanceof BackupError) throw error;
    if (failure === undefined) {
      if (!isZlibError(error)) throw error;
      failure = error;
    }
  } finally {
    input.destroy();
  }
  if (failure !== undefined) {
    throw damaged(file, number + 1, failure.message);
  }
  if (number === 0) throw new BackupError(`${file} is empty`);
  if (!trailer) throw damaged(file, number + 1, "the file ends before its end line");
  return trailer;
}

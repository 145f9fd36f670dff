import type { Readable } from "node:stream";

/** Content streamed to a temporary file and hashed, not yet in place. */
export interface ReceivedContent {
  readonly temporary: string;
  readonly sha256: string;
  readonly size: number;
}

/**
 * Uploaded files' content, stored by SHA-256 (store/file-blobs.ts keeps it on disk).
 * Deciding when content may be deleted is the store's business (content holds and file
 * rows), not this interface's.
 */
export interface Blobs {
  /** Streams content to a temporary file; on any failure (a size limit included) nothing is left behind. */
  receive(content: Readable): Promise<ReceivedContent>;
  /** Moves received content into place; identical content already there is kept and the copy dropped. */
  place(content: ReceivedContent): Promise<void>;
  discard(content: ReceivedContent): Promise<void>;
  /** Opens content for reading; fails (ENOENT) before anything is sent if it is missing. */
  open(sha256: string): Promise<Readable>;
  /** The size of stored content; fails (ENOENT) if it is missing. */
  size(sha256: string): Promise<number>;
  removeNow(sha256: string): void;
}

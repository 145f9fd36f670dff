import type { StoredFile } from "../model.js";

/* Uploaded files' rows, and the holds that keep their content while an upload is under way (content itself: blobs.ts). */

/** A file already on disk, to be tied to a new record; writing it releases the upload's hold on the content. */
export interface NewFile extends Omit<StoredFile, "blocId" | "recordId"> {
  readonly hold: string;
}

export interface FileReads {
  findFile(ref: string): Promise<StoredFile | undefined>;
}

/** Files inside a unit of work (Tx.files). */
export interface FileWrites extends FileReads {
  /** Ties an uploaded file to a record and releases the upload's hold on its content. */
  insertFile(file: NewFile, blocId: string, recordId: number, createdAt: string): Promise<void>;
}

/** Files outside any unit of work (Store.files): what an upload in progress holds. */
export interface ContentHolds extends FileReads {
  /**
   * Marks content as in use by an upload in progress, before the content is put in
   * place; returns the hold's ID. A record that takes the file releases the hold.
   */
  holdContent(sha256: string, createdAt: string): Promise<string>;
  /**
   * Releases an upload's hold; if then no record and no other upload uses the content,
   * calls `remove` (while no other writer can take a new hold on it).
   */
  releaseContent(hold: string, sha256: string, remove: () => void): Promise<void>;
}

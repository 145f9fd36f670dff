import crypto from "node:crypto";
import { once } from "node:events";
import { PassThrough, type Readable } from "node:stream";
import { readConfig, type Config } from "../config.js";
import type { Blobs, ReceivedContent } from "../domain/ports/blobs.js";
import { FileBlobs } from "../store/file-blobs.js";
import { openStore } from "../store/open-store.js";
import { COUNTER_TABLES, TABLES, type Row, type Store, type TableName } from "../domain/ports/store.js";
import { TABLE_SHAPES, withAddedColumns } from "../store/tables.js";
import { BackupError, BackupWriter, FORMAT, VERSION, readBackup, type Entry, type Header, type Trailer } from "./backup-file.js";
import { redactUrl } from "./copy.js";
import { recountMissing } from "../domain/counting/recount.js";
import { setCountingThreshold } from "../domain/counting/keys.js";
import { UsageError } from "./commands.js";
import { refreshStatistics } from "../domain/capabilities.js";

/**
 * `bloc-data backup <file>` and `bloc-data restore <file>`, on DATABASE_URL and
 * BLOC_FILES_DIR. A backup is every row of every table of domain/ports/maintenance.ts TABLES, all
 * read from one consistent snapshot taken while the service goes on writing
 * (Store.exportSnapshot), followed by the content of every uploaded file those rows
 * refer to. Files are content-addressed and never change, and a file's content is on
 * disk before its row commits, so content read after the snapshot is the snapshot's.
 * The format (backup-file.ts) is the same for both engines: a backup restores into
 * either.
 */

/** Rows read or written at a time. */
const BATCH = 1000;
/** Rows of large records are written in smaller batches: at most about this many bytes of JSON at once. */
const BATCH_BYTES = 8 * 1024 * 1024;

export interface BackupReport {
  readonly file: string;
  readonly from: string;
  readonly tables: Record<string, number>;
  readonly rows: number;
  /** The highest record ID in the backup: every record up to the backup's moment, none after. */
  readonly highestRecordId: number;
  readonly contents: number;
  readonly contentBytes: number;
  readonly seconds: number;
}

export interface RestoreReport {
  readonly file: string;
  readonly to: string;
  readonly tables: Record<string, number>;
  readonly rows: number;
  readonly highestRecordId: number;
  readonly contents: number;
  readonly seconds: number;
}

function engineOf(config: Config): string {
  return config.databaseUrl.startsWith("sqlite:") ? "sqlite" : "postgres";
}

function since(started: number): number {
  return Math.round((Date.now() - started) / 100) / 10;
}

function total(counts: Readonly<Record<string, number>>): number {
  return Object.values(counts).reduce((sum, n) => sum + n, 0);
}

/** Writes one content's bytes after its line, checking them against their hash as they are read. */
async function writeContent(writer: BackupWriter, blobs: Blobs, dir: string, sha256: string): Promise<number> {
  let size: number;
  let content: Readable;
  try {
    size = await blobs.size(sha256);
    content = await blobs.open(sha256);
  } catch {
    throw new BackupError(`the content ${sha256} of an uploaded file is missing from BLOC_FILES_DIR (${dir}); ` +
      "put it back, or back up without files (--skip-files) and keep the folder yourself");
  }
  await writer.line({ content: sha256, size });
  const hash = crypto.createHash("sha256");
  let read = 0;
  for await (const chunk of content as AsyncIterable<Buffer>) {
    hash.update(chunk);
    read += chunk.length;
    await writer.line({ chunk: chunk.toString("base64") });
  }
  if (read !== size || hash.digest("hex") !== sha256) {
    throw new BackupError(`the content ${sha256} in BLOC_FILES_DIR (${dir}) does not match its hash: it was changed on disk`);
  }
  return size;
}

/** Writes a backup of `store` (and the contents in `blobs`) to `file`. */
export async function backupStore(
  store: Store, engine: string, blobs: Blobs, dir: string, file: string, withFiles: boolean,
): Promise<Omit<BackupReport, "from" | "seconds">> {
  const writer = await BackupWriter.create(file);
  try {
    const header: Header = { format: FORMAT, version: VERSION, createdAt: new Date().toISOString(), engine, tables: TABLES };
    await writer.line(header);
    const tables = Object.fromEntries(TABLES.map((t) => [t, 0])) as Record<TableName, number>;
    const contents = new Set<string>();
    let highestRecordId = 0;
    await store.maintenance.exportSnapshot(async (source) => {
      for (const table of TABLES) {
        let after: Row | undefined;
        for (;;) {
          const rows = await source.exportRows(table, after, BATCH);
          for (const row of rows) {
            await writer.line({ table, row });
            if (table === "records") highestRecordId = Math.max(highestRecordId, Number(row.id));
            if (table === "files" && withFiles) contents.add(String(row.sha256));
          }
          tables[table] += rows.length;
          if (rows.length < BATCH) break;
          after = rows[rows.length - 1];
        }
      }
    });
    // Read after the snapshot ends, so that a PostgreSQL transaction is not held open while files are copied.
    let contentBytes = 0;
    for (const sha256 of [...contents].sort()) contentBytes += await writeContent(writer, blobs, dir, sha256);
    const trailer: Trailer = { end: true, rows: tables, contents: contents.size, highestRecordId };
    await writer.line(trailer);
    await writer.finish();
    return { file, tables, rows: total(tables), highestRecordId, contents: contents.size, contentBytes };
  } catch (error) {
    await writer.abandon();
    throw error;
  }
}

/**
 * Reads the whole backup once without writing anything: every line well formed, every
 * table known, every row of a known shape, every content matching its hash, the counts
 * of the end line right. A restore starts only from a backup that passes.
 */
async function verify(file: string): Promise<Trailer> {
  let tables: readonly string[] = [];
  const rows = new Map<string, number>();
  let lastTable = -1;
  let content: { sha256: string; size: number; read: number; hash: crypto.Hash } | undefined;
  let contents = 0;
  const closeContent = (): void => {
    if (!content) return;
    if (content.read !== content.size || content.hash.digest("hex") !== content.sha256) {
      throw new BackupError(`${file} is damaged: the content ${content.sha256} does not match its hash`);
    }
    content = undefined;
  };
  const trailer = await readBackup(file, (header) => {
    const unknown = header.tables.filter((t) => !(TABLES as readonly string[]).includes(t) && !RETIRED_TABLES.includes(t));
    if (unknown.length > 0) {
      throw new BackupError(`${file} holds tables this version of bloc-data does not know (${unknown.join(", ")}): ` +
        "restore it with the version that made it, or a newer one");
    }
    tables = header.tables;
  }, (entry: Entry) => {
    if (entry.kind === "row") {
      const index = tables.indexOf(entry.table);
      if (index < 0 || index < lastTable || content || contents > 0) {
        throw new BackupError(`${file} is damaged: rows of ${entry.table} where they cannot be`);
      }
      lastTable = index;
      rows.set(entry.table, (rows.get(entry.table) ?? 0) + 1);
      if (RETIRED_TABLES.includes(entry.table)) return;
      const { columns } = TABLE_SHAPES[entry.table as TableName];
      const extra = Object.keys(entry.row).filter((c) => !columns.includes(c));
      if (extra.length > 0) {
        throw new BackupError(`${file} holds columns of ${entry.table} this version of bloc-data does not know (${extra.join(", ")})`);
      }
    } else if (entry.kind === "content") {
      closeContent();
      contents += 1;
      content = { sha256: entry.sha256, size: entry.size, read: 0, hash: crypto.createHash("sha256") };
    } else {
      if (!content) throw new BackupError(`${file} is damaged: file bytes outside any content`);
      content.hash.update(entry.bytes);
      content.read += entry.bytes.length;
    }
  });
  closeContent();
  const differ = tables.filter((t) => (rows.get(t) ?? 0) !== (trailer.rows[t] ?? 0));
  if (differ.length > 0 || contents !== trailer.contents) {
    throw new BackupError(`${file} is damaged: it holds ${differ.map((t) => `${rows.get(t) ?? 0} rows of ${t}`).join(", ") ||
      `${contents} contents`} where its end line says ${differ.map((t) => trailer.rows[t] ?? 0).join(", ") || trailer.contents}`);
  }
  return trailer;
}

/**
 * Tables of earlier versions that a restore reads past: the counters of before, which the
 * service now keeps otherwise and counts again from the restored records.
 */
const RETIRED_TABLES: readonly string[] = ["day_counts", "value_totals", "period_values"];
const COUNTED: readonly TableName[] = COUNTER_TABLES;

/** Writes the rows and contents of a verified backup into an empty store and files folder. */
async function load(file: string, store: Store, blobs: Blobs): Promise<void> {
  let pending: Row[] = [];
  let pendingTable: TableName | undefined;
  let pendingBytes = 0;
  const flush = async (): Promise<void> => {
    if (pendingTable && pending.length > 0) await store.maintenance.importRows(pendingTable, pending);
    pending = [];
    pendingBytes = 0;
  };
  let content: { sha256: string; input: PassThrough; received: Promise<ReceivedContent> } | undefined;
  const placeContent = async (): Promise<void> => {
    if (!content) return;
    content.input.end();
    const received = await content.received;
    if (received.sha256 !== content.sha256) {
      await blobs.discard(received);
      throw new BackupError(`${file} changed while it was restored: the content ${content.sha256} no longer matches`);
    }
    await blobs.place(received);
    content = undefined;
  };
  await readBackup(file, () => undefined, async (entry) => {
    if (entry.kind === "row") {
      if (RETIRED_TABLES.includes(entry.table)) return;
      if (entry.table !== pendingTable) {
        await flush();
        pendingTable = entry.table as TableName;
      }
      pending.push(withAddedColumns(entry.table as TableName, entry.row));
      pendingBytes += JSON.stringify(entry.row).length;
      if (pending.length >= BATCH || pendingBytes >= BATCH_BYTES) await flush();
    } else if (entry.kind === "content") {
      await flush();
      await placeContent();
      const input = new PassThrough();
      // A failure to write the content (a full disk) surfaces through `received`.
      input.on("error", () => undefined);
      const received = blobs.receive(input);
      received.catch(() => undefined); // awaited in placeContent
      content = { sha256: entry.sha256, input, received };
    } else if (content) {
      if (content.input.destroyed) await content.received;
      if (!content.input.write(entry.bytes)) await Promise.race([once(content.input, "drain"), content.received]);
    }
  });
  await flush();
  await placeContent();
}

/** Restores a backup into `store`, which must be empty, and its contents into `blobs`. */
export async function restoreStore(store: Store, blobs: Blobs, file: string): Promise<Omit<RestoreReport, "to" | "seconds">> {
  const before = await store.maintenance.tableSizes();
  const filled = TABLES.filter((t) => before[t] > 0);
  if (filled.length > 0) {
    throw new BackupError(`restore needs an empty store, and DATABASE_URL holds rows (${filled.map((t) => `${t}: ${before[t]}`).join(", ")}); ` +
      "restore into a new, empty database");
  }
  const trailer = await verify(file);
  await load(file, store, blobs);
  // A backup of an earlier version holds no counters of today's kind: its blocs are counted again.
  const recounted = await recountMissing(store);
  // The planner's statistics of what was loaded, before the service answers from it.
  await refreshStatistics(store);
  const after = await store.maintenance.tableSizes();
  const expected = (t: TableName): number => (recounted > 0 && COUNTED.includes(t) ? after[t] : trailer.rows[t] ?? 0);
  const differ = TABLES.filter((t) => after[t] !== expected(t));
  if (differ.length > 0) {
    throw new BackupError(`the restore is incomplete: ${differ.map((t) => `${t} has ${after[t]} rows, the backup ${expected(t)}`)
      .join("; ")}. Was the store written to during the restore? Empty it and restore again`);
  }
  return {
    file, tables: { ...trailer.rows }, rows: total(trailer.rows), highestRecordId: trailer.highestRecordId, contents: trailer.contents,
  };
}

export interface BackupOptions {
  readonly "skip-files"?: boolean | undefined;
}

/** `backup <file>` or `restore <file>` on the configured store; the report goes to stdout. */
export async function runBackupCommand(positionals: readonly string[], options: BackupOptions): Promise<BackupReport | RestoreReport> {
  const [command, file, ...rest] = positionals;
  if (file === undefined || file === "" || rest.length > 0) throw new UsageError(`${command} needs one <file>`);
  if (command === "restore" && options["skip-files"]) throw new UsageError("--skip-files is an option of backup, not restore");
  const config = readConfig();
  const started = Date.now();
  // Only the store: BLOC_ADMIN_TOKEN would add an admin to the store a restore needs empty.
  const store = await openStore(config);
  // A restore that counts blocs again counts them as the service configured here would.
  setCountingThreshold(config.countedAbove);
  try {
    const blobs = new FileBlobs(config.filesDir);
    if (command === "backup") {
      const report = await backupStore(store, engineOf(config), blobs, config.filesDir, file, !options["skip-files"]);
      return { ...report, from: redactUrl(config.databaseUrl), seconds: since(started) };
    }
    const report = await restoreStore(store, blobs, file);
    return { ...report, to: redactUrl(config.databaseUrl), seconds: since(started) };
  } finally {
    await store.close();
  }
}

import type { SequenceTemplate } from "../autogenerate.js";
import type { Order, RecordCursor, RecordFilter, StoredRecord } from "../model.js";
import type { ValueCount } from "./counters.js";

/*
 * What the domain needs of the records: plain queries over them and plain writes, no
 * rules. Which query answers what, and how, is decided above the engines
 * (domain/record-queries.ts, domain/counting/answers.ts).
 */

export interface NewRecord {
  readonly blocId: string;
  readonly createdAt: string;
  readonly userId: string;
  readonly submittedStatus: number;
  readonly jobId: string | null;
  readonly values: Readonly<Record<string, string>>;
}

export interface Page {
  readonly order: Order;
  readonly limit: number;
  readonly offset: number;
}

/** A page of records: by offset, or (for streaming) strictly after a position, then by offset. */
export interface RowPage extends Page {
  readonly after?: RecordCursor | undefined;
  /**
   * Stops before the record that would take the page past this many bytes (of the
   * records' data as JSON text, or of the projected rows), so that old records of any
   * size cannot make a page hold more; the first record is always returned. The caller
   * tells a cut page from a short one by the count, or reads on after its last record.
   */
  readonly maxBytes?: number | undefined;
}

/** One column of a report row: a record's system value, a part of its time, or a field. */
export interface RowColumn {
  readonly key: string;
  readonly source: "created_at" | "user_id" | "time_stamp" | "date_stamp" | { readonly field: string };
}

export interface ProjectedRow extends RecordCursor {
  /** The row as a JSON object text, keys in column order, absent fields as "". */
  readonly json: string;
}

/** Field slug → its values, in the order they rank. */
export type ValueCounts = ReadonlyMap<string, readonly ValueCount[]>;

/**
 * A field value that must match, within a group (another field's value) when given. A
 * record without the group field counts as holding "" there.
 */
export interface ValueLookup {
  readonly slug: string;
  readonly value: string;
  readonly group?: { readonly slug: string; readonly value: string } | undefined;
}

/** What one update changed in one record: field slug (or `submitted_status`) → its value before and after. */
export type Changes = Readonly<Record<string, { readonly from: string; readonly to: string }>>;

/** What a history entry records: an update, or the record's deletion or restore. */
export type HistoryAction = "updated" | "deleted" | "restored";

/** One update (or deletion, or restore) of one record, as its history keeps it. */
export interface HistoryEntry {
  readonly recordId: number;
  readonly action: HistoryAction;
  /** `YYYY-MM-DD HH:MM:SS` in the service's time zone, like `created_at`. */
  readonly at: string;
  readonly userId: string;
  /** The token the update was made through; null when made without one. */
  readonly tokenId: string | null;
  readonly changes: Changes;
}

/** Reads of the records, alike inside a transaction, a snapshot or on their own (Store.records). */
export interface RecordReads {
  /** Records the filter selects, counted from the records themselves. */
  countRecords(filter: RecordFilter): Promise<number>;
  /** A page of the records the filter selects, in `page.order` (created_at, then id). */
  listRecords(filter: RecordFilter, page: RowPage): Promise<StoredRecord[]>;
  /**
   * Every record the filter selects, in no particular order: what an update works on.
   * Unordered so that an engine can find them through a value index alone.
   */
  findRecords(filter: RecordFilter): Promise<StoredRecord[]>;
  /** Like listRecords, each record projected onto `columns` as the text of a JSON object. */
  listRows(filter: RecordFilter, page: RowPage, columns: readonly RowColumn[]): Promise<ProjectedRow[]>;
  /**
   * Value counts of the given fields over the records the filter selects, counted from
   * the records; empty values are not counted. Per field the `limit` most frequent, most
   * frequent first, ties by value in code-point order; with `limit` 0 all of them, in no
   * particular order (their callers sum and rank them); long values as null.
   */
  tallyValues(filter: RecordFilter, slugs: readonly string[], limit: number): Promise<ValueCounts>;

  /** IDs of records of the bloc matching the lookup, at most `limit`. */
  holders(blocId: string, lookup: ValueLookup, limit: number): Promise<number[]>;
  /** The last counter handed out for this field and template, if one was saved. */
  lastSequence(blocId: string, slug: string, template: SequenceTemplate): Promise<number | undefined>;
  /**
   * Values of `slug` that start with the template's prefix (within its group), in
   * code-point order, after `after` (from the start when null), at most `limit`.
   */
  valuesWithPrefix(blocId: string, slug: string, template: SequenceTemplate, after: string | null, limit: number): Promise<string[]>;

  /**
   * The history of one record of a bloc, oldest first, whether the record is deleted or
   * not; undefined when the bloc never held such a record.
   */
  recordHistory(blocId: string, recordId: number): Promise<HistoryEntry[] | undefined>;
}

/**
 * The records inside a unit of work (Tx.records). Record writes exist only here, so that
 * nothing can change records without the counters changing with them.
 */
export interface RecordWrites extends RecordReads {
  /**
   * Serialises writers of one bloc until the transaction ends, across processes: what a
   * unit reads of the bloc's records after this stays true until it commits. Present
   * exactly when the engine's capabilities say `perBlocLocks` (domain/capabilities.ts).
   */
  lockBloc?(blocId: string): Promise<void>;
  /** Returns the new record's ID. */
  insertRecord(record: NewRecord): Promise<number>;
  /**
   * Merges `fields` into the values of every record the filter selects and sets their
   * status when given; returns their IDs ascending.
   */
  updateValues(filter: RecordFilter, fields: Readonly<Record<string, string>>, status: number | undefined): Promise<number[]>;
  /** Adds one entry per changed record to the records' history. */
  insertHistory(blocId: string, entries: readonly HistoryEntry[]): Promise<void>;
  /**
   * Moves the bloc's records with these IDs, whole, from the records to the deleted
   * records, noting when and by whom; returns how many moved.
   */
  moveToDeleted(blocId: string, ids: readonly number[], deletedAt: string, deletedBy: string): Promise<number>;
  /** A deleted record of the bloc, as it was when deleted; undefined when there is none with this ID. */
  findDeletedRecord(blocId: string, id: number): Promise<StoredRecord | undefined>;
  /** Moves a deleted record back to the records with its ID; false when there was none. */
  moveFromDeleted(blocId: string, id: number): Promise<boolean>;
  /** Raises the saved counter of an autogenerate template to at least `last`. */
  saveSequence(blocId: string, slug: string, template: SequenceTemplate, last: number): Promise<void>;
}

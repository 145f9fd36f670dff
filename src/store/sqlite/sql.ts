import {
  RECORD_ID_KEY, STATUS_KEY,
  type MatchCondition, type Order, type RecordFilter, type StoredRecord, type Visibility,
} from "../../domain/model.js";
import type { RowColumn } from "../../domain/ports/store.js";
import { IN_LIST, fieldPath, jsonList, type Param } from "./statements.js";
import { indexedTerm, valueSql } from "./value-indexes.js";

/* The SQL that record queries share: conditions for filters and visibility, orders, projections. */

export interface RecordRow {
  id: number;
  created_at: string;
  user_id: string;
  submitted_status: number;
  job_id: string | null;
  data: string;
}

/** What a query selects from `records AS r`, with its parameters, and how a row becomes a result. */
export interface Projection<T> {
  readonly columns: string;
  readonly params: readonly Param[];
  /** The selected column whose text a page's byte budget (RowPage.maxBytes) counts. */
  readonly sized: string;
  readonly map: (row: Record<string, unknown>) => T;
}

export const RECORDS: Projection<StoredRecord> = {
  columns: "r.id, r.created_at, r.user_id, r.submitted_status, r.job_id, r.data", params: [], sized: "data",
  map: (row) => toRecord(row as unknown as RecordRow),
};

/** The SQL for one report column's value. */
export function sourceSql(column: RowColumn): string {
  switch (column.source) {
    case "created_at": return "r.created_at";
    case "user_id": return "r.user_id";
    case "time_stamp": return "substr(r.created_at, 12)";
    case "date_stamp": return "substr(r.created_at, 1, 10)";
    default: return `COALESCE(json_extract(r.data, '${fieldPath(column.source.field)}'), '')`;
  }
}

export function toRecord(row: RecordRow): StoredRecord {
  return {
    id: row.id,
    createdAt: row.created_at,
    userId: row.user_id,
    submittedStatus: row.submitted_status,
    jobId: row.job_id,
    values: JSON.parse(row.data) as Record<string, string>,
  };
}

/**
 * `key IN (values)` over `records AS r`; an empty list matches everything or nothing, as
 * asked. The values travel as one parameter (IN_LIST), so the text is the same for
 * every length of list. The field named `driver` (value-plan.ts) is written in its value
 * index's form; any other field's condition is written so that no index serves it
 * (unary +), to be checked on the rows the query reads.
 */
export function conditionSql(condition: MatchCondition, empty: "all" | "none", parts: string[], params: Param[], driver?: string): void {
  if (condition.values.length === 0) {
    if (empty === "none") parts.push("0 = 1");
    return;
  }
  if (condition.key === RECORD_ID_KEY) {
    parts.push(`CAST(r.id AS TEXT) ${IN_LIST}`);
  } else if (condition.key === STATUS_KEY) {
    parts.push(`CAST(r.submitted_status AS TEXT) ${IN_LIST}`);
  } else if (condition.values.includes("")) {
    // A field never set reads "", so it must match a search for "".
    parts.push(`COALESCE(json_extract(r.data, ?), '') ${IN_LIST}`);
    params.push(fieldPath(condition.key));
  } else if (condition.key === driver) {
    // The path is inlined, not bound, and the index's own condition added, so that the
    // field's partial value index (value-indexes.ts) serves the lookup.
    parts.push(`${valueSql(condition.key)} ${IN_LIST} AND ${indexedTerm(condition.key)}`);
  } else {
    parts.push(`+${valueSql(condition.key)} ${IN_LIST}`);
  }
  params.push(jsonList(condition.values));
}

export function visibilitySql(visibility: Visibility | undefined, parts: string[], params: Param[], driver?: string): void {
  if (visibility?.none) parts.push("0 = 1");
  // Driven by a value index, the owner is checked on the rows it finds (+: not through the owner's index).
  const user = driver === undefined ? "r.user_id" : "+r.user_id";
  if (visibility?.ownerId !== undefined) { parts.push(`${user} = ?`); params.push(visibility.ownerId); }
  for (const condition of visibility?.match ?? []) conditionSql(condition, "none", parts, params, driver);
}

/**
 * The SQL condition and its parameters for a filter, visibility included, over `records
 * AS r`; `driver` is the field whose value index is to serve it (value-plan.ts), if any.
 */
export function whereClause(filter: RecordFilter, driver?: string): { sql: string; params: Param[] } {
  const parts = ["r.bloc_id = ?"];
  const params: Param[] = [filter.blocId];
  visibilitySql(filter.visibility, parts, params, driver);
  // Driven by a value index, the window is checked on the rows it finds (+: not by walking the time index).
  const time = driver === undefined ? "r.created_at" : "+r.created_at";
  if (filter.from !== undefined) { parts.push(`${time} >= ?`); params.push(filter.from); }
  if (filter.to !== undefined) { parts.push(`${time} <= ?`); params.push(filter.to); }
  for (const condition of filter.match ?? []) conditionSql(condition, "all", parts, params, driver);
  return { sql: parts.join(" AND "), params };
}

/**
 * ORDER BY created_at, id. `sorted`: the rows are found through a value index and sorted
 * (value-plan.ts); unary + keeps the time index, which would give the order without a
 * sort, from being chosen to walk the bloc instead.
 */
export function orderBy(order: Order, sorted = false): string {
  const [time, id] = sorted ? ["+r.created_at", "+r.id"] : ["r.created_at", "r.id"];
  return order === "newest" ? `${time} DESC, ${id} DESC` : `${time} ASC, ${id} ASC`;
}



/** Escapes LIKE's wildcards so that a prefix is matched literally. */
export function likePrefix(text: string): string {
  return `${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

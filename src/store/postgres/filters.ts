import {
  RECORD_ID_KEY, STATUS_KEY,
  type MatchCondition, type Order, type RecordFilter, type Visibility,
} from "../../domain/model.js";
import { storable, type Param, type RunOptions } from "./driver.js";
import { FIELD_HEAD, headTail } from "./key-heads.js";

/*
 * The SQL that record queries share: conditions for filters and visibility over
 * `records AS r`, and orders. Lists travel as one array parameter, so a filter's SQL
 * text depends only on its shape (which conditions, on which fields), never on how
 * many values it lists. Shapes the service makes (visibility, dates, order) are few
 * and prepared; shapes a client picks (a report filtering or an update searching by
 * any subset of fields) are sent unprepared, so that no connection keeps them.
 */

/** Positional parameters of one statement, numbered as they are added. */
export class Params {
  readonly values: Param[] = [];
  /** The text holds conditions a client chose: see RunOptions. */
  private clientShaped = false;

  constructor(first: readonly Param[] = []) {
    this.values.push(...first);
  }

  /** How the statement is to be run: unprepared when its shape is a client's choice. */
  get options(): RunOptions {
    return { prepare: !this.clientShaped };
  }

  /** Marks the text as shaped by a client's choice of conditions. */
  shapedByClient(): void {
    this.clientShaped = true;
  }

  /** Adds a value and returns its placeholder. */
  add(value: Param): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/** A string literal; slugs are validated to [A-Za-z0-9_] above, and quoting keeps any text inert. */
export function literal(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

/**
 * A field's value in `records AS r`; null when the record has no such field. The slug
 * is inlined, not bound, so that the field's expression index (field-indexes.ts) can
 * serve lookups on it.
 */
export function fieldSql(slug: string, alias = "r"): string {
  return `(${alias === "" ? "" : `${alias}.`}data ->> ${literal(slug)})`;
}

/**
 * A field's value as its index (field-indexes.ts) keys it: the head of the value, in
 * byte order. With the tail (the SHA-256 of a value longer than the head), the index
 * finds a value without ever holding one that is too long for an index entry.
 */
export function fieldHead(slug: string, alias = "r"): string {
  return `left(${fieldSql(slug, alias)}, ${FIELD_HEAD}) COLLATE "C"`;
}

/** The condition of a field's partial value index (field-indexes.ts): a query must carry it for the index to serve. */
export function indexedTerm(slug: string, alias = "r"): string {
  return `${fieldSql(slug, alias)} <> ''`;
}

/**
 * `field = value` served by the field's index: head and tail find the candidates, the
 * values themselves decide. `nonEmpty`: the value is known not to be "" (then the
 * index's condition holds and is added; "" is found without the index).
 */
export function fieldEquals(slug: string, placeholder: string, nonEmpty: boolean, alias = "r"): string {
  const [head, tail] = headTail(`${placeholder}::text`, FIELD_HEAD);
  const [, fieldTail] = headTail(fieldSql(slug, alias), FIELD_HEAD);
  return `${fieldHead(slug, alias)} = ${head} AND ${fieldTail} = ${tail} AND ${fieldSql(slug, alias)} = ${placeholder}::text`
    + (nonEmpty ? ` AND ${indexedTerm(slug, alias)}` : "");
}

/**
 * `field IN (values)` for a list parameter of non-empty values: the heads find the
 * candidates (one indexable array), the values decide.
 */
function fieldIn(slug: string, placeholder: string): string {
  const [head] = headTail("v", FIELD_HEAD);
  return `${fieldHead(slug)} = ANY(ARRAY(SELECT ${head} FROM unnest(${placeholder}::text[]) AS v))`
    + ` AND ${fieldSql(slug)} = ANY(${placeholder}::text[]) AND ${indexedTerm(slug)}`;
}

/** Record IDs as SQLite's CAST(id AS TEXT) would equal them: only canonical decimal integers. */
function recordIds(values: readonly string[]): number[] {
  return values.filter((v) => /^(0|[1-9]\d{0,14})$/.test(v)).map(Number);
}

/**
 * `key IN (values)` over `records AS r`; an empty list matches everything or nothing, as
 * asked. The field named `driver` (../value-plan.ts) is written in its value index's
 * form; any other field's condition on the value alone, which no index serves, to be
 * checked on the rows the query reads.
 */
function conditionSql(condition: MatchCondition, empty: "all" | "none", parts: string[], params: Params, driver: string | undefined): void {
  if (condition.values.length === 0) {
    if (empty === "none") parts.push("false");
    return;
  }
  const values = condition.values.filter(storable);
  if (values.length === 0) {
    // Only values no record can hold were listed: nothing matches.
    parts.push("false");
    return;
  }
  if (condition.key === RECORD_ID_KEY) {
    parts.push(`r.id = ANY(${params.add(recordIds(values))}::bigint[])`);
  } else if (condition.key === STATUS_KEY) {
    parts.push(`r.submitted_status::text = ANY(${params.add(values)}::text[])`);
  } else if (values.includes("")) {
    // A field never set reads "", so it must match a search for "".
    parts.push(`COALESCE(${fieldSql(condition.key)}, '') = ANY(${params.add(values)}::text[])`);
  } else if (condition.key === driver) {
    parts.push(fieldIn(condition.key, params.add(values)));
  } else {
    parts.push(`${fieldSql(condition.key)} = ANY(${params.add(values)}::text[])`);
  }
}

function visibilitySql(visibility: Visibility | undefined, parts: string[], params: Params, driver: string | undefined): void {
  if (visibility?.none) parts.push("false");
  if (visibility?.ownerId !== undefined) {
    parts.push(storable(visibility.ownerId) ? `r.user_id = ${params.add(visibility.ownerId)}::text` : "false");
  }
  for (const condition of visibility?.match ?? []) conditionSql(condition, "none", parts, params, driver);
}

/**
 * The condition for a filter, visibility included, over `records AS r`; its parameters
 * go into `params`. `driver`: the field whose value index is to serve it (value-driver.ts).
 */
export function whereSql(filter: RecordFilter, params: Params, driver?: string): string {
  const parts = [`r.bloc_id = ${params.add(filter.blocId)}::text`];
  visibilitySql(filter.visibility, parts, params, driver);
  if (filter.from !== undefined) parts.push(`r.created_at >= ${params.add(filter.from)}::text`);
  if (filter.to !== undefined) parts.push(`r.created_at <= ${params.add(filter.to)}::text`);
  for (const condition of filter.match ?? []) {
    if (condition.values.length > 0) params.shapedByClient();
    conditionSql(condition, "all", parts, params, driver);
  }
  return parts.join(" AND ");
}

/**
 * ORDER BY created_at, id. `sorted`: the rows are found through a value index and sorted
 * (value-driver.ts); ordering by an expression keeps the time index, which would give the
 * order without a sort, from being chosen to walk the bloc instead (the same order: the
 * column is COLLATE "C" and so is the expression).
 */
export function orderSql(order: Order, alias = "r", sorted = false): string {
  const time = sorted ? `(${alias}.created_at || '')` : `${alias}.created_at`;
  return order === "newest" ? `${time} DESC, ${alias}.id DESC` : `${time} ASC, ${alias}.id ASC`;
}

import { LISTED_VALUE_MAX } from "../../domain/field-counts.js";
import type {
  Scope, ScopeCountChange, ScopeKey, ValueCount, ValueCountChange,
} from "../../domain/ports/counters.js";
import { IN_LIST, jsonList, type Param, type Statements } from "./statements.js";
import { indexedTerm, valueSql } from "./value-indexes.js";

/*
 * The counter tables (domain/ports/counters.ts): plain reads and writes by the keys the
 * domain gives. A long value's text stays in the database when values are ranked.
 */

const LISTED = `CASE WHEN length(value) <= ${LISTED_VALUE_MAX} THEN value END`;
const SCOPE_COLUMNS = "id, segment, period, n, counted";

interface ScopeRow { id: number; segment: string; period: string; n: number; counted: number }

function toScope(row: ScopeRow): Scope {
  return { id: row.id, segment: row.segment, period: row.period, n: row.n, counted: row.counted === 1 };
}

function keyList(keys: readonly ScopeKey[]): string {
  return JSON.stringify(keys.map((k) => [k.segment, k.period]));
}

function idList(ids: readonly number[]): string {
  return JSON.stringify(ids);
}

export function scopes(sql: Statements, blocId: string, keys: readonly ScopeKey[]): Scope[] {
  if (keys.length === 0) return [];
  return (sql.get(`SELECT ${SCOPE_COLUMNS} FROM counter_scopes WHERE bloc_id = ?
    AND (segment, period) IN (SELECT value ->> 0, value ->> 1 FROM json_each(?))`)
    .all(blocId, keyList(keys)) as ScopeRow[]).map(toScope);
}

export function periodCounts(sql: Statements, blocId: string, segments: readonly string[], from: string, to: string): { period: string; n: number }[] {
  return sql.get(`SELECT period, SUM(n) AS n FROM counter_scopes
    WHERE bloc_id = ? AND segment ${IN_LIST} AND period >= ? AND period <= ? GROUP BY period ORDER BY period`)
    .all(blocId, jsonList(segments), from, to) as { period: string; n: number }[];
}

export function repeatedValues(sql: Statements, ids: readonly number[], slug: string, limit: number): ValueCount[] {
  // One scope's values are read by the table's key and sorted (no index keeps them by count: schema.ts); several are summed. LIMIT -1 is none.
  const statement = ids.length === 1
    ? sql.get(`SELECT ${LISTED}, n FROM value_counts WHERE scope_id = ? AND slug = ? AND n >= 2 AND value <> ''
        ORDER BY n DESC, value LIMIT ?`)
    : sql.get(`SELECT ${LISTED}, n FROM (SELECT value, SUM(n) AS n FROM value_counts
        WHERE scope_id IN (SELECT value FROM json_each(?)) AND slug = ? AND value <> ''
        GROUP BY value HAVING SUM(n) >= 2 ORDER BY n DESC, value LIMIT ?)`);
  return statement.raw().all(ids.length === 1 ? ids[0]! : idList(ids), slug, limit > 0 ? limit : -1) as [string | null, number][];
}

export function countsOf(sql: Statements, ids: readonly number[], slug: string, values: readonly string[]): [string, number][] {
  if (ids.length === 0 || values.length === 0) return [];
  return sql.get(`SELECT value, SUM(n) FROM value_counts WHERE scope_id IN (SELECT value FROM json_each(?)) AND slug = ?
    AND value ${IN_LIST} GROUP BY value`).raw().all(idList(ids), slug, jsonList(values)) as [string, number][];
}

export function countsOfPairs(sql: Statements, scope: number, pairs: readonly { slug: string; value: string }[]): [string, string, number][] {
  if (pairs.length === 0) return [];
  return sql.get(`SELECT slug, value, n FROM value_counts WHERE scope_id = ?
    AND (slug, value) IN (SELECT value ->> 0, value ->> 1 FROM json_each(?))`)
    .raw().all(scope, JSON.stringify(pairs.map((p) => [p.slug, p.value]))) as [string, string, number][];
}

export function valuesHeldTwice(sql: Statements, blocId: string, slug: string, after: string | null, limit: number): [string, number][] {
  // Values above `after` (at least "") are non-empty: the index's condition holds, so the slug's value index serves the grouping.
  const value = valueSql(slug);
  return sql.get(`SELECT ${value} AS v, COUNT(*) AS n FROM records r
    WHERE r.bloc_id = ? AND ${indexedTerm(slug)} AND ${value} > ? GROUP BY ${value} HAVING COUNT(*) >= 2 ORDER BY ${value} LIMIT ?`)
    .raw().all(blocId, after ?? "", limit) as [string, number][];
}

export function holderCounts(sql: Statements, blocId: string, keys: readonly { slug: string; value: string }[], cap: number): number[] {
  return keys.map(({ slug, value }) => (sql.get(`SELECT COUNT(*) AS n FROM (SELECT 1 FROM records r
    WHERE r.bloc_id = ? AND ${valueSql(slug)} = ? AND ${indexedTerm(slug)} LIMIT ?)`).get(blocId, value, cap) as { n: number }).n);
}

export function blocsWithoutScope(sql: Statements, key: ScopeKey): string[] {
  return sql.get(`SELECT b.id FROM blocs b WHERE EXISTS (SELECT 1 FROM records r WHERE r.bloc_id = b.id)
    AND NOT EXISTS (SELECT 1 FROM counter_scopes c WHERE c.bloc_id = b.id AND c.segment = ? AND c.period = ?) ORDER BY b.id`)
    .pluck().all(key.segment, key.period) as string[];
}

export function changeScopes(sql: Statements, blocId: string, changes: readonly ScopeCountChange[]): Scope[] {
  const upsert = sql.get(`INSERT INTO counter_scopes (bloc_id, segment, period, n) VALUES (?, ?, ?, ?)
    ON CONFLICT (bloc_id, segment, period) DO UPDATE SET n = n + excluded.n RETURNING ${SCOPE_COLUMNS}`);
  const changed: Scope[] = [];
  const emptied: number[] = [];
  for (const change of changes) {
    const scope = toScope(upsert.get(blocId, change.segment, change.period, change.n) as ScopeRow);
    if (scope.n > 0) changed.push(scope); else { emptied.push(scope.id); changed.push({ ...scope, n: 0 }); }
  }
  if (emptied.length > 0) {
    sql.get("DELETE FROM value_counts WHERE scope_id IN (SELECT value FROM json_each(?))").run(idList(emptied));
    sql.get("DELETE FROM counter_scopes WHERE id IN (SELECT value FROM json_each(?))").run(idList(emptied));
  }
  return changed;
}

export function markCounted(sql: Statements, ids: readonly number[]): void {
  if (ids.length > 0) sql.get("UPDATE counter_scopes SET counted = 1 WHERE id IN (SELECT value FROM json_each(?))").run(idList(ids));
}

export function changeValues(sql: Statements, changes: readonly ValueCountChange[]): void {
  const upsert = sql.get(`INSERT INTO value_counts (scope_id, slug, value, n) VALUES (?, ?, ?, ?)
    ON CONFLICT (scope_id, slug, value) DO UPDATE SET n = n + excluded.n`);
  const prune = sql.get("DELETE FROM value_counts WHERE scope_id = ? AND slug = ? AND value = ? AND n <= 0");
  for (const change of changes) {
    if (change.n === 0) continue;
    const params: Param[] = [change.scope, change.slug, change.value];
    upsert.run(...params, change.n);
    if (change.n < 0) prune.run(...params);
  }
}

export function removeValue(sql: Statements, ids: readonly number[], slug: string, value: string): void {
  if (ids.length === 0) return;
  sql.get("DELETE FROM value_counts WHERE scope_id IN (SELECT value FROM json_each(?)) AND slug = ? AND value = ?")
    .run(idList(ids), slug, value);
}

export function clearCounters(sql: Statements, blocId: string): void {
  sql.get("DELETE FROM value_counts WHERE scope_id IN (SELECT id FROM counter_scopes WHERE bloc_id = ?)").run(blocId);
  sql.get("DELETE FROM counter_scopes WHERE bloc_id = ?").run(blocId);
}

import { LISTED_VALUE_MAX } from "../../domain/field-counts.js";
import type {
  Scope, ScopeCountChange, ScopeKey, ValueCount, ValueCountChange,
} from "../../domain/ports/counters.js";
import { storable, type Db } from "./driver.js";
import { fieldEquals, fieldHead, fieldSql, indexedTerm } from "./filters.js";
import { COUNTER_HEAD, FIELD_HEAD, headTail } from "./key-heads.js";
import { EXACT_RANKS } from "./value-ranks.js";

/*
 * The counter tables (domain/ports/counters.ts): plain reads and writes by the keys the
 * domain gives. A segment or value is keyed on (head, tail) (schema.ts), never on its
 * whole text, which may be longer than an index entry holds.
 */

const SCOPE_COLUMNS = "c.id, c.segment, c.period, c.n, c.counted";

interface ScopeRow { id: number; segment: string; period: string; n: number; counted: number }

function toScope(row: ScopeRow): Scope {
  return { id: Number(row.id), segment: row.segment, period: row.period, n: Number(row.n), counted: Number(row.counted) === 1 };
}

/** `alias.column` keyed as `text` is: head and tail equal. */
function sameKey(column: string, text: string): string {
  const [head, tail] = headTail(column, COUNTER_HEAD);
  const [otherHead, otherTail] = headTail(text, COUNTER_HEAD);
  return `${head} = ${otherHead} AND ${tail} = ${otherTail}`;
}

/*
 * Keys travel as arrays, looked up one by one through counter_scopes_key (LATERAL): a
 * join let a prepared statement's generic plan, which guesses ten keys, hash every scope
 * of the bloc instead, computing each one's key (a bloc in use has thousands of scopes;
 * at 567, 1 ms against 0.1 ms, five times per group commit of add-data).
 */
export async function scopes(db: Db, blocId: string, keys: readonly ScopeKey[]): Promise<Scope[]> {
  const wanted = keys.filter((k) => storable(k.segment));
  if (wanted.length === 0) return [];
  const rows = await db.run<ScopeRow>(`
    SELECT ${SCOPE_COLUMNS} FROM unnest($2::text[], $3::text[]) AS k(s, p)
    CROSS JOIN LATERAL (SELECT * FROM counter_scopes c
      WHERE c.bloc_id = $1::text AND ${sameKey("c.segment", "k.s")} AND c.period = k.p LIMIT 1) c`,
  [blocId, wanted.map((k) => k.segment), wanted.map((k) => k.period)]);
  return rows.map(toScope);
}

export async function periodCounts(db: Db, blocId: string, segments: readonly string[], from: string, to: string): Promise<{ period: string; n: number }[]> {
  const rows = await db.run<{ period: string; n: number }>(`
    SELECT c.period, sum(c.n)::bigint AS n FROM unnest($2::text[]) AS s(s)
    CROSS JOIN LATERAL (SELECT c.period, c.n FROM counter_scopes c
      WHERE c.bloc_id = $1::text AND ${sameKey("c.segment", "s.s")} AND c.period >= $3::text AND c.period <= $4::text OFFSET 0) c
    GROUP BY c.period ORDER BY c.period`, [blocId, segments.filter(storable), from, to]);
  return rows.map((row) => ({ period: row.period, n: Number(row.n) }));
}

/** The rows of scope $1 and field $2 that hold a value, as `alias`. */
const inScope = (alias: string): string => `${alias}.scope_id = $1::bigint AND ${alias}.slug = $2::text AND ${alias}.value <> ''`;

/*
 * The candidates for one scope's first $3 (0: all) values held twice or more, off
 * value_counts_top in rank order (value-ranks.ts). Below EXACT_RANKS the rank is the count,
 * and the index gives them in order. Above it a rank holds counts within a sixteenth of
 * each other: every value among the first $3 is ranked at least as high as the $3-th one
 * in rank order (a lower rank is a lower count), so those are read; the caller sorts the
 * two parts together by count and keeps the first $3.
 */
const topValues = `
    (SELECT v.value, v.n FROM value_counts v WHERE ${inScope("v")} AND v.rank >= ${EXACT_RANKS} AND v.rank >= CASE WHEN $3::bigint = 0
      THEN ${EXACT_RANKS} ELSE COALESCE((SELECT e.rank FROM value_counts e WHERE ${inScope("e")} AND e.rank >= ${EXACT_RANKS}
        ORDER BY e.rank DESC OFFSET GREATEST($3::bigint - 1, 0) LIMIT 1), ${EXACT_RANKS}) END
      ORDER BY v.n DESC, left(v.value, ${COUNTER_HEAD}) LIMIT NULLIF($3::bigint, 0))
    UNION ALL
    (SELECT v.value, v.n FROM value_counts v WHERE ${inScope("v")} AND v.rank >= 2 AND v.rank < ${EXACT_RANKS}
      ORDER BY v.rank DESC, left(v.value, ${COUNTER_HEAD}) LIMIT NULLIF($3::bigint, 0))`;

export async function repeatedValues(db: Db, ids: readonly number[], slug: string, limit: number): Promise<ValueCount[]> {
  // One scope reads its candidates off value_counts_top (topValues); several are summed. LIMIT NULL is none.
  const listed = `CASE WHEN length(t.value) <= ${LISTED_VALUE_MAX} THEN t.value END AS value`;
  const rows = ids.length === 1
    ? await db.run<{ value: string | null; n: number }>(`
      SELECT ${listed}, t.n FROM (${topValues}) t ORDER BY t.n DESC, t.value LIMIT NULLIF($3::bigint, 0)`, [ids[0]!, slug, limit])
    : await db.run<{ value: string | null; n: number }>(`
      SELECT ${listed}, t.n FROM (SELECT v.value, sum(v.n)::bigint AS n FROM value_counts v
        WHERE v.scope_id = ANY($1::bigint[]) AND v.slug = $2::text AND v.value <> ''
        GROUP BY v.value HAVING sum(v.n) >= 2 ORDER BY 2 DESC, 1 LIMIT NULLIF($3::bigint, 0)) t
      ORDER BY t.n DESC, t.value`, [ids, slug, limit]);
  return rows.map((row) => [row.value, Number(row.n)]);
}

export async function countsOf(db: Db, ids: readonly number[], slug: string, values: readonly string[]): Promise<[string, number][]> {
  const wanted = values.filter(storable);
  if (ids.length === 0 || wanted.length === 0) return [];
  const rows = await db.run<{ value: string; n: number }>(`
    SELECT v.value, sum(v.n)::bigint AS n FROM unnest($3::text[]) AS x(x)
    JOIN value_counts v ON v.scope_id = ANY($1::bigint[]) AND v.slug = $2::text AND ${sameKey("v.value", "x.x")}
    GROUP BY v.value`, [ids, slug, wanted]);
  return rows.map((row) => [row.value, Number(row.n)]);
}

export async function countsOfPairs(db: Db, scope: number, pairs: readonly { slug: string; value: string }[]): Promise<[string, string, number][]> {
  const wanted = pairs.filter((p) => storable(p.value));
  if (wanted.length === 0) return [];
  const rows = await db.run<{ slug: string; value: string; n: number }>(`
    SELECT v.slug, v.value, v.n FROM unnest($2::text[], $3::text[]) AS x(k, x)
    JOIN value_counts v ON v.scope_id = $1::bigint AND v.slug = x.k AND ${sameKey("v.value", "x.x")}`,
  [scope, wanted.map((p) => p.slug), wanted.map((p) => p.value)]);
  return rows.map((row) => [row.slug, row.value, Number(row.n)]);
}

export async function valuesHeldTwice(db: Db, blocId: string, slug: string, after: string | null, limit: number): Promise<[string, number][]> {
  // In the order of the slug's value index, (head, tail), so that each page continues it.
  const [, tail] = headTail(fieldSql(slug), FIELD_HEAD);
  const [afterHead, afterTail] = headTail("$2::text", FIELD_HEAD);
  const rows = await db.run<{ v: string; n: number }>(`
    SELECT min(${fieldSql(slug)}) AS v, count(*) AS n FROM records r
    WHERE r.bloc_id = $1::text AND ${indexedTerm(slug)} AND (${fieldHead(slug)}, ${tail}) > (${afterHead} COLLATE "C", ${afterTail})
    GROUP BY ${fieldHead(slug)}, ${tail} HAVING count(*) >= 2 ORDER BY ${fieldHead(slug)}, ${tail} LIMIT $3::bigint`,
  [blocId, after ?? "", limit]);
  return rows.map((row) => [row.v, Number(row.n)]);
}

export async function holderCounts(db: Db, blocId: string, keys: readonly { slug: string; value: string }[], cap: number): Promise<number[]> {
  const counts = keys.map(() => 0);
  const bySlug = new Map<string, number[]>();
  keys.forEach((k, i) => {
    if (!storable(k.value) || k.value === "") return;
    const list = bySlug.get(k.slug);
    if (list) list.push(i); else bySlug.set(k.slug, [i]);
  });
  if (bySlug.size === 0) return counts;
  const params: (string | number | string[] | number[])[] = [blocId, cap];
  const parts: string[] = [];
  for (const [slug, indexes] of bySlug) {
    params.push(indexes.map((i) => keys[i]!.value), indexes);
    const values = `$${params.length - 1}`;
    const positions = `$${params.length}`;
    parts.push(`SELECT k.i, (SELECT count(*) FROM (SELECT 1 FROM records r WHERE r.bloc_id = $1::text
      AND ${fieldEquals(slug, "k.v", true)} LIMIT $2::bigint) x) AS n
      FROM unnest(${values}::text[], ${positions}::integer[]) AS k(v, i)`);
  }
  for (const row of await db.run<{ i: number; n: number }>(parts.join(" UNION ALL "), params)) counts[Number(row.i)] = Number(row.n);
  return counts;
}

export async function blocsWithoutScope(db: Db, key: ScopeKey): Promise<string[]> {
  const rows = await db.run<{ id: string }>(`
    SELECT b.id FROM blocs b WHERE EXISTS (SELECT 1 FROM records r WHERE r.bloc_id = b.id)
      AND NOT EXISTS (SELECT 1 FROM counter_scopes c WHERE c.bloc_id = b.id AND ${sameKey("c.segment", "$1::text")} AND c.period = $2::text)
    ORDER BY b.id`, [key.segment, key.period]);
  return rows.map((row) => row.id);
}

/** Adds to record counts in key order (so that concurrent writers lock rows in one order); drops scopes left empty. */
export async function changeScopes(db: Db, blocId: string, changes: readonly ScopeCountChange[]): Promise<Scope[]> {
  const wanted = changes.filter((c) => storable(c.segment));
  if (wanted.length === 0) return [];
  const rows = (await db.run<ScopeRow>(`
    INSERT INTO counter_scopes AS c (bloc_id, segment, period, n)
    SELECT $1::text, u.s, u.p, sum(u.n) FROM unnest($2::text[], $3::text[], $4::bigint[]) AS u(s, p, n)
    GROUP BY u.s, u.p ORDER BY u.s COLLATE "C", u.p COLLATE "C"
    ON CONFLICT (bloc_id, left(segment, ${COUNTER_HEAD}), bloc_key_tail(segment, ${COUNTER_HEAD}), period)
    DO UPDATE SET n = c.n + excluded.n
    RETURNING ${SCOPE_COLUMNS}`,
  [blocId, wanted.map((c) => c.segment), wanted.map((c) => c.period), wanted.map((c) => c.n)])).map(toScope);
  const emptied = rows.filter((s) => s.n <= 0).map((s) => s.id);
  if (emptied.length > 0) {
    await db.run("DELETE FROM value_counts WHERE scope_id = ANY($1::bigint[])", [emptied]);
    await db.run("DELETE FROM counter_scopes WHERE id = ANY($1::bigint[])", [emptied]);
  }
  return rows.map((s) => (s.n > 0 ? s : { ...s, n: 0 }));
}

export async function markCounted(db: Db, ids: readonly number[]): Promise<void> {
  if (ids.length > 0) await db.run("UPDATE counter_scopes SET counted = 1 WHERE id = ANY($1::bigint[])", [ids]);
}

/** Adds to value counts in key order, in one statement; then drops the rows a decrease brought to zero. */
export async function changeValues(db: Db, changes: readonly ValueCountChange[]): Promise<void> {
  const wanted = changes.filter((c) => c.n !== 0 && storable(c.value));
  if (wanted.length === 0) return;
  await db.run(`
    INSERT INTO value_counts AS v (scope_id, slug, value, n)
    SELECT u.c, u.k, u.v, sum(u.n) FROM unnest($1::bigint[], $2::text[], $3::text[], $4::integer[]) AS u(c, k, v, n)
    GROUP BY u.c, u.k, u.v ORDER BY u.c, u.k COLLATE "C", u.v COLLATE "C"
    ON CONFLICT (scope_id, slug, left(value, ${COUNTER_HEAD}), bloc_key_tail(value, ${COUNTER_HEAD}))
    DO UPDATE SET n = v.n + excluded.n`,
  [wanted.map((c) => c.scope), wanted.map((c) => c.slug), wanted.map((c) => c.value), wanted.map((c) => c.n)]);
  const fallen = wanted.filter((c) => c.n < 0);
  if (fallen.length > 0) {
    await db.run(`
      DELETE FROM value_counts v USING unnest($1::bigint[], $2::text[], $3::text[]) AS u(c, k, x)
      WHERE v.scope_id = u.c AND v.slug = u.k AND ${sameKey("v.value", "u.x")} AND v.n <= 0`,
    [fallen.map((c) => c.scope), fallen.map((c) => c.slug), fallen.map((c) => c.value)]);
  }
}

export async function removeValue(db: Db, ids: readonly number[], slug: string, value: string): Promise<void> {
  if (ids.length === 0 || !storable(value)) return;
  await db.run(`DELETE FROM value_counts v WHERE v.scope_id = ANY($1::bigint[]) AND v.slug = $2::text AND ${sameKey("v.value", "$3::text")}`,
    [ids, slug, value]);
}

export async function clearCounters(db: Db, blocId: string): Promise<void> {
  await db.run("DELETE FROM value_counts WHERE scope_id IN (SELECT id FROM counter_scopes WHERE bloc_id = $1::text)", [blocId]);
  await db.run("DELETE FROM counter_scopes WHERE bloc_id = $1::text", [blocId]);
}

import type { CounterDeltas } from "../../domain/counters.js";
import { LISTED_VALUE_MAX } from "../../domain/field-counts.js";
import type { DayCount, ValueCount } from "../store.js";
import { storable, type Db } from "./driver.js";
import { Params } from "./filters.js";
import { COUNTER_HEAD, headTail } from "./schema.js";

/*
 * The counter tables: records per (bloc, segment, day) and values per (bloc, segment,
 * field, value). What they count, and when, is decided above the engines
 * (domain/counters.ts); this file only reads them and applies changes. Segments and
 * values are keyed on (head, tail) (schema.ts), so each lookup names both.
 */

const [SEGMENT_HEAD, SEGMENT_TAIL] = headTail("s", COUNTER_HEAD);

/** `alias` is one of the segments listed in the array parameter `placeholder`. */
function inSegments(alias: string, placeholder: string): string {
  return `(${alias}.segment_head, ${alias}.segment_tail) IN (
    SELECT ${SEGMENT_HEAD}, ${SEGMENT_TAIL} FROM unnest(${placeholder}::text[]) AS s)`;
}

/** `alias` is the one segment `placeholder` names. */
function isSegment(alias: string, placeholder: string): string {
  const [head, tail] = headTail(`${placeholder}::text`, COUNTER_HEAD);
  return `${alias}.segment_head = ${head} AND ${alias}.segment_tail = ${tail}`;
}

export async function dayCounts(
  db: Db, blocId: string, segments: readonly string[], fromDay: string | undefined, toDay: string | undefined,
): Promise<DayCount[]> {
  const params = new Params([blocId, segments.filter(storable)]);
  let where = `c.bloc_id = $1::text AND ${inSegments("c", "$2")}`;
  if (fromDay !== undefined) where += ` AND c.day >= ${params.add(fromDay)}::text`;
  if (toDay !== undefined) where += ` AND c.day <= ${params.add(toDay)}::text`;
  return db.run<DayCount>(
    `SELECT c.day, sum(c.n)::bigint AS n FROM day_counts c WHERE ${where} GROUP BY c.day ORDER BY c.day`, params.values, params.options);
}

/**
 * The most frequent values of a field over some segments. One segment is read off the
 * top-K index in order; several are summed first.
 */
export async function valueTotals(db: Db, blocId: string, segments: readonly string[], slug: string, limit: number): Promise<ValueCount[]> {
  // LIMIT NULL is no limit: 0 (all) needs no statement of its own. A long value's text stays in the database (ValueCount).
  segments = segments.filter(storable);
  const listed = `CASE WHEN length(t.value) <= ${LISTED_VALUE_MAX} THEN t.value END AS value`;
  const rows = segments.length === 1
    ? await db.run<{ value: string | null; n: number }>(`
      SELECT ${listed}, t.n FROM (SELECT c.value, c.value_head, c.n FROM value_totals c
        WHERE c.bloc_id = $1::text AND ${isSegment("c", "$2")} AND c.slug = $3::text
        ORDER BY c.n DESC, c.value_head, c.value LIMIT NULLIF($4::bigint, 0)) t
      ORDER BY t.n DESC, t.value_head, t.value`, [blocId, segments[0]!, slug, limit])
    : await db.run<{ value: string | null; n: number }>(`
      SELECT ${listed}, t.n FROM (SELECT c.value, sum(c.n)::bigint AS n FROM value_totals c
        WHERE c.bloc_id = $1::text AND ${inSegments("c", "$2")} AND c.slug = $3::text
        GROUP BY c.value ORDER BY 2 DESC, 1 LIMIT NULLIF($4::bigint, 0)) t
      ORDER BY t.n DESC, t.value`, [blocId, segments, slug, limit]);
  return rows.map((row) => [row.value, row.n]);
}

/**
 * The most frequent values of a field over some segments and periods, or (`only`) the
 * sums of just those values. One segment and one period are read off the top-K index in
 * order; more are summed first.
 */
export async function periodValues(
  db: Db, blocId: string, segments: readonly string[], slug: string, periods: readonly string[], limit: number,
  only?: readonly string[],
): Promise<ValueCount[]> {
  segments = segments.filter(storable);
  if (only !== undefined) {
    const [head, tail] = headTail("v", COUNTER_HEAD);
    const rows = await db.run<{ value: string; n: number }>(`
      SELECT c.value, sum(c.n)::bigint AS n FROM period_values c
      WHERE c.bloc_id = $1::text AND ${inSegments("c", "$2")} AND c.slug = $3::text AND c.period = ANY($4::text[])
        AND (c.value_head, c.value_tail) IN (SELECT ${head}, ${tail} FROM unnest($5::text[]) AS v)
      GROUP BY c.value`, [blocId, segments, slug, periods, only.filter(storable)]);
    return rows.map((row) => [row.value, row.n]);
  }
  const listed = `CASE WHEN length(t.value) <= ${LISTED_VALUE_MAX} THEN t.value END AS value`;
  const rows = segments.length === 1 && periods.length === 1
    ? await db.run<{ value: string | null; n: number }>(`
      SELECT ${listed}, t.n FROM (SELECT c.value, c.value_head, c.n FROM period_values c
        WHERE c.bloc_id = $1::text AND ${isSegment("c", "$2")} AND c.slug = $3::text AND c.period = $4::text
        ORDER BY c.n DESC, c.value_head, c.value LIMIT NULLIF($5::bigint, 0)) t
      ORDER BY t.n DESC, t.value_head, t.value`, [blocId, segments[0]!, slug, periods[0]!, limit])
    : await db.run<{ value: string | null; n: number }>(`
      SELECT ${listed}, t.n FROM (SELECT c.value, sum(c.n)::bigint AS n FROM period_values c
        WHERE c.bloc_id = $1::text AND ${inSegments("c", "$2")} AND c.slug = $3::text AND c.period = ANY($4::text[])
        GROUP BY c.value ORDER BY 2 DESC, 1 LIMIT NULLIF($5::bigint, 0)) t
      ORDER BY t.n DESC, t.value`, [blocId, segments, slug, periods, limit]);
  return rows.map((row) => [row.value, row.n]);
}

export async function valueTotal(db: Db, blocId: string, segment: string, slug: string, values: readonly string[]): Promise<number> {
  if (!storable(segment)) return 0;
  const [head, tail] = headTail("v", COUNTER_HEAD);
  const [row] = await db.run<{ n: number }>(`
    SELECT COALESCE(sum(c.n), 0)::bigint AS n FROM value_totals c
    WHERE c.bloc_id = $1::text AND ${isSegment("c", "$2")} AND c.slug = $3::text
      AND (c.value_head, c.value_tail) IN (SELECT ${head}, ${tail} FROM unnest($4::text[]) AS v)`,
  [blocId, segment, slug, values.filter(storable)]);
  return row!.n;
}

export async function clearCounters(db: Db, blocId: string): Promise<void> {
  await db.run("DELETE FROM day_counts WHERE bloc_id = $1::text", [blocId]);
  await db.run("DELETE FROM value_totals WHERE bloc_id = $1::text", [blocId]);
  await db.run("DELETE FROM period_values WHERE bloc_id = $1::text", [blocId]);
}

/**
 * Applies counter changes: one upsert per table for all rows (arrays unnested), in key
 * order so that concurrent writers lock rows in one order, then one delete of the rows
 * a decrease may have brought to zero. Keys are grouped again in SQL: two JavaScript
 * strings that differ only in lone surrogates reach PostgreSQL as the same text.
 */
export async function writeCounters(db: Db, deltas: CounterDeltas): Promise<void> {
  const days = deltas.days();
  if (days.length > 0) {
    const [head, tail] = headTail("u.s", COUNTER_HEAD);
    await db.run(`
      INSERT INTO day_counts AS c (bloc_id, segment, day, n)
      SELECT u.b, u.s, u.d, sum(u.n) FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[]) AS u(b, s, d, n)
      GROUP BY u.b, u.s, u.d ORDER BY u.b COLLATE "C", u.s COLLATE "C", u.d COLLATE "C"
      ON CONFLICT (bloc_id, segment_head, segment_tail, day) DO UPDATE SET n = c.n + excluded.n`,
    [days.map((d) => d[0]), days.map((d) => d[1]), days.map((d) => d[2]), days.map((d) => d[3])]);
    const fallen = days.filter((d) => d[3] < 0);
    if (fallen.length > 0) {
      await db.run(`
        DELETE FROM day_counts c USING unnest($1::text[], $2::text[], $3::text[]) AS u(b, s, d)
        WHERE c.bloc_id = u.b AND c.segment_head = ${head} AND c.segment_tail = ${tail} AND c.day = u.d AND c.n <= 0`,
      [fallen.map((d) => d[0]), fallen.map((d) => d[1]), fallen.map((d) => d[2])]);
    }
  }
  const values = deltas.values();
  if (values.length > 0) {
    const [segmentHead, segmentTail] = headTail("u.s", COUNTER_HEAD);
    const [valueHead, valueTail] = headTail("u.v", COUNTER_HEAD);
    await db.run(`
      INSERT INTO value_totals AS c (bloc_id, segment, slug, value, n)
      SELECT u.b, u.s, u.k, u.v, sum(u.n)
      FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[]) AS u(b, s, k, v, n)
      GROUP BY u.b, u.s, u.k, u.v ORDER BY u.b COLLATE "C", u.s COLLATE "C", u.k COLLATE "C", u.v COLLATE "C"
      ON CONFLICT (bloc_id, segment_head, segment_tail, slug, value_head, value_tail) DO UPDATE SET n = c.n + excluded.n`,
    [values.map((v) => v[0]), values.map((v) => v[1]), values.map((v) => v[2]), values.map((v) => v[3]), values.map((v) => v[4])]);
    const fallen = values.filter((v) => v[4] < 0);
    if (fallen.length > 0) {
      await db.run(`
        DELETE FROM value_totals c USING unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS u(b, s, k, v)
        WHERE c.bloc_id = u.b AND c.segment_head = ${segmentHead} AND c.segment_tail = ${segmentTail}
          AND c.slug = u.k AND c.value_head = ${valueHead} AND c.value_tail = ${valueTail} AND c.n <= 0`,
      [fallen.map((v) => v[0]), fallen.map((v) => v[1]), fallen.map((v) => v[2]), fallen.map((v) => v[3])]);
    }
  }
  const periods = deltas.periods();
  if (periods.length > 0) {
    const [segmentHead, segmentTail] = headTail("u.s", COUNTER_HEAD);
    const [valueHead, valueTail] = headTail("u.v", COUNTER_HEAD);
    const column = (i: 0 | 1 | 2 | 3 | 4): string[] => periods.map((p) => p[i]);
    await db.run(`
      INSERT INTO period_values AS c (bloc_id, segment, slug, period, value, n)
      SELECT u.b, u.s, u.k, u.p, u.v, sum(u.n)
      FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[]) AS u(b, s, k, p, v, n)
      GROUP BY u.b, u.s, u.k, u.p, u.v
      ORDER BY u.b COLLATE "C", u.s COLLATE "C", u.k COLLATE "C", u.p COLLATE "C", u.v COLLATE "C"
      ON CONFLICT (bloc_id, segment_head, segment_tail, slug, period, value_head, value_tail) DO UPDATE SET n = c.n + excluded.n`,
    [column(0), column(1), column(2), column(3), column(4), periods.map((p) => p[5])]);
    const fallen = periods.filter((p) => p[5] < 0);
    if (fallen.length > 0) {
      const fell = (i: 0 | 1 | 2 | 3 | 4): string[] => fallen.map((p) => p[i]);
      await db.run(`
        DELETE FROM period_values c USING unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[]) AS u(b, s, k, p, v)
        WHERE c.bloc_id = u.b AND c.segment_head = ${segmentHead} AND c.segment_tail = ${segmentTail}
          AND c.slug = u.k AND c.period = u.p AND c.value_head = ${valueHead} AND c.value_tail = ${valueTail} AND c.n <= 0`,
      [fell(0), fell(1), fell(2), fell(3), fell(4)]);
    }
  }
}

import assert from "node:assert/strict";
import type { Row, Store, TableName } from "../../src/domain/ports/store.js";
import { countingThreshold } from "../../src/domain/counting/keys.js";

/** Every row of a table, as the store exports it, in key order. */
export async function allRows(store: Store, table: TableName): Promise<Row[]> {
  const rows: Row[] = [];
  for (;;) {
    const batch = await store.maintenance.exportRows(table, rows[rows.length - 1], 5000);
    rows.push(...batch);
    if (batch.length < 5000) return rows;
  }
}

/** The periods an hour (`YYYY-MM-DD HH`) is in, worked out here apart from the service: all time, year, month, week from Monday, day, hour. */
function periodKeys(hour: string): string[] {
  const day = hour.slice(0, 10);
  const date = new Date(`${day}T00:00:00Z`);
  const monday = new Date(date.getTime() - ((date.getUTCDay() + 6) % 7) * 86_400_000).toISOString().slice(0, 10);
  return ["a", `y:${day.slice(0, 4)}`, `m:${day.slice(0, 7)}`, `w:${monday}`, `d:${day}`, `h:${hour}`];
}

function sortedEntries(counts: Map<string, number>): [string, number][] {
  return [...counts].filter(([, n]) => n !== 0).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * Compares the counter tables with the same figures computed here from the records,
 * written out independently of the service's code: records per scope (segment: '' all,
 * 'u:' owner, 'p:' a profile-filtered field's value; period: all time, year, month,
 * week, day, hour); and, in each scope that counts values (it passed `countedAbove`
 * records), the records holding each value that two or more records of the bloc hold,
 * and under "" the records holding any value, per field of the bloc. A scope that does
 * not count values holds no value rows and at most `countedAbove` records. An owner whom
 * no reader sees as `own` (neither the bloc's restriction nor theirs is `own`) has no scopes.
 */
export async function assertCountersEqualRecount(store: Store, countedAbove = Number(process.env.BLOC_COUNTED_ABOVE || countingThreshold())): Promise<void> {
  const fieldsOf = new Map<string, { slugs: string[]; profile: string[] }>();
  for (const field of await allRows(store, "fields")) {
    // A retired field is counted no more (its value counters go with it).
    if (field.retired_at !== null && field.retired_at !== undefined) continue;
    const bloc = String(field.bloc_id);
    const entry = fieldsOf.get(bloc) ?? { slugs: [], profile: [] };
    entry.slugs.push(String(field.slug));
    if (field.apply_profile_filter === 1) entry.profile.push(String(field.slug));
    fieldsOf.set(bloc, entry);
  }
  // Owners read as `own`: every owner of a bloc whose restriction is `own`, else those restricted to it.
  const ownBlocs = new Set((await allRows(store, "blocs")).filter((b) => b.restriction === "own").map((b) => String(b.id)));
  const ownOwners = new Set((await allRows(store, "restrictions")).filter((r) => r.mode === "own")
    .map((r) => JSON.stringify([String(r.bloc_id), `u:${String(r.user_id)}`])));
  const readAsOwn = (bloc: string, segment: string): boolean =>
    !segment.startsWith("u:") || ownBlocs.has(bloc) || ownOwners.has(JSON.stringify([bloc, segment]));
  const records = await allRows(store, "records");
  const held = new Map<string, number>();
  for (const record of records) {
    const data = JSON.parse(String(record.data)) as Record<string, string>;
    for (const slug of fieldsOf.get(String(record.bloc_id))?.slugs ?? []) {
      const value = data[slug] ?? "";
      if (value !== "") held.set(JSON.stringify([record.bloc_id, slug, value]), (held.get(JSON.stringify([record.bloc_id, slug, value])) ?? 0) + 1);
    }
  }
  const scopeRecords = new Map<string, number>();
  const scopeValues = new Map<string, number>();
  for (const record of records) {
    const bloc = String(record.bloc_id);
    const { slugs, profile } = fieldsOf.get(bloc) ?? { slugs: [], profile: [] };
    const data = JSON.parse(String(record.data)) as Record<string, string>;
    const segments = [""];
    if (readAsOwn(bloc, `u:${record.user_id}`)) segments.push(`u:${record.user_id}`);
    for (const slug of profile) if ((data[slug] ?? "") !== "") segments.push(`p:${slug}:${data[slug]}`);
    for (const segment of segments) {
      for (const period of periodKeys(String(record.created_at).slice(0, 13))) {
        const scope = JSON.stringify([bloc, segment, period]);
        scopeRecords.set(scope, (scopeRecords.get(scope) ?? 0) + 1);
        for (const slug of slugs) {
          const value = data[slug] ?? "";
          if (value === "") {
            const none = JSON.stringify([bloc, segment, period, slug, ""]);
            scopeValues.set(none, (scopeValues.get(none) ?? 0) + 1);
            continue;
          }
          if ((held.get(JSON.stringify([bloc, slug, value])) ?? 0) < 2) continue;
          const key = JSON.stringify([bloc, segment, period, slug, value]);
          scopeValues.set(key, (scopeValues.get(key) ?? 0) + 1);
        }
      }
    }
  }
  const scopes = await allRows(store, "counter_scopes");
  assert.ok(scopes.length > 0, "counter_scopes holds rows");
  const stored = new Map(scopes.map((row) => [JSON.stringify([row.bloc_id, row.segment, row.period]), Number(row.n)]));
  // Hours are kept only within days that count their values.
  const countedDays = new Set(scopes.filter((row) => Number(row.counted) === 1 && String(row.period).startsWith("d:"))
    .map((row) => JSON.stringify([row.bloc_id, row.segment, String(row.period).slice(2)])));
  for (const key of [...scopeRecords.keys()]) {
    const [bloc, segment, period] = JSON.parse(key) as [string, string, string];
    if (period.startsWith("h:") && !countedDays.has(JSON.stringify([bloc, segment, period.slice(2, 12)]))) scopeRecords.delete(key);
  }
  for (const row of scopes) {
    if (String(row.period).startsWith("d:") && Number(row.n) > countedAbove && readAsOwn(String(row.bloc_id), String(row.segment))) {
      assert.equal(Number(row.counted), 1, `a day of ${String(row.n)} records counts its values`);
    }
  }
  assert.deepEqual(sortedEntries(stored), sortedEntries(scopeRecords), "every scope's record count equals a recount");
  const byId = new Map(scopes.map((row) => [Number(row.id), row]));
  const counted = new Set(scopes.filter((row) => Number(row.counted) === 1).map((row) => JSON.stringify([row.bloc_id, row.segment, row.period])));
  for (const row of scopes) {
    // An hour counts its values above a quarter of the threshold.
    const above = String(row.period).startsWith("h:") ? Math.max(1, Math.floor(countedAbove / 4)) : countedAbove;
    if (Number(row.counted) !== 1 && readAsOwn(String(row.bloc_id), String(row.segment))) {
      assert.ok(Number(row.n) <= above, `a scope of ${String(row.n)} records counts its values: ${String(row.segment)} ${String(row.period)}`);
    }
  }
  const values = new Map<string, number>();
  for (const row of await allRows(store, "value_counts")) {
    const scope = byId.get(Number(row.scope_id));
    assert.ok(scope, `value_counts row of a scope that does not exist (${String(row.scope_id)})`);
    assert.equal(Number(scope.counted), 1, "value rows only in scopes that count values");
    values.set(JSON.stringify([scope.bloc_id, scope.segment, scope.period, row.slug, row.value]), Number(row.n));
  }
  const expected = new Map([...scopeValues].filter(([key]) => counted.has(JSON.stringify((JSON.parse(key) as string[]).slice(0, 3)))));
  assert.deepEqual(sortedEntries(values), sortedEntries(expected), "the counted scopes' value counts equal a recount");
}

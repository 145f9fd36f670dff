import assert from "node:assert/strict";
import type { Row, Store, TableName } from "../../src/store/store.js";

/** Every row of a table, as the store exports it, in key order. */
export async function allRows(store: Store, table: TableName): Promise<Row[]> {
  const rows: Row[] = [];
  for (;;) {
    const batch = await store.exportRows(table, rows[rows.length - 1], 5000);
    rows.push(...batch);
    if (batch.length < 5000) return rows;
  }
}

/** A day's period keys, worked out here apart from the service: day, week (from its Monday), month, year. */
function periodKeys(day: string): string[] {
  const date = new Date(`${day}T00:00:00Z`);
  const monday = new Date(date.getTime() - ((date.getUTCDay() + 6) % 7) * 86_400_000).toISOString().slice(0, 10);
  return [`d:${day}`, `w:${monday}`, `m:${day.slice(0, 7)}`, `y:${day.slice(0, 4)}`];
}

function sortedEntries(counts: Map<string, number>): [string, number][] {
  return [...counts].filter(([, n]) => n !== 0).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * Compares the counter tables with the same figures computed here from the records,
 * written out independently of the service's code: per segment ('' all, 'u:' owner,
 * 'p:' a profile-filtered field's value), records per day and values per field.
 */
export async function assertCountersEqualRecount(store: Store): Promise<void> {
  const profileFields = new Map<string, string[]>();
  for (const field of await allRows(store, "fields")) {
    if (field.apply_profile_filter !== 1) continue;
    const bloc = String(field.bloc_id);
    profileFields.set(bloc, [...(profileFields.get(bloc) ?? []), String(field.slug)]);
  }
  const days = new Map<string, number>();
  const values = new Map<string, number>();
  const periods = new Map<string, number>();
  const bump = (map: Map<string, number>, key: readonly string[]): void => {
    const id = JSON.stringify(key);
    map.set(id, (map.get(id) ?? 0) + 1);
  };
  for (const record of await allRows(store, "records")) {
    const bloc = String(record.bloc_id);
    const data = JSON.parse(String(record.data)) as Record<string, string>;
    const segments = ["", `u:${record.user_id}`];
    for (const slug of profileFields.get(bloc) ?? []) if ((data[slug] ?? "") !== "") segments.push(`p:${slug}:${data[slug]}`);
    const day = String(record.created_at).slice(0, 10);
    for (const segment of segments) {
      bump(days, [bloc, segment, day]);
      for (const [slug, value] of Object.entries(data)) {
        if (value === "") continue;
        bump(values, [bloc, segment, slug, value]);
        for (const period of periodKeys(day)) bump(periods, [bloc, segment, slug, period, value]);
      }
    }
  }
  const kept = async (table: TableName, key: readonly string[]): Promise<[string, number][]> => {
    const counts = new Map<string, number>();
    for (const row of await allRows(store, table)) counts.set(JSON.stringify(key.map((k) => String(row[k]))), Number(row.n));
    return sortedEntries(counts);
  };
  const dayCounts = await kept("day_counts", ["bloc_id", "segment", "day"]);
  assert.ok(dayCounts.length > 0, "day_counts holds rows");
  assert.deepEqual(dayCounts, sortedEntries(days), "day_counts equal a recount");
  assert.deepEqual(await kept("value_totals", ["bloc_id", "segment", "slug", "value"]), sortedEntries(values), "value_totals equal a recount");
  assert.deepEqual(await kept("period_values", ["bloc_id", "segment", "slug", "period", "value"]), sortedEntries(periods),
    "period_values equal a recount");
}

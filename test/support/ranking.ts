/**
 * How fieldCounts ranks a field's values, worked out here apart from the service: the
 * values two or more of the records hold, most frequent first, ties in code-point (UTF-8
 * byte) order; then the values one record holds, newest record first. `records` come in
 * any order: they are ordered newest first (created_at, then ID) here. At most `limit`
 * entries (all when 0).
 */
export function rankValues<R extends { readonly createdAt: string; readonly id: number }>(
  records: readonly R[], valueOf: (record: R) => string, limit = 0,
): [string, number][] {
  const newest = [...records].sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : b.id - a.id));
  const counts = new Map<string, number>();
  for (const record of newest) {
    const value = valueOf(record);
    if (value !== "") counts.set(value, (counts.get(value) ?? 0) + 1);
  }
  const repeated = [...counts].filter(([, n]) => n >= 2)
    .sort((a, b) => b[1] - a[1] || Buffer.compare(Buffer.from(a[0]), Buffer.from(b[0])));
  const once = newest.map(valueOf).filter((value) => counts.get(value) === 1).map((value): [string, number] => [value, 1]);
  const all = [...repeated, ...once];
  return limit > 0 ? all.slice(0, limit) : all;
}

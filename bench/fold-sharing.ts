import { hourOf, periodsOfHour, segmentsOf, tierOf, type Counted, type Layout } from "../src/domain/counting/keys.js";
import { memberAdds, prefillRecords, type Members } from "./members.js";
import { SITE } from "./seed.js";

/*
 * How many value-count rows the add-data bench's records change per add when their counts
 * are written once for N adds (a group commit of N, or a fold of N adds done after them),
 * computed from the records alone: `node dist/bench/fold-sharing.js`. No database. It is
 * what a design that folds value counts after the adds could save (docs/performance.md,
 * "Where add-data stands").
 *
 * The records are the members' adds (bench/members.ts memberAdds), from 20 owners of whom
 * the first is read as `own`, all added on one day into a bloc already holding the PREFILL
 * records members.ts prefills. A row is one (scope, field, value): each of the
 * record's segments (everyone's, its site's, and its owner's for the `own` reader: keys.ts)
 * times each period but the hour, for each value two or more records of the bloc hold. It
 * counts every scope as counting its values, which a bloc in use nearly does.
 */

const PREFILL = 30_000;
const ADDS = 64_000;
const MEMBERS = 20;
const SIZES = [16, 64, 256, 1_000, 4_000, 16_000];
/** Windows of each size averaged over, at most. */
const WINDOWS = 50;

const layout: Layout = { slugs: Array.from({ length: 11 }, (_, i) => `field_${i + 1}`), profileSlugs: [SITE] };
/** One moment of one day: every add of a fold shares its periods. */
const now = "2026-11-28 12:00:00";
const periods = periodsOfHour(hourOf(now)).filter((p) => tierOf(p) !== "h");

/** The members' owners; each one's token stands for it, so that an add's token names its owner. */
const owners = Array.from({ length: MEMBERS }, (_, i) => `member-${i}`);
const OWN_READER = owners[0]!;
const members: Members = { blocId: "b", users: owners, tokens: owners };

function addedRecords(): Counted[] {
  const next = memberAdds(members);
  return Array.from({ length: ADDS }, () => {
    const { body, token } = next();
    const values = JSON.parse((body as { dataToAdd: string }).dataToAdd) as Record<string, string>;
    return { blocId: "b", createdAt: now, userId: token, values };
  });
}

/** Values (field NUL value) two or more records of the bloc hold, the prefill's and the adds' together. */
function heldTwice(adds: readonly Counted[]): Set<string> {
  const held = new Map<string, number>();
  const count = (values: Readonly<Record<string, string>>): void => {
    for (const slug of layout.slugs) {
      const key = `${slug}\u0000${values[slug] ?? ""}`;
      held.set(key, (held.get(key) ?? 0) + 1);
    }
  };
  for (const prefilled of prefillRecords(members, PREFILL)) count(prefilled.values);
  for (const add of adds) count(add.values);
  return new Set([...held].filter(([, n]) => n >= 2).map(([key]) => key));
}

/** Rows changed per add, per field, averaged over windows of `size` adds. */
function rowsPerAdd(adds: readonly Counted[], repeated: ReadonlySet<string>, size: number): Map<string, number> {
  const rows = new Map(layout.slugs.map((slug) => [slug, 0]));
  let windows = 0;
  for (let start = 0; start + size <= adds.length && windows < WINDOWS; start += size, windows += 1) {
    const keys = new Map(layout.slugs.map((slug) => [slug, new Set<string>()]));
    for (const add of adds.slice(start, start + size)) {
      const segments = segmentsOf(add, layout).filter((s) => !s.key.startsWith("u:") || add.userId === OWN_READER);
      for (const slug of layout.slugs) {
        const value = add.values[slug] ?? "";
        if (value === "" || !repeated.has(`${slug}\u0000${value}`)) continue;
        for (const segment of segments) for (const period of periods) keys.get(slug)!.add(`${segment.key}\u0000${period}\u0000${value}`);
      }
    }
    for (const [slug, set] of keys) rows.set(slug, rows.get(slug)! + set.size / size);
  }
  return new Map([...rows].map(([slug, n]) => [slug, n / windows]));
}

const adds = addedRecords();
const repeated = heldTwice(adds);
process.stdout.write(`value-count rows changed per add, the bench's records into a bloc of ${PREFILL.toLocaleString("en")}, ` +
  `when the counts are written once for N adds:\n`);
for (const size of SIZES) {
  const rows = [...rowsPerAdd(adds, repeated, size)].filter(([, n]) => n > 0);
  const total = rows.reduce((sum, [, n]) => sum + n, 0);
  process.stdout.write(`  N = ${size.toLocaleString("en")}: ${total.toFixed(1)} (${rows.map(([slug, n]) => `${slug} ${n.toFixed(1)}`).join(", ")})\n`);
}

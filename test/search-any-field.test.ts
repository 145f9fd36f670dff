import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { addBloc, addMember, startServer, type Member, type TestServer } from "./support/server.js";
import { insertAt } from "./support/fixtures.js";

/*
 * Every field is searchable by value without being marked `indexed` (issue 10): the
 * value indexes every field now has must change which records a search finds in no
 * way. Searches (update-records) and report filters on unmarked fields are checked
 * against the answer computed here from the seed, with values the indexes handle
 * specially: longer than an index key's head (PostgreSQL keys the first 200 characters
 * and a digest), differing only beyond that head, huge, empty and absent; with own and
 * profile restrictions; alone and with other conditions; on pages small and large (an
 * engine may read a small match through the index and a large one in time order).
 */

let server: TestServer;
let blocId: string;
let owner: Member;
let lead: Member;

const HEAD = "h".repeat(300);
const LONG_A = `${HEAD}-A`;
const LONG_B = `${HEAD}-B`;
const HUGE = "x".repeat(20_000);
const HUGE_2 = `${"x".repeat(19_999)}y`;

/** Slugs: Site (profile-filtered), Ref, Status, Label (each record's own name), Note. */
const [SITE, REF, STATUS, LABEL, NOTE] = ["field_1", "field_2", "field_3", "field_4", "field_5"];

interface Seed {
  readonly label: string;
  readonly site: string;
  readonly ref?: string;
  readonly status: string;
  readonly by: "owner" | "other";
}

/** Refs repeat across sites, owners and statuses, so that restrictions and second conditions have something to cut. */
const SEED: readonly Seed[] = [
  { label: "r1", site: "Dublin", ref: "ORD-1", status: "ok", by: "owner" },
  { label: "r2", site: "Cork", ref: "ORD-1", status: "ok", by: "other" },
  { label: "r3", site: "Dublin", ref: "ord-1", status: "ok", by: "other" },
  { label: "r4", site: "Dublin", ref: "ORD-1 ", status: "held", by: "owner" },
  { label: "r5", site: "Cork", ref: LONG_A, status: "ok", by: "owner" },
  { label: "r6", site: "Dublin", ref: LONG_B, status: "ok", by: "other" },
  { label: "r7", site: "Dublin", ref: LONG_A, status: "held", by: "other" },
  { label: "r8", site: "Dublin", ref: HUGE, status: "ok", by: "owner" },
  { label: "r9", site: "Cork", ref: HUGE_2, status: "ok", by: "other" },
  { label: "r10", site: "Dublin", ref: "", status: "ok", by: "other" },
  { label: "r11", site: "Cork", status: "ok", by: "owner" }, // Ref never set
  { label: "r12", site: "Dublin", ref: "ORD-2", status: "held", by: "other" },
  { label: "r13", site: "Cork", ref: "ORD-1", status: "held", by: "owner" },
];
/** Filler records (status ok, distinct refs), so that "ok" is a large match and ORD-1 a small one. */
const FILLER = 150;

const ids = new Map<string, number>();

before(async () => {
  server = await startServer();
  blocId = await addBloc(server, "Orders", ["Site", "Ref", "Status", "Label", "Note"]);
  const patched = await server.call("PATCH", `/api/admin/blocs/${blocId}/fields/${SITE}`, { json: { applyProfileFilter: true } });
  assert.equal(patched.status, 200, patched.text);
  owner = await addMember(server, { blocId, read: true, update: true });
  const own = await server.call("PUT", `/api/admin/blocs/${blocId}/restrictions/${owner.id}`, { json: { mode: "own" } });
  assert.equal(own.status, 200, own.text);
  lead = await addMember(server, { blocId, read: true, update: true });
  // Site is profile-filtered: the owner works at both sites, the lead at one.
  for (const [member, sites] of [[owner, ["Dublin", "Cork"]], [lead, ["Dublin"]]] as const) {
    const profile = await server.call("PUT", `/api/admin/users/${member.id}`, { json: { profile: sites } });
    assert.equal(profile.status, 200, profile.text);
  }
  let second = 0;
  const at = (): string => {
    second += 1;
    return `2026-05-01 ${String(Math.floor(second / 3600)).padStart(2, "0")}:${String(Math.floor(second / 60) % 60).padStart(2, "0")}:${String(second % 60).padStart(2, "0")}`;
  };
  for (let i = 0; i < FILLER; i += 1) {
    await insertAt(server, blocId, at(), { [SITE]: i % 2 ? "Cork" : "Dublin", [REF]: `F-${i}`, [STATUS]: "ok", [LABEL]: `f${i}` }, "someone");
  }
  for (const s of SEED) {
    const values: Record<string, string> = { [SITE]: s.site, [STATUS]: s.status, [LABEL]: s.label };
    if (s.ref !== undefined) values[REF] = s.ref;
    ids.set(s.label, await insertAt(server, blocId, at(), values, s.by === "owner" ? owner.id : "someone"));
  }
});

after(async () => {
  await server?.close();
});

type Viewer = "admin" | "owner" | "lead";

function tokenOf(viewer: Viewer): string {
  return viewer === "admin" ? server.adminToken : viewer === "owner" ? owner.token : lead.token;
}

/** The seed's labels a viewer sees among those whose values equal one of the listed values, field by field. */
function expected(viewer: Viewer, match: Readonly<Record<string, readonly string[]>>): string[] {
  return SEED.filter((s) => (viewer !== "owner" || s.by === "owner") && (viewer !== "lead" || s.site === "Dublin"))
    .filter((s) => Object.entries(match).every(([slug, values]) => {
      const held = slug === REF ? s.ref ?? "" : slug === STATUS ? s.status : slug === SITE ? s.site : "";
      return values.includes(held);
    }))
    .map((s) => s.label).sort();
}

const labelOf = (id: number): string => [...ids].find(([, v]) => v === id)?.[0] ?? `filler ${id}`;

/** Searches that an index could get wrong: case, trailing space, long values sharing a head, huge values, "" and absent. */
const SEARCHES: readonly Record<string, string>[] = [
  { [REF]: "ORD-1" },
  { [REF]: "ord-1" },
  { [REF]: "ORD-1 " },
  { [REF]: LONG_A },
  { [REF]: LONG_B },
  { [REF]: `${HEAD}-C` },
  { [REF]: HEAD },
  { [REF]: HUGE },
  { [REF]: HUGE_2 },
  { [REF]: "" },
  { [REF]: "ORD-1", [STATUS]: "ok" },
  { [REF]: LONG_A, [STATUS]: "held" },
  { [REF]: "ORD-1", [SITE]: "Cork" },
  { [STATUS]: "held" },
  { [REF]: "nothing" },
];

const describeSearch = (search: Record<string, string>): string =>
  JSON.stringify(Object.fromEntries(Object.entries(search).map(([k, v]) => [k, v.length > 40 ? `${v.slice(0, 12)}…(${v.length})` : v])));

for (const viewer of ["admin", "owner", "lead"] as const) {
  test(`update-records by unmarked fields finds exactly the matching records a ${viewer} may update`, async () => {
    for (const [n, search] of SEARCHES.entries()) {
      const reply = await server.call("POST", "/api/update-records-by-matching-values", {
        token: tokenOf(viewer), json: { blocId, fieldsToUpdate: { [NOTE]: `${viewer} ${n}` }, searchItems: search },
      });
      const want = expected(viewer, Object.fromEntries(Object.entries(search).map(([k, v]) => [k, [v]])));
      if (want.length === 0 && reply.status !== 200) {
        // Nothing to update is answered as the endpoint answers it; what matters is that nothing changed.
        assert.ok(reply.status < 500, reply.text);
        continue;
      }
      assert.equal(reply.status, 200, `${describeSearch(search)}: ${reply.text.slice(0, 300)}`);
      const found = (reply.json.updated_record_ids as number[]).map(labelOf).sort();
      assert.deepEqual(found, want, describeSearch(search));
    }
    // Each update wrote its Note on exactly the records it named: read back through the store,
    // each seed record holds the Note of the last search that matched it.
    const notes = new Map<string, string>();
    SEARCHES.forEach((search, n) => {
      for (const label of expected(viewer, Object.fromEntries(Object.entries(search).map(([k, v]) => [k, [v]])))) notes.set(label, `${viewer} ${n}`);
    });
    const records = await server.ctx.store.records.findRecords({ blocId, match: [{ key: NOTE, values: SEARCHES.map((_, n) => `${viewer} ${n}`) }] });
    assert.deepEqual(new Map(records.map((r) => [labelOf(r.id), r.values[NOTE]!])), notes);
  });

  test(`report filters on unmarked fields return exactly the matching rows a ${viewer} may read`, async () => {
    const filters: Record<string, string[]>[] = [
      ...SEARCHES.map((s) => Object.fromEntries(Object.entries(s).map(([k, v]): [string, string[]] => [k, [v]]))),
      { [REF]: ["ORD-1", LONG_B, HUGE_2, "ORD-2"] },
      { [REF]: ["ORD-1", ""] },
      { [STATUS]: ["ok"], [REF]: [LONG_A, LONG_B] },
    ];
    for (const filter of filters) {
      const want = expected(viewer, filter);
      // Whole (streamed), then in pages of 1 and 2: small pages make a large match cheaper to read in time order.
      const pagings: { currentPage?: number; resultLimit?: number }[] = [{}, { currentPage: 1, resultLimit: 1 }, { currentPage: 2, resultLimit: 2 }];
      for (const paging of pagings) {
        const reply = await server.call("GET", "/api/get-data-report", {
          token: tokenOf(viewer),
          json: {
            stationID: blocId, fieldsToReport: "all", responseType: "json",
            dataFilteringData: JSON.stringify({ filterDataToQuery: filter, ...paging }),
          },
        });
        assert.equal(reply.status, 200, `${describeSearch(Object.fromEntries(Object.entries(filter).map(([k, v]) => [k, v.join("|")])))}: ${reply.text.slice(0, 300)}`);
        const labels = (reply.json.data as Record<string, string>[]).map((row) => row[LABEL]!);
        if (paging.currentPage !== undefined && paging.resultLimit !== undefined) {
          // The rows are in time order, which is seed order: the page is that slice of the answer.
          const order = SEED.map((s) => s.label).filter((l) => want.includes(l));
          const start = (paging.currentPage - 1) * paging.resultLimit;
          assert.deepEqual(labels, order.slice(start, start + paging.resultLimit), JSON.stringify(paging));
        } else {
          assert.deepEqual(labels.sort(), want, JSON.stringify(filter).slice(0, 200));
        }
      }
    }
  });
}

test("a large match read in pages through a filter on an unmarked field returns every matching row once, in order", async () => {
  // Status "ok": the fillers and most of the seed, so a page reads the bloc in time order.
  const want = [...Array.from({ length: FILLER }, (_, i) => `f${i}`), ...SEED.filter((s) => s.status === "ok").map((s) => s.label)];
  const seen: string[] = [];
  for (let page = 1; seen.length < want.length + 1; page += 1) {
    const reply = await server.call("GET", "/api/get-data-report", {
      json: {
        stationID: blocId, fieldsToReport: "all", responseType: "json",
        dataFilteringData: JSON.stringify({ filterDataToQuery: { [STATUS]: ["ok"] }, currentPage: page, resultLimit: 7 }),
      },
    });
    assert.equal(reply.status, 200, reply.text);
    const rows = reply.json.data as Record<string, string>[];
    if (rows.length === 0) break;
    seen.push(...rows.map((row) => row[LABEL]!));
  }
  assert.deepEqual(seen, want);
});

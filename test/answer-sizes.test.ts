import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { addBloc, addMember, startServer, type Member, type TestServer } from "./support/server.js";
import { insertAt, stamp } from "./support/fixtures.js";
import { call } from "./support/http.js";
import { FIELD_COUNTS_BYTES, FIELD_COUNTS_FIELD_BYTES, LISTED_VALUE_MAX } from "../src/domain/field-counts.js";
import { PAGE_BYTES } from "../src/domain/records.js";

/*
 * Finding 3: every answer's size is bounded whatever the records hold. Old records may
 * hold values of any size (the value limit applies to new writes only), so these are
 * seeded straight through the store. The bounds (docs/endpoints.md, "Answer sizes"):
 * - fieldCounts never lists a value longer than LISTED_VALUE_MAX characters, takes at
 *   most FIELD_COUNTS_FIELD_BYTES per field and FIELD_COUNTS_BYTES in all, and names in
 *   `fieldCountsPartial` each field whose listing leaves values out; counts stay exact;
 * - a get-data page carries at most PAGE_BYTES of record data, else 400 asking for a
 *   smaller resultLimit;
 * so a get-data answer stays under PAGE_BYTES + FIELD_COUNTS_BYTES + 64 KiB (here: the
 * small rest of the answer).
 */

const MiB = 1024 * 1024;
const ANSWER_BOUND = PAGE_BYTES + FIELD_COUNTS_BYTES + 64 * 1024;
/** Records of about 1 MiB each: more than fit in one page's budget. */
const BIG_RECORDS = 12;

let server: TestServer;
let reader: Member;
let blocId: string;

/** A value of about 1 MiB, different for each `n`. */
function big(n: number): string {
  return `${String(n).padStart(4, "0")}-${"x".repeat(MiB - 5)}`;
}

before(async () => {
  server = await startServer();
  blocId = await addBloc(server, "Big values", ["Blob", "Site"]);
  reader = await addMember(server, { blocId, read: true });
  for (let n = 0; n < BIG_RECORDS; n += 1) {
    await insertAt(server, blocId, stamp("2026-05-01 08:00:00", n), { field_1: big(n), field_2: n % 2 === 0 ? "Cork" : "Dublin" });
  }
});

after(async () => {
  await server.close();
});

function getData(body: Record<string, unknown>) {
  return server.call("GET", "/api/get-data", { json: { blocId, ...body }, token: reader.token });
}

describe("get-data over records of ~1 MiB", () => {
  for (const window of [{}, { fromDate: "2026-05-01" }]) {
    const how = Object.keys(window).length === 0 ? "from the counters" : "counted from the records (a date window)";

    test(`resultLimit 1 answers one record, counts exact, long values not listed (${how})`, async () => {
      const reply = await getData({ resultLimit: 1, ...window });
      assert.equal(reply.status, 200, reply.text.slice(0, 300));
      assert.ok(reply.body.length < ANSWER_BOUND, `answer of ${reply.body.length} bytes`);
      // One record of ~1 MiB, and nothing else of that size: the long values are counted, not listed.
      assert.ok(reply.body.length < 1.1 * MiB, `answer of ${reply.body.length} bytes`);
      const { data } = reply.json;
      assert.equal(data.count, BIG_RECORDS);
      assert.equal(data["0"].field_1, big(BIG_RECORDS - 1), "the page holds the whole value");
      assert.deepEqual(data.fieldCounts.field_1, {});
      assert.deepEqual(data.fieldCounts.field_2, { Cork: BIG_RECORDS / 2, Dublin: BIG_RECORDS / 2 });
      assert.deepEqual(data.fieldCountsPartial, ["field_1"]);
    });

    test(`a page whose records hold more than ${PAGE_BYTES / MiB} MiB is refused with 400 {error} naming resultLimit (${how})`, async () => {
      const reply = await getData({ resultLimit: BIG_RECORDS, ...window });
      assert.equal(reply.status, 400, reply.text.slice(0, 300));
      assert.deepEqual(Object.keys(reply.json), ["error"]);
      assert.match(reply.json.error, /resultLimit/);
      assert.ok(reply.body.length < 1024);
    });
  }

  test("pages within the budget are answered whole, and paging on reaches every record", async () => {
    const perPage = Math.floor(PAGE_BYTES / MiB) - 1;
    const seen: string[] = [];
    for (let page = 1; seen.length < BIG_RECORDS; page += 1) {
      const reply = await getData({ resultLimit: perPage, currentPage: page, reverse: true });
      assert.equal(reply.status, 200, reply.text.slice(0, 300));
      assert.ok(reply.body.length < ANSWER_BOUND, `answer of ${reply.body.length} bytes`);
      const rows = Object.keys(reply.json.data).filter((k) => /^\d+$/.test(k)).map((k) => reply.json.data[k].field_1 as string);
      assert.ok(rows.length > 0, `page ${page} holds records`);
      seen.push(...rows);
    }
    assert.deepEqual(seen, Array.from({ length: BIG_RECORDS }, (_, n) => big(n)));
  });

  test("/health answers while get-data requests over the big records run", async () => {
    const reads = Array.from({ length: 4 }, (_, i) => getData({ resultLimit: 1 + (i % 2) * (BIG_RECORDS - 1) }));
    const health = await call(server.url, "GET", "/health");
    assert.equal(health.status, 200);
    for (const reply of await Promise.all(reads)) {
      assert.ok([200, 400].includes(reply.status), reply.text.slice(0, 300));
      assert.ok(reply.body.length < ANSWER_BOUND, `answer of ${reply.body.length} bytes`);
    }
  });

  test("one record larger than the page budget is refused even alone, and the report streams it", async () => {
    const wide = await addBloc(server, "Wide", Array.from({ length: 10 }, (_, i) => `Part ${i + 1}`));
    const values = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`field_${i + 1}`, big(100 + i)]));
    await insertAt(server, wide, "2026-05-02 08:00:00", values);
    const reply = await server.call("GET", "/api/get-data", { json: { blocId: wide, resultLimit: 1 } });
    assert.equal(reply.status, 400, reply.text.slice(0, 300));
    assert.match(reply.json.error, /get-data-report/);
    const report = await server.call("GET", "/api/get-data-report", { json: { stationID: wide, fieldsToReport: "all" } });
    assert.equal(report.status, 200);
    assert.equal(report.json.data.length, 1);
    assert.equal(report.json.data[0].field_10, big(109));
  });
});

describe("fieldCounts within its byte budgets", () => {
  let many: string;

  before(async () => {
    // 3 fields of 1,000 distinct values of 200 characters each (about 200 KiB of listing per field).
    many = await addBloc(server, "Many values", ["A", "B", "C"]);
    await server.ctx.store.transaction(async (tx) => {
      for (let n = 0; n < 1000; n += 1) {
        const value = (letter: string): string => `${letter}${String(n).padStart(4, "0")}${"v".repeat(LISTED_VALUE_MAX - 60)}`;
        const record = { blocId: many, createdAt: stamp("2026-05-03 08:00:00", n), userId: "seed", submittedStatus: 1, jobId: null,
          values: { field_1: value("a"), field_2: value("b"), field_3: n < 3 ? "short" : value("c") } };
        await tx.records.insertRecord(record);
        tx.deltas.add(record, { slugs: ["field_1", "field_2", "field_3"], profileSlugs: [] }, 1);
      }
    });
  });

  test("each field lists its most frequent values within its byte budget and is named partial", async () => {
    const reply = await server.call("GET", "/api/get-data", { json: { blocId: many, resultLimit: 1 } });
    assert.equal(reply.status, 200);
    const { fieldCounts, fieldCountsPartial, count } = reply.json.data;
    assert.equal(count, 1000);
    assert.deepEqual(fieldCountsPartial, ["field_1", "field_2", "field_3"]);
    for (const slug of ["field_1", "field_2", "field_3"]) {
      const size = Buffer.byteLength(JSON.stringify(fieldCounts[slug]));
      assert.ok(size <= FIELD_COUNTS_FIELD_BYTES, `${slug}: ${size} bytes`);
      assert.ok(size > FIELD_COUNTS_FIELD_BYTES / 2, `${slug} uses its budget: ${size} bytes`);
    }
    // Most frequent first: "short" (3 records) leads field_3.
    assert.equal(Object.entries(fieldCounts.field_3)[0]![0], "short");
    assert.equal(fieldCounts.field_3.short, 3);
  });
});

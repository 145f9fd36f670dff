import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import Database from "better-sqlite3";
import { addBloc, addMember, startServer, type Member, type TestServer } from "./support/server.js";
import { insertAt, stamp } from "./support/fixtures.js";
import { MAX_FILTER_VALUES } from "../src/domain/report.js";
import { Statements } from "../src/store/sqlite/statements.js";
import { Params, whereSql } from "../src/store/postgres/filters.js";
import { CACHE_KEY_MAX, GenerationCache } from "../src/store/generation-cache.js";

/*
 * Finding 2 (and the store part of finding 1): nothing a client sends makes the store
 * keep more. Lists are bound as one parameter, so SQL texts do not depend on their
 * length; SQLite's prepared statements are a bounded cache; on PostgreSQL a text whose
 * shape a client chooses is not prepared; the config cache keeps only what exists.
 */

let server: TestServer;
let reader: Member;
let blocId: string;

before(async () => {
  server = await startServer();
  blocId = await addBloc(server, "Lists", ["Part", "Line"]);
  reader = await addMember(server, { blocId, read: true });
  for (let n = 0; n < 30; n += 1) {
    await insertAt(server, blocId, stamp("2026-03-01 08:00:00", n * 60), { field_1: `P-${n}`, field_2: `L${n % 3}` });
  }
});

after(async () => {
  await server.close();
});

function report(filter: Record<string, unknown>) {
  return server.call("GET", "/api/get-data-report", {
    token: reader.token,
    json: { stationID: blocId, fieldsToReport: { field_1: true }, dataFilteringData: JSON.stringify({ filterDataToQuery: filter }) },
  });
}

/** `n` values, among which P-0 … P-(hits-1) match records, the rest none. */
function list(n: number, hits: number): string[] {
  return Array.from({ length: n }, (_, i) => (i < hits ? `P-${i}` : `none-${i}`));
}

describe("report filter lists", () => {
  for (const n of [1, 2, 37, 999, MAX_FILTER_VALUES]) {
    test(`a list of ${n} values answers exactly the matching rows`, async () => {
      const hits = Math.min(n, 7);
      const reply = await report({ field_1: list(n, hits).reverse() });
      assert.equal(reply.status, 200, reply.text.slice(0, 300));
      assert.deepEqual(reply.json.data.map((row: { field_1: string }) => row.field_1), list(hits, hits));
    });
  }

  test("lists on two fields and on service keys combine", async () => {
    const reply = await report({ field_1: list(500, 12), field_2: ["L1", "nothing", "L2"] });
    assert.equal(reply.status, 200, reply.text.slice(0, 300));
    assert.deepEqual(reply.json.data.map((row: { field_1: string }) => row.field_1),
      list(12, 12).filter((_, i) => i % 3 !== 0));
  });

  for (const n of [MAX_FILTER_VALUES + 1, 40_000]) {
    test(`a list of ${n} values is refused with 400 {error} before any answer starts (JSON and .xlsx)`, async () => {
      for (const responseType of ["json", "blob"]) {
        const reply = await server.call("GET", "/api/get-data-report", {
          token: reader.token,
          json: {
            stationID: blocId, fieldsToReport: "all", responseType,
            dataFilteringData: JSON.stringify({ filterDataToQuery: { field_1: list(n, 3) } }),
          },
        });
        assert.equal(reply.status, 400, `${responseType}: ${reply.text.slice(0, 300)}`);
        assert.match(String(reply.headers["content-type"]), /^application\/json/);
        assert.deepEqual(Object.keys(reply.json), ["error"]);
        assert.match(reply.json.error, new RegExp(`filterDataToQuery\\.field_1 lists ${n} values; at most ${MAX_FILTER_VALUES}`));
      }
    });
  }
});

describe("SQL texts and prepared statements stay bounded", () => {
  test("SQLite: the statement cache keeps at most its capacity, dropping the least recently used", () => {
    const db = new Database(":memory:");
    try {
      const statements = new Statements(db, 3);
      const texts = Array.from({ length: 10 }, (_, i) => `SELECT ${i} AS n`);
      for (const text of texts) statements.get(text);
      assert.equal(statements.size, 3);
      const kept = statements.get(texts[9]!);
      statements.get(texts[7]!);
      statements.get("SELECT 'new'");
      assert.equal(statements.size, 3);
      // texts[8] was the least recently used: it was dropped; texts[9] is still the same prepared statement.
      assert.equal(statements.get(texts[9]!), kept);
      assert.equal((statements.get(texts[9]!).get() as { n: number }).n, 9);
    } finally {
      db.close();
    }
  });

  test("PostgreSQL: a filter's text does not depend on its lists' lengths, and client-chosen shapes are not prepared", () => {
    const texts = new Set<string>();
    for (const n of [1, 2, 100, 5000]) {
      const params = new Params();
      texts.add(whereSql({ blocId: "b", match: [{ key: "field_1", values: list(n, 0) }] }, params));
      assert.equal(params.options.prepare, false, "a client chose this filter's fields");
    }
    assert.equal(texts.size, 1);
    const visibility = new Params();
    whereSql({ blocId: "b", visibility: { ownerId: "7", match: [{ key: "field_2", values: ["Cork", "Dublin"] }] }, from: "2026-01-01 00:00:00" },
      visibility);
    assert.equal(visibility.options.prepare, true, "visibility and dates are shapes the service makes: prepared");
  });

  test("the config cache keeps only what exists, no long key, and at most its size", async () => {
    let generation = 1;
    const cache = new GenerationCache(async () => generation, 5);
    for (let i = 0; i < 20; i += 1) {
      assert.equal(await cache.get(`bloc:unknown-${i}`, async () => undefined, (v) => v !== undefined), undefined);
    }
    assert.equal(cache.size, 0, "unknown IDs are not kept");
    assert.equal(await cache.get(`bloc:${"x".repeat(CACHE_KEY_MAX + 1)}`, async () => "found"), "found");
    assert.equal(cache.size, 0, "a key longer than any real one is not kept");
    for (let i = 0; i < 20; i += 1) await cache.get(`bloc:${i}`, async () => i);
    assert.equal(cache.size, 5);
    generation = 2;
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(await cache.get("bloc:1", async () => "fresh"), "fresh", "a new generation empties it");
    assert.equal(cache.size, 1);
  });

  test("unknown bloc IDs of every size are refused alike and leave the store's cache empty of them", async () => {
    for (const size of [10, 1000, 100_000]) {
      const reply = await server.call("GET", "/api/get-data", { token: reader.token, json: { blocId: `u${"z".repeat(size)}` } });
      // 401 as for any bloc the reader may not use, or 400 where an ID length limit refuses it first.
      assert.ok([400, 401].includes(reply.status), reply.text.slice(0, 200));
      assert.equal(typeof reply.json.error, "string", reply.text.slice(0, 200));
    }
    // The cache is the store's own; reached here only to show what it holds.
    const cache = (server.ctx.store as unknown as { cache: GenerationCache }).cache;
    const before = cache.size;
    await server.ctx.store.blocs.findBloc(`unknown-${"q".repeat(200)}`);
    await server.ctx.store.blocs.findBloc("unknown-short");
    assert.equal(cache.size, before);
  });
});

import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { connect, type Pg } from "../src/store/postgres/driver.js";
import { startServer, type TestServer } from "./support/server.js";
import { testEngine } from "./support/database.js";

/*
 * bloc_key_tail keys client text in indexes (store/postgres/key-heads.ts). A migration
 * rewrote it in PL/pgSQL for speed over indexes built with its first, SQL definition: those
 * indexes stay valid only if both give the same bytes for every input.
 */

const skip = testEngine() === "postgres" ? false : "runs with BLOC_TEST_ENGINE=postgres";

let server: TestServer;
let sql: Pg;

before(async () => {
  if (skip) return;
  server = await startServer();
  sql = connect(server.databaseUrl, 1);
});

after(async () => {
  if (skip) return;
  await sql.end();
  await server.close();
});

test("bloc_key_tail gives the bytes of its first definition for every kind of text", { skip }, async () => {
  const texts = ["", "a", "x".repeat(199), "x".repeat(200), "x".repeat(201), "é".repeat(200), "é".repeat(201),
    "🙂".repeat(150), "🙂".repeat(201), `${"line\n".repeat(50)}\\ and "quotes"`, "ü".repeat(5_000)];
  const rows = await sql.unsafe(`SELECT t, bloc_key_tail(t, 200) AS now,
      CASE WHEN length(t) > 200 THEN sha256(textsend(t)) ELSE ''::bytea END AS first
    FROM unnest($1::text[]) AS t`, [texts]);
  assert.equal(rows.length, texts.length);
  for (const row of rows) assert.deepEqual(row.now, row.first, `the same bytes for a text of ${String(row.t).length} UTF-16 units`);
  const long = rows.filter((row) => (row.now as Buffer).length > 0).length;
  assert.equal(long, 5, "texts longer than 200 characters get their SHA-256, the others none");
  const [nothing] = await sql.unsafe("SELECT bloc_key_tail(NULL, 200) AS a, bloc_key_tail('x', NULL) AS b");
  assert.deepEqual([nothing!.a, nothing!.b], [null, null], "NULL in, NULL out (STRICT)");
  const [language] = await sql.unsafe(`SELECT l.lanname FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
    WHERE p.proname = 'bloc_key_tail'`);
  assert.equal(language!.lanname, "plpgsql", "the migration replaced the SQL body");
});

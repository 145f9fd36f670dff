import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import postgres from "postgres";
import { readConfig } from "../src/config.js";
import { openContext } from "../src/open-context.js";
import type { Context } from "../src/domain/context.js";
import { createBloc } from "../src/domain/blocs.js";
import { createUser } from "../src/domain/users.js";
import { importRecords } from "../src/domain/record-writes.js";
import type { NewRecord } from "../src/domain/ports/store.js";
import { indexName as postgresIndexName } from "../src/store/postgres/field-indexes.js";
import { valueIndexName as sqliteIndexName } from "../src/store/sqlite/value-indexes.js";
import { createBenchDatabase, type BenchDatabase } from "./postgres.js";
import { createBenchBloc, record } from "./seed.js";

/*
 * What a value index on every field costs each write (issue 10), measured A/B in one run:
 * two fresh databases of the same engine, one as the service makes it (every field's
 * slug indexed), the other with the value indexes dropped that only this change adds
 * (unmarked fields'), written to in alternating batches so that the shared machine's
 * noise falls on both alike. Two blocs: the bench's (11 fields, 5 of them indexed
 * before) and a 100-field bloc of unmarked text fields.
 *
 *   npm run build && node dist/bench/search-write-cost.js [--store postgres] [--records 20000]
 */

const STORE = process.argv.includes("--store") ? process.argv[process.argv.indexOf("--store") + 1] : "sqlite";
const RECORDS = Number(process.argv.includes("--records") ? process.argv[process.argv.indexOf("--records") + 1] : 20_000);
const BATCH = 500;
/** Fields that had a value index before every field got one: unique, profile-filtered, or marked (the bench's Site, Serial, Batch). */
const INDEXED_BEFORE = new Set(["field_2", "field_6", "field_7"]);

interface Side {
  readonly ctx: Context;
  readonly drop: (slugs: readonly string[]) => Promise<void>;
  readonly close: () => Promise<void>;
}

async function openSide(dir: string): Promise<Side> {
  if (STORE === "postgres") {
    const db: BenchDatabase = await createBenchDatabase();
    const ctx = await openContext(readConfig({ DATABASE_URL: db.url, BLOC_FILES_DIR: path.join(dir, "files"), BLOC_ADMIN_TOKEN: "a".repeat(40) }));
    return {
      ctx,
      drop: async (slugs) => {
        const sql = postgres(db.url, { max: 1, onnotice: () => {} });
        for (const slug of slugs) await sql.unsafe(`DROP INDEX IF EXISTS ${postgresIndexName(slug)}`);
        await sql.end();
      },
      close: async () => { await ctx.store.close(); await db.drop(); },
    };
  }
  const file = path.join(dir, "bloc.db");
  const ctx = await openContext(readConfig({ DATABASE_URL: `sqlite:${file}`, BLOC_FILES_DIR: path.join(dir, "files"), BLOC_ADMIN_TOKEN: "a".repeat(40) }));
  return {
    ctx,
    drop: async (slugs) => {
      const db = new Database(file);
      for (const slug of slugs) db.exec(`DROP INDEX IF EXISTS "${sqliteIndexName(slug)}"`);
      db.close();
    },
    close: () => ctx.store.close(),
  };
}

/** Records of a bloc of `fields` unmarked text fields, each value a short distinct text. */
function wideRecord(blocId: string, i: number, fields: number, userId: string): NewRecord {
  const values: Record<string, string> = {};
  for (let f = 1; f <= fields; f += 1) values[`field_${f}`] = `v${f}-${(i * 7919 + f) % 100_003}`;
  return { blocId, createdAt: `2026-06-01 ${String(Math.floor(i / 3600) % 24).padStart(2, "0")}:${String(Math.floor(i / 60) % 60).padStart(2, "0")}:${String(i % 60).padStart(2, "0")}`, userId, submittedStatus: 1, jobId: null, values };
}

interface Case {
  readonly name: string;
  readonly make: (blocId: string, i: number, userId: string) => NewRecord;
  readonly create: (ctx: Context) => Promise<string>;
  /** Slugs whose value index only this change adds. */
  readonly added: readonly string[];
  /** Single-record transactions (each committed and synced, as add-data does) measured after the batches. */
  readonly singles: number;
}

const WIDE = 100;
const CASES: readonly Case[] = [
  {
    name: "bench bloc (11 fields; 3 indexed before, 11 now)",
    create: (ctx) => createBenchBloc(ctx, "Cost"),
    make: (blocId, i, userId) => record(blocId, i, RECORDS, [userId], () => ((i * 2654435761) % 4294967296) / 4294967296),
    added: Array.from({ length: 11 }, (_, i) => `field_${i + 1}`).filter((s) => !INDEXED_BEFORE.has(s)),
    singles: 300,
  },
  {
    name: `${WIDE}-field bloc of unmarked text (0 indexed before, ${WIDE} now)`,
    create: async (ctx) => (await createBloc(ctx, { name: "Wide", fields: Array.from({ length: WIDE }, (_, i) => ({ name: `F${i + 1}` })) })).id,
    make: (blocId, i, userId) => wideRecord(blocId, i, WIDE, userId),
    added: Array.from({ length: WIDE }, (_, i) => `field_${i + 1}`),
    singles: 300,
  },
];

async function main(): Promise<void> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "bloc-search-cost-"));
  try {
    for (const c of CASES) {
      const sides: { label: string; side: Side; blocId: string; userId: string; batchMs: number; singleMs: number }[] = [];
      for (const label of ["with", "without"]) {
        const dir = path.join(root, `${label}-${sides.length}-${c.name.length}`);
        fs.mkdirSync(dir);
        const side = await openSide(dir);
        const userId = (await createUser(side.ctx, "op")).id;
        const blocId = await c.create(side.ctx);
        if (label === "without") await side.drop(c.added);
        sides.push({ label, side, blocId, userId, batchMs: 0, singleMs: 0 });
      }
      for (let done = 0; done < RECORDS; done += BATCH) {
        for (const s of done % (2 * BATCH) === 0 ? sides : [...sides].reverse()) {
          const batch = Array.from({ length: BATCH }, (_, k) => c.make(s.blocId, done + k, s.userId));
          const started = performance.now();
          await s.side.ctx.store.transaction((tx) => importRecords(tx, batch));
          s.batchMs += performance.now() - started;
        }
      }
      for (let k = 0; k < c.singles; k += 1) {
        for (const s of k % 2 === 0 ? sides : [...sides].reverse()) {
          const one = c.make(s.blocId, RECORDS + k, s.userId);
          const started = performance.now();
          await s.side.ctx.store.transaction((tx) => importRecords(tx, [one]));
          s.singleMs += performance.now() - started;
        }
      }
      const [a, b] = sides as [typeof sides[0], typeof sides[0]];
      const rate = (ms: number, n: number): string => `${Math.round(n / (ms / 1000)).toLocaleString("en")}/s`;
      process.stdout.write(`${STORE}, ${c.name}, ${RECORDS.toLocaleString("en")} records in batches of ${BATCH}:\n`
        + `  import with every field indexed ${rate(a.batchMs, RECORDS)}, without the added indexes ${rate(b.batchMs, RECORDS)}: ratio ${(b.batchMs / a.batchMs).toFixed(2)}\n`
        + `  single-record transactions with ${rate(a.singleMs, c.singles)}, without ${rate(b.singleMs, c.singles)}: ratio ${(b.singleMs / a.singleMs).toFixed(2)}\n`);
      for (const s of sides) await s.side.close();
    }
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

await main();

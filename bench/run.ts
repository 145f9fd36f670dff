import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { readConfig } from "../src/config.js";
import { openContext } from "../src/open-context.js";
import { createUser } from "../src/domain/users.js";
import { setGrant, setProfile, setRestriction, grantOf } from "../src/domain/access.js";
import { issueToken } from "../src/domain/tokens.js";
import { startProcess } from "../test/support/process.js";
import { download, latency, load, memoryMb, resetPeak, type Load } from "./measure.js";
import { eventsCpuRatio, eventsRatio, measureEvents, median } from "./events.js";
import { ADMIN_URL, createBenchDatabase, describeWaits, driverCeiling, sampleSessions, type BenchDatabase, type DriverCeiling } from "./postgres.js";
import { BATCH, CATEGORIES, COMMENT, SEED_PATHS, SERIAL, Seeder, createBenchBloc, daySpan, describeSeed, type SeedPath, type SeedReport } from "./seed.js";
import { writeResults, type Figure } from "./results.js";
import { bulkFigures, measureBulk } from "./bulk.js";
import { SHIFT_DAY, measureShift, measureWindows, shiftFigures, windowFigures } from "./windows.js";
import { bareReadLoop, measureReports, type ReportRun } from "./reports.js";
import { measureSearch, searchFigures } from "./search.js";
import { diskFigures, postgresDisk, sqliteDisk } from "./disk.js";
import { makeMembers, memberAddFigure, memberAdds, prefill, type Members } from "./members.js";
import { CpuMeter, describeCpu, type CpuPerRequest } from "./cpu-budget.js";
import { addFloorFigure, boundRps, engineCosts, frameworkCosts, type AddFloor, type AddFloorRow } from "./add-data-floor.js";
import { postgresAddFloorFigure, postgresBoundRps, postgresEngineCosts, type PostgresAddFloor, type PostgresAddFloorRow } from "./add-data-floor-postgres.js";

const SITES = CATEGORIES[1]!.values;

/** `--name value` or `--name=value`. */
function option(name: string): string | undefined {
  const args = process.argv.slice(2);
  const inline = args.find((a) => a.startsWith(`${name}=`));
  if (inline) return inline.slice(name.length + 1);
  const index = args.indexOf(name);
  return index >= 0 ? args[index + 1] : undefined;
}

const quick = process.argv.includes("--quick");
/** Which engine: sqlite (a file in a temporary folder) or postgres (a fresh database on BLOC_BENCH_PG_URL's server). */
const STORE = (option("--store") ?? "sqlite") as "sqlite" | "postgres";
if (STORE !== "sqlite" && STORE !== "postgres") throw new Error(`--store must be sqlite or postgres, got "${String(STORE)}"`);
/** How the blocs are seeded: by bulk import unless told otherwise. */
const SEED_PATH = (option("--seed") ?? "bulk") as SeedPath;
if (!SEED_PATHS.includes(SEED_PATH)) throw new Error(`--seed must be ${SEED_PATHS.join(", ")}, got "${SEED_PATH}"`);
/** Leave the PostgreSQL database in place at the end (to look at its plans); it is dropped otherwise, also on failure. */
const KEEP_DB = process.argv.includes("--keep-db");
/** PostgreSQL: the server's pool and the driver ceiling's, alike. */
const PG_POOL = process.env.BLOC_PG_POOL ?? "10";
const CONNECTIONS = 32;
/** Members sending add-data in turn, each with a token of their own. */
const MEMBERS = 20;
/** Records in the bloc in use the members also add to (bench/members.ts prefill). */
const IN_USE = 30_000;
const LARGE = quick ? 100_000 : 1_000_000;
const SMALL = 10_000;
/** Records of the shift bloc, all created on one day. */
const SHIFT = quick ? 10_000 : 100_000;
const SECONDS = quick ? 2 : 6;
const DEEP_PAGE = LARGE / 20;
const here = path.dirname(fileURLToPath(import.meta.url));
const say = (line: string): void => { process.stderr.write(`${line}\n`); };

interface Prepared {
  readonly blocs: Record<"small" | "large" | "adds" | "shift", string>;
  readonly tokens: Record<"own" | "profile", string>;
  readonly members: Members;
  readonly inUse: Members;
  readonly users: readonly string[];
  readonly seeds: { readonly large: SeedReport; readonly small: SeedReport; readonly shift: SeedReport };
}

async function prepare(dir: string, admin: string, databaseUrl: string, env: Record<string, string>): Promise<Prepared> {
  const ctx = await openContext(readConfig({
    ...env, DATABASE_URL: databaseUrl, BLOC_FILES_DIR: path.join(dir, "files"), BLOC_ADMIN_TOKEN: admin,
  }));
  const users: string[] = [];
  for (let i = 0; i < 20; i += 1) users.push((await createUser(ctx, `operator ${i + 1}`)).id);
  const blocs = {
    small: await createBenchBloc(ctx, "Small"), large: await createBenchBloc(ctx, "Large"), adds: await createBenchBloc(ctx, "Adds"),
    shift: await createBenchBloc(ctx, "Shift"),
  };
  const members = await makeMembers(ctx, await createBenchBloc(ctx, "Members"), MEMBERS, SITES);
  const inUse = await makeMembers(ctx, await createBenchBloc(ctx, "Members, in use"), MEMBERS, SITES);
  await prefill(ctx, inUse, IN_USE);
  const how: Record<SeedPath, string> = { bulk: "by bulk import", rebuild: "as rows, then rebuildCounters", store: "through the store" };
  say(`seeding ${LARGE.toLocaleString("en")} + ${SMALL.toLocaleString("en")} + ${SHIFT.toLocaleString("en")} records (${how[SEED_PATH]})…`);
  const seeder = new Seeder(ctx, users);
  const large = await seeder.seed(blocs.large, LARGE, SEED_PATH);
  say(`  large bloc: ${describeSeed(large)}`);
  const small = await seeder.seed(blocs.small, SMALL, SEED_PATH);
  const shift = await seeder.seed(blocs.shift, SHIFT, SEED_PATH, daySpan(SHIFT_DAY));
  say(`  shift bloc: ${describeSeed(shift)}`);
  // An operator who sees only their own records, and a site lead who sees only Dublin's.
  const [own, lead] = [users[0]!, users[1]!];
  for (const blocId of [blocs.large, blocs.shift]) {
    for (const user of [own, lead]) await setGrant(ctx, blocId, user, grantOf({ read: true }));
    await setRestriction(ctx, blocId, own, "own");
  }
  // Site is profile-filtered; the operator works at every site, the lead at one.
  await setProfile(ctx, own, SITES);
  await setProfile(ctx, lead, ["Dublin"]);
  const tokens = { own: (await issueToken(ctx, own, {})).token, profile: (await issueToken(ctx, lead, {})).token };
  await ctx.store.close();
  return { blocs, tokens, members, inUse, users, seeds: { large, small, shift } };
}

/** Where the run keeps its records, and how to describe and remove it. */
interface Engine {
  readonly databaseUrl: string;
  /** Environment for the server and the store opened to seed. */
  readonly env: Record<string, string>;
  readonly label: string;
  readonly notes: string[];
  readonly pg?: BenchDatabase;
  /** SQLite: the server's database file. */
  readonly sqliteFile?: string;
}

async function openEngine(dir: string): Promise<Engine> {
  if (STORE === "sqlite") {
    const sqlite = (new Database(":memory:").prepare("SELECT sqlite_version() AS v").get() as { v: string }).v;
    const sqliteFile = path.join(dir, "bloc.db");
    return { databaseUrl: `sqlite:${sqliteFile}`, sqliteFile, env: {}, label: `SQLite ${sqlite}`, notes: [] };
  }
  const pg = await createBenchDatabase();
  const { server } = pg;
  const where = new URL(ADMIN_URL);
  const driver = (JSON.parse(fs.readFileSync(path.join(here, "../../node_modules/postgres/package.json"), "utf8")) as { version: string }).version;
  process.env.BLOC_PG_POOL = PG_POOL;
  return {
    databaseUrl: pg.url, env: { BLOC_PG_POOL: PG_POOL }, pg,
    label: `PostgreSQL ${server.server_version} (server at ${where.hostname}:${where.port || "5432"}), driver postgres ${driver}`,
    notes: [
      `PostgreSQL settings: synchronous_commit ${server.synchronous_commit}, fsync ${server.fsync}, wal_sync_method ${server.wal_sync_method}, ` +
        `full_page_writes ${server.full_page_writes}, commit_delay ${server.commit_delay}, shared_buffers ${server.shared_buffers}, ` +
        `work_mem ${server.work_mem}, max_connections ${server.max_connections}`,
      `database: a fresh ${pg.name}, ${KEEP_DB ? "kept (--keep-db)" : "dropped at the end"}; server pool BLOC_PG_POOL=${PG_POOL}`,
    ],
  };
}

/** Undone in reverse order at the end, on failure, and on SIGINT or SIGTERM. */
const cleanups: (() => Promise<void>)[] = [];
let cleaning: Promise<void> | undefined;
function cleanUp(): Promise<void> {
  cleaning ??= (async () => {
    for (const step of cleanups.reverse()) {
      try {
        await step();
      } catch (error) {
        say(`cleaning up: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  })();
  return cleaning;
}
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    say(`${signal}: stopping and cleaning up…`);
    void cleanUp().finally(() => process.exit(130));
  });
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bloc-bench-"));
  cleanups.push(async () => fs.rmSync(dir, { recursive: true, force: true }));
  const admin = `bench-admin-${Date.now()}-0123456789`;
  const started = performance.now();
  const loadAtStart = os.loadavg()[0]!;
  try {
    const engine = await openEngine(dir);
    const pg = engine.pg;
    if (pg) {
      say(`PostgreSQL database ${pg.name}${KEEP_DB ? ` (kept at the end: ${pg.url})` : ""}`);
      if (!KEEP_DB) cleanups.push(() => pg.drop());
    }
    const { blocs, tokens, members, inUse, users, seeds } = await prepare(dir, admin, engine.databaseUrl, engine.env);
    const env = {
      ...engine.env, DATABASE_URL: engine.databaseUrl, BLOC_FILES_DIR: path.join(dir, "files"),
      BLOC_ADMIN_TOKEN: admin, BLOC_LOG_LEVEL: "warn",
    };
    const server = await startProcess(env, dir);
    const alive = (child: typeof server.child): boolean => child.exitCode === null && child.signalCode === null;
    cleanups.push(async () => { if (alive(server.child)) await server.stop(); });
    const ceiling = await startProcess({ BLOC_LOG_LEVEL: "warn" }, dir, path.join(here, "ceiling-server.js"));
    cleanups.push(async () => { if (alive(ceiling.child)) await ceiling.stop(); });
    const pid = server.child.pid!;
    const api = (p: string): string => `${server.url}${p}`;
    const read = (body: unknown, token = admin): Promise<Load> =>
      latency({ url: api("/api/get-data"), method: "GET", token, body, seconds: SECONDS });
    const update = (blocId: string, search: Record<string, string>): Promise<Load> => latency({
      url: api("/api/update-records-by-matching-values"), method: "POST", token: admin, seconds: SECONDS,
      body: { blocId, fieldsToUpdate: { [COMMENT]: "checked" }, searchItems: search },
    });

    // A scan as a scanner sends it: every select field (they are required) and a few free-text ones.
    const scan: Record<string, string> = {
      ...Object.fromEntries(CATEGORIES.map((c, i) => [`field_${i + 1}`, c.values[0]!])),
      [SERIAL]: "SN-x", [BATCH]: "B-00001", [COMMENT]: "scanned",
    };
    say(`ceiling and add-data at ${CONNECTIONS} connections…`);
    const { load: ceil, costs: ceilCosts } = await frameworkCosts(ceiling.child.pid!, SECONDS, () =>
      load({ url: `${ceiling.url}/`, method: "POST", body: {}, connections: CONNECTIONS, seconds: SECONDS }));
    let driver: DriverCeiling | undefined;
    if (pg) {
      say(`driver ceiling: ${CONNECTIONS} loops of BEGIN; INSERT; COMMIT over a pool of ${PG_POOL}…`);
      driver = await driverCeiling(pg.url, {
        loops: CONNECTIONS, pool: Number(PG_POOL), seconds: SECONDS, databaseName: pg.name,
        row: { blocId: blocs.adds, userId: users[0]!, values: scan },
      });
    }
    let stopSampling: (() => Promise<Record<string, number>>) | undefined;
    const add = await load({
      url: api("/api/add-data"), method: "POST", token: admin, connections: CONNECTIONS, seconds: SECONDS,
      body: { scanStationID: blocs.adds, dataToAdd: JSON.stringify(scan) },
    }, () => {
      if (pg) {
        const sampler = sampleSessions(pg.name);
        stopSampling = () => sampler.stop();
      }
    });
    const addWaits = stopSampling ? await stopSampling() : undefined;
    say(`add-data, a new record each time from ${MEMBERS} members in turn…`);
    // What each add costs the service, PostgreSQL and the load in CPU (bench/cpu-budget.ts).
    const metered = async (into: Members): Promise<{ load: Load; cpu: CpuPerRequest }> => {
      let meter: CpuMeter | undefined;
      const result = await load({
        url: api("/api/add-data"), method: "POST", connections: CONNECTIONS, seconds: SECONDS, next: memberAdds(into),
      }, () => { meter = new CpuMeter(pid, { postgres: pg !== undefined }); });
      return { load: result, cpu: meter!.perRequest(result.requests) };
    };
    const { load: memberAdd, cpu: memberAddCpu } = await metered(members);
    say(`the same into a bloc in use, holding ${IN_USE.toLocaleString("en")} records…`);
    const { load: memberAddInUse, cpu: memberAddInUseCpu } = await metered(inUse);
    say("add-data with a webhook and a live stream attached, alternating with add-data alone…");
    const events = await measureEvents(api, admin, blocs.adds, { scanStationID: blocs.adds, dataToAdd: JSON.stringify(scan) },
      CONNECTIONS, SECONDS, 3, dir, pid);
    say("get-data…");
    const page1Small = await read({ blocId: blocs.small });
    const page1Large = await read({ blocId: blocs.large });
    const windows = await measureWindows(blocs.large, (body, reader) => read(body, reader === "all" ? admin : tokens[reader]));
    const shift = await measureShift(blocs.shift, (body, reader) => read(body, reader === "all" ? admin : tokens[reader]));
    const ownLarge = await read({ blocId: blocs.large }, tokens.own);
    const profileLarge = await read({ blocId: blocs.large }, tokens.profile);
    const deepLarge = await read({ blocId: blocs.large, currentPage: DEEP_PAGE, resultLimit: 10 });
    say("update-records…");
    const oneSmall = await update(blocs.small, { [SERIAL]: "SN-00004321" });
    const oneLarge = await update(blocs.large, { [SERIAL]: "SN-00004321" });
    const thousandSmall = await update(blocs.small, { [BATCH]: "B-00004" });
    const thousandLarge = await update(blocs.large, { [BATCH]: "B-00004" });
    say("searching an unmarked field…");
    const search = await measureSearch(api, admin, blocs, SECONDS);
    say(`reports of ${LARGE.toLocaleString()} records…`);
    const report = async (responseType: string): Promise<ReportRun> => {
      const before = memoryMb(pid, "VmRSS");
      resetPeak(pid);
      const result = await download(api("/api/get-data-report"), admin, { stationID: blocs.large, fieldsToReport: "all", responseType });
      if (result.status !== 200) throw new Error(`report answered ${result.status}`);
      return { rowsPerSecond: LARGE / result.seconds, firstByte: result.firstByteSeconds, rssGrowth: memoryMb(pid, "VmHWM") - before, seconds: result.seconds };
    };
    // The reference, the engine alone reading the same rows, interleaved with the reports (bench/reports.ts).
    const { bare, bareRuns, json, xlsx } = await measureReports(3, () => bareReadLoop(env, blocs.large), report);
    const bulk = await measureBulk(STORE, dir, quick ? 20_000 : 100_000, say);
    let addFloor: AddFloor | undefined;
    if (!pg) {
      say("add-data's floor: the same records written by bare better-sqlite3…");
      const into = async (held: number): Promise<AddFloorRow> => {
        const cost = (await engineCosts(held)).counted;
        const rps = boundRps(ceilCosts, cost);
        return { held, cost, rps, ratio: rps / ceil.rps };
      };
      addFloor = { framework: ceilCosts, fresh: await into(0), inUse: await into(IN_USE) };
    }
    let postgresAddFloor: PostgresAddFloor | undefined;
    if (pg && driver) {
      say("add-data's floor: the same records written by the bare driver, side by side…");
      const into = async (held: number): Promise<PostgresAddFloorRow> => {
        const cost = (await postgresEngineCosts(held, { driverLoop: false })).counted;
        const rps = postgresBoundRps(ceilCosts, cost);
        return { held, cost, rps, ratio: rps / driver.rps };
      };
      postgresAddFloor = { framework: ceilCosts, fresh: await into(0), inUse: await into(IN_USE) };
    }
    // Last, so that the database holds everything the run wrote.
    say(pg ? "VACUUM, then bytes on disk and counter rows…" : "WAL checkpoint, then bytes on disk and counter rows…");
    const disk = pg ? await postgresDisk(pg.url) : await sqliteDisk(engine.sqliteFile!);

    const failures = [ceil, ...(driver ? [driver] : []), add, memberAdd, memberAddInUse, page1Small, page1Large, ...windows.map((w) => w.load), ...shift.map((w) => w.load), ownLarge, profileLarge, deepLarge, oneSmall, oneLarge, thousandSmall, thousandLarge]
      .reduce((sum, l) => sum + l.failures, 0);
    const large = LARGE.toLocaleString("en");
    const timing = (l: Load): string => `p50 ${l.p50} ms, p99 ${l.p99} ms`;
    // Measured only when the large bloc went through the store (`--seed store`).
    const through = seeds.large;
    const seedRate = through.storeRecords / through.storeSeconds;
    const rowsUsed = seeds.large.rowsRecords + seeds.small.rowsRecords + seeds.shift.rowsRecords > 0;
    const seedPath = `large bloc: ${describeSeed(seeds.large)}; small bloc: ${describeSeed(seeds.small)}; shift bloc: ${describeSeed(seeds.shift)}`;
    const addReference = driver ?? ceil;
    const seeding: Figure[] = [
      {
        name: "seeding through the store",
        value: through.storeRecords > 0
          ? `${Math.round(seedRate).toLocaleString("en")} records/s`
          : "not measured",
        target: "≥ 100,000 records/s", met: through.storeRecords > 0 ? seedRate >= 100_000 : null,
      },
      ...bulkFigures(bulk, seeds.large),
      ...(rowsUsed || STORE === "postgres" ? [{ name: "seeding path", value: seedPath, target: "reported", met: null }] : []),
    ];
    const ceilings: Figure[] = [
      { name: `ceiling: bare Fastify route, ${CONNECTIONS} connections`, value: `${Math.round(ceil.rps).toLocaleString("en")} req/s`, target: "reference", met: null },
      ...(driver ? [{
        name: `ceiling: bare driver loop, ${driver.loops} loops over a pool of ${driver.pool} (BEGIN; INSERT 1 row; COMMIT)`,
        value: `${Math.round(driver.rps).toLocaleString("en")} tx/s; p50 ${driver.p50} ms, p99 ${driver.p99} ms; CPU ${describeCpu(driver.cpu, "transaction")}`,
        target: "reference", met: null,
      }] : []),
      {
        name: `add-data, the same record each time, ${CONNECTIONS} connections (durable)`,
        value: driver
          ? `${Math.round(add.rps).toLocaleString("en")} req/s; ratio to driver ceiling ${(add.rps / driver.rps).toFixed(2)} (to Fastify ceiling ${(add.rps / ceil.rps).toFixed(2)})`
          : `${Math.round(add.rps).toLocaleString("en")} req/s; ratio to ceiling ${(add.rps / ceil.rps).toFixed(2)}`,
        target: driver ? "ratio to driver ceiling ≥ 0.50" : "ratio ≥ 0.50", met: add.rps / addReference.rps >= 0.5,
      },
      memberAddFigure(memberAdd, MEMBERS, CONNECTIONS, ceil, driver, 0, memberAddCpu),
      memberAddFigure(memberAddInUse, MEMBERS, CONNECTIONS, ceil, driver, IN_USE, memberAddInUseCpu),
      ...(addFloor ? [addFloorFigure(addFloor)] : []),
      ...(postgresAddFloor ? [postgresAddFloorFigure(postgresAddFloor)] : []),
      {
        name: `add-data with one webhook and one live stream attached, ${CONNECTIONS} connections`,
        value: `${Math.round(median(events.with.map((l) => l.rps))).toLocaleString("en")} req/s against ` +
          `${Math.round(median(events.without.map((l) => l.rps))).toLocaleString("en")} alone (medians of 3 alternating rounds); ` +
          `ratio ${eventsRatio(events).toFixed(2)}; ${events.delivered.toLocaleString("en")} deliveries acknowledged and ` +
          `${events.streamed.toLocaleString("en")} events streamed meanwhile; CPU per add of the server, the listeners and ` +
          `the load together ${median(events.cpuWith).toFixed(0)} µs against ${median(events.cpuWithout).toFixed(0)} µs ` +
          `(ratio ${eventsCpuRatio(events).toFixed(2)})`,
        target: "ratio ≥ 0.80", met: eventsRatio(events) >= 0.8,
      },
    ];
    const figures: Figure[] = [
      ...seeding,
      ...ceilings,
      { name: "get-data page 1, 10,000 records", value: timing(page1Small), target: "reference", met: null },
      { name: `get-data page 1, ${large} records`, value: `${timing(page1Large)}; growth p99 ${(page1Large.p99 / page1Small.p99).toFixed(2)}`, target: "growth ≤ 3", met: page1Large.p99 / page1Small.p99 <= 3 },
      ...windowFigures(windows, page1Small, large),
      ...shiftFigures(shift, page1Small, SHIFT.toLocaleString("en")),
      { name: `get-data own restriction, ${large}`, value: `${timing(ownLarge)}; ${(ownLarge.p99 / page1Small.p99).toFixed(1)} × 10k p99`, target: "≤ 3 × 10k p99", met: ownLarge.p99 <= 3 * page1Small.p99 },
      { name: `get-data profile filter, ${large}`, value: `${timing(profileLarge)}; ${(profileLarge.p99 / page1Small.p99).toFixed(1)} × 10k p99`, target: "≤ 3 × 10k p99", met: profileLarge.p99 <= 3 * page1Small.p99 },
      { name: `get-data page ${DEEP_PAGE.toLocaleString("en")} of 10, ${large}`, value: `${timing(deepLarge)}; ratio to page 1 ${(deepLarge.p99 / page1Large.p99).toFixed(2)}`, target: "≤ 10", met: deepLarge.p99 / page1Large.p99 <= 10 },
      { name: "update matching 1 record by a marked field (Serial), 10,000", value: timing(oneSmall), target: "reference", met: null },
      { name: `update matching 1 record by a marked field (Serial), ${large}`, value: `${timing(oneLarge)}; growth p99 ${(oneLarge.p99 / oneSmall.p99).toFixed(2)}`, target: "growth ≤ 3", met: oneLarge.p99 / oneSmall.p99 <= 3 },
      { name: "update matching 1,000 records (one batch), 10,000", value: timing(thousandSmall), target: "reference", met: null },
      { name: `update matching 1,000 records, ${large}`, value: `${timing(thousandLarge)}; growth p99 ${(thousandLarge.p99 / thousandSmall.p99).toFixed(2)}`, target: "reported (no target)", met: null },
      ...searchFigures(search, large),
      { name: `bare read loop, ${large} rows (engine alone, report projection and batches)`, value: `${Math.round(bare).toLocaleString("en")} rows/s (median of ${bareRuns.map((r) => Math.round(r).toLocaleString("en")).join(", ")})`, target: "reference", met: null },
      { name: `report JSON, ${large} rows`, value: `${(json.rowsPerSecond / bare).toFixed(2)} of the bare read loop (${Math.round(json.rowsPerSecond).toLocaleString("en")} rows/s); first byte ${json.firstByte.toFixed(3)} s; peak RSS +${json.rssGrowth.toFixed(0)} MB`, target: "≥ 0.80 of the bare read loop, first byte ≤ 1 s, RSS ≤ +150 MB", met: json.rowsPerSecond / bare >= 0.8 && json.firstByte <= 1 && json.rssGrowth <= 150 },
      { name: `report .xlsx, ${large} rows`, value: `${(xlsx.rowsPerSecond / bare).toFixed(2)} of the bare read loop (${Math.round(xlsx.rowsPerSecond).toLocaleString("en")} rows/s); first byte ${xlsx.firstByte.toFixed(3)} s; peak RSS +${xlsx.rssGrowth.toFixed(0)} MB`, target: "≥ 0.40 of the bare read loop, first byte ≤ 1 s, RSS ≤ +150 MB", met: xlsx.rowsPerSecond / bare >= 0.4 && xlsx.firstByte <= 1 && xlsx.rssGrowth <= 150 },
      ...diskFigures(disk),
    ];
    // A figure measured on refused requests measures nothing: say so in the table.
    const measured: [Load, string][] = [[ceil, "ceiling: bare Fastify"], ...(driver ? [[driver, "ceiling: bare driver"] as [Load, string]] : []), [add, "add-data, the same record each time"], [page1Small, "get-data page 1, 10,000"],
      [page1Large, "get-data page 1, "], [ownLarge, "get-data own restriction"],
      [profileLarge, "get-data profile filter"], [deepLarge, "get-data page "], [oneSmall, "update matching 1 record by a marked field (Serial), 10,000"],
      [oneLarge, "update matching 1 record by a marked field (Serial), " + large], [thousandSmall, "update matching 1,000 records (one batch)"],
      [thousandLarge, "update matching 1,000 records, " + large]];
    for (const [result, prefix] of measured) {
      if (result.failures === 0) continue;
      const index = figures.findIndex((f) => f.name.includes(prefix));
      if (index >= 0) figures[index] = { ...figures[index]!, value: `${figures[index]!.value} (${result.failures} of ${result.requests} requests failed)`, met: false };
    }
    const notes = [...engine.notes];
    if (STORE === "postgres" || rowsUsed) notes.push(`seeding: ${seedPath}`);
    if (driver) {
      notes.push(`add-data reference: ${driver.loops} concurrent loops over a pool of ${driver.pool} connections (postgres.js \`sql.begin\`), ` +
        `each BEGIN; INSERT one row (the scan's JSON as jsonb) into a table shaped like records with only its key; COMMIT; measured ${SECONDS} s after 0.5 s of warm-up, just before add-data`);
      notes.push(`sessions during the driver ceiling: ${describeWaits(driver.waits)}`);
    }
    if (addWaits) notes.push(`sessions during add-data: ${describeWaits(addWaits)}`);
    const raw = {
      ceil, driver, add, addWaits, memberAdd, memberAddInUse, memberAddCpu, memberAddInUseCpu, addFloor, postgresAddFloor, members: { count: MEMBERS, blocId: members.blocId, inUse: IN_USE }, events, page1Small, page1Large, windows, shift, ownLarge, profileLarge, deepLarge, oneSmall, oneLarge,
      thousandSmall, thousandLarge, json, xlsx, seedRate, seeds, bulk, search, disk,
    };
    const table = writeResults(path.resolve(here, "../../bench"), {
      quick, large: LARGE, seconds: SECONDS, store: STORE, engine: engine.label,
      ...(STORE === "sqlite" ? { sqlite: engine.label.replace("SQLite ", "") } : { server: engine.pg?.server }),
      notes, figures, raw, failures, elapsed: (performance.now() - started) / 1000, loadAtStart,
    });
    process.stdout.write(table);
  } finally {
    await cleanUp();
  }
}

await main();

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
import { startProcess, type Running } from "../test/support/process.js";
import { download, latency, load, memoryMb, resetPeak, type Load } from "./measure.js";
import { BATCH, CATEGORIES, COMMENT, SERIAL, createBenchBloc, seed } from "./seed.js";

const SITES = CATEGORIES[1]!.values;
import { writeResults, type Figure } from "./results.js";

const quick = process.argv.includes("--quick");
const LARGE = quick ? 100_000 : 1_000_000;
const SMALL = 10_000;
const SECONDS = quick ? 2 : 6;
const DEEP_PAGE = LARGE / 20;
const here = path.dirname(fileURLToPath(import.meta.url));
const say = (line: string): void => { process.stderr.write(`${line}\n`); };

async function prepare(dir: string, admin: string): Promise<{ blocs: Record<"small" | "large" | "adds", string>; tokens: Record<"own" | "profile", string>; seedRate: number }> {
  const ctx = await openContext(readConfig({
    DATABASE_URL: `sqlite:${path.join(dir, "bloc.db")}`, BLOC_FILES_DIR: path.join(dir, "files"), BLOC_ADMIN_TOKEN: admin,
  }));
  const users: string[] = [];
  for (let i = 0; i < 20; i += 1) users.push((await createUser(ctx, `operator ${i + 1}`)).id);
  const blocs = {
    small: await createBenchBloc(ctx, "Small"), large: await createBenchBloc(ctx, "Large"), adds: await createBenchBloc(ctx, "Adds"),
  };
  say(`seeding ${LARGE.toLocaleString()} + ${SMALL.toLocaleString()} records through the store…`);
  const seedRate = await seed(ctx, blocs.large, LARGE, users);
  await seed(ctx, blocs.small, SMALL, users);
  // An operator who sees only their own records, and a site lead who sees only Dublin's.
  const [own, lead] = [users[0]!, users[1]!];
  for (const user of [own, lead]) await setGrant(ctx, blocs.large, user, grantOf({ read: true }));
  await setRestriction(ctx, blocs.large, own, "own");
  // Site is profile-filtered; the operator works at every site, the lead at one.
  await setProfile(ctx, own, SITES);
  await setProfile(ctx, lead, ["Dublin"]);
  const tokens = { own: (await issueToken(ctx, own, {})).token, profile: (await issueToken(ctx, lead, {})).token };
  await ctx.store.close();
  return { blocs, tokens, seedRate };
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bloc-bench-"));
  const admin = `bench-admin-${Date.now()}-0123456789`;
  const started = performance.now();
  let server: Running | undefined;
  let ceiling: Running | undefined;
  try {
    const { blocs, tokens, seedRate } = await prepare(dir, admin);
    const env = {
      DATABASE_URL: `sqlite:${path.join(dir, "bloc.db")}`, BLOC_FILES_DIR: path.join(dir, "files"),
      BLOC_ADMIN_TOKEN: admin, BLOC_LOG_LEVEL: "warn",
    };
    server = await startProcess(env, dir);
    ceiling = await startProcess({ BLOC_LOG_LEVEL: "warn" }, dir, path.join(here, "ceiling-server.js"));
    const pid = server.child.pid!;
    const api = (p: string): string => `${server!.url}${p}`;
    const read = (body: unknown, token = admin): Promise<Load> =>
      latency({ url: api("/api/get-data"), method: "GET", token, body, seconds: SECONDS });
    const update = (blocId: string, search: Record<string, string>): Promise<Load> => latency({
      url: api("/api/update-records-by-matching-values"), method: "POST", token: admin, seconds: SECONDS,
      body: { blocId, fieldsToUpdate: { [COMMENT]: "checked" }, searchItems: search },
    });

    say("ceiling and add-data at 32 connections…");
    const ceil = await load({ url: `${ceiling.url}/`, method: "POST", body: {}, connections: 32, seconds: SECONDS });
    const add = await load({
      url: api("/api/add-data"), method: "POST", token: admin, connections: 32, seconds: SECONDS,
      // A scan as a scanner sends it: every select field (they are required) and a few free-text ones.
      body: {
        scanStationID: blocs.adds,
        dataToAdd: JSON.stringify({
          ...Object.fromEntries(CATEGORIES.map((c, i) => [`field_${i + 1}`, c.values[0]])),
          [SERIAL]: "SN-x", [BATCH]: "B-00001", [COMMENT]: "scanned",
        }),
      },
    });
    say("get-data…");
    const page1Small = await read({ blocId: blocs.small });
    const page1Large = await read({ blocId: blocs.large });
    const windowLarge = await read({ blocId: blocs.large, fromDate: "2026-03-01", toDate: "2026-03-31" });
    const ownLarge = await read({ blocId: blocs.large }, tokens.own);
    const profileLarge = await read({ blocId: blocs.large }, tokens.profile);
    const deepLarge = await read({ blocId: blocs.large, currentPage: DEEP_PAGE, resultLimit: 10 });
    say("update-records…");
    const oneSmall = await update(blocs.small, { [SERIAL]: "SN-00004321" });
    const oneLarge = await update(blocs.large, { [SERIAL]: "SN-00004321" });
    const thousandSmall = await update(blocs.small, { [BATCH]: "B-00004" });
    const thousandLarge = await update(blocs.large, { [BATCH]: "B-00004" });
    say(`reports of ${LARGE.toLocaleString()} records…`);
    const report = async (responseType: string): Promise<{ rowsPerSecond: number; firstByte: number; rssGrowth: number; seconds: number }> => {
      const before = memoryMb(pid, "VmRSS");
      resetPeak(pid);
      const result = await download(api("/api/get-data-report"), admin, { stationID: blocs.large, fieldsToReport: "all", responseType });
      if (result.status !== 200) throw new Error(`report answered ${result.status}`);
      return { rowsPerSecond: LARGE / result.seconds, firstByte: result.firstByteSeconds, rssGrowth: memoryMb(pid, "VmHWM") - before, seconds: result.seconds };
    };
    const json = await report("json");
    const xlsx = await report("blob");

    const failures = [ceil, add, page1Small, page1Large, windowLarge, ownLarge, profileLarge, deepLarge, oneSmall, oneLarge, thousandSmall, thousandLarge]
      .reduce((sum, l) => sum + l.failures, 0);
    const large = LARGE.toLocaleString("en");
    const timing = (l: Load): string => `p50 ${l.p50} ms, p99 ${l.p99} ms`;
    const figures: Figure[] = [
      { name: "seeding through the store", value: `${Math.round(seedRate).toLocaleString("en")} records/s`, target: "≥ 100,000 records/s", met: seedRate >= 100_000 },
      { name: "ceiling: bare Fastify route, 32 connections", value: `${Math.round(ceil.rps).toLocaleString("en")} req/s`, target: "reference", met: null },
      { name: "add-data, 32 connections (durable)", value: `${Math.round(add.rps).toLocaleString("en")} req/s; ratio to ceiling ${(add.rps / ceil.rps).toFixed(2)}`, target: "ratio ≥ 0.50", met: add.rps / ceil.rps >= 0.5 },
      { name: "get-data page 1, 10,000 records", value: timing(page1Small), target: "reference", met: null },
      { name: `get-data page 1, ${large} records`, value: `${timing(page1Large)}; growth p99 ${(page1Large.p99 / page1Small.p99).toFixed(2)}`, target: "growth ≤ 3", met: page1Large.p99 / page1Small.p99 <= 3 },
      { name: `get-data one-month window, ${large}`, value: `${timing(windowLarge)}; ${(windowLarge.p99 / page1Small.p99).toFixed(1)} × 10k p99`, target: "≤ 3 × 10k p99", met: windowLarge.p99 <= 3 * page1Small.p99 },
      { name: `get-data own restriction, ${large}`, value: `${timing(ownLarge)}; ${(ownLarge.p99 / page1Small.p99).toFixed(1)} × 10k p99`, target: "≤ 3 × 10k p99", met: ownLarge.p99 <= 3 * page1Small.p99 },
      { name: `get-data profile filter, ${large}`, value: `${timing(profileLarge)}; ${(profileLarge.p99 / page1Small.p99).toFixed(1)} × 10k p99`, target: "≤ 3 × 10k p99", met: profileLarge.p99 <= 3 * page1Small.p99 },
      { name: `get-data page ${DEEP_PAGE.toLocaleString("en")} of 10, ${large}`, value: `${timing(deepLarge)}; ratio to page 1 ${(deepLarge.p99 / page1Large.p99).toFixed(2)}`, target: "≤ 10", met: deepLarge.p99 / page1Large.p99 <= 10 },
      { name: "update matching 1 record, 10,000", value: timing(oneSmall), target: "reference", met: null },
      { name: `update matching 1 record, ${large}`, value: `${timing(oneLarge)}; growth p99 ${(oneLarge.p99 / oneSmall.p99).toFixed(2)}`, target: "growth ≤ 3", met: oneLarge.p99 / oneSmall.p99 <= 3 },
      { name: "update matching 1,000 records (one batch), 10,000", value: timing(thousandSmall), target: "reference", met: null },
      { name: `update matching 1,000 records, ${large}`, value: `${timing(thousandLarge)}; growth p99 ${(thousandLarge.p99 / thousandSmall.p99).toFixed(2)}`, target: "reported (no target)", met: null },
      { name: `report JSON, ${large} rows`, value: `${Math.round(json.rowsPerSecond).toLocaleString("en")} rows/s; first byte ${json.firstByte.toFixed(3)} s; peak RSS +${json.rssGrowth.toFixed(0)} MB`, target: "≥ 300,000 rows/s, first byte ≤ 1 s, RSS ≤ +150 MB", met: json.rowsPerSecond >= 300_000 && json.firstByte <= 1 && json.rssGrowth <= 150 },
      { name: `report .xlsx, ${large} rows`, value: `${Math.round(xlsx.rowsPerSecond).toLocaleString("en")} rows/s; first byte ${xlsx.firstByte.toFixed(3)} s; peak RSS +${xlsx.rssGrowth.toFixed(0)} MB`, target: "≥ 100,000 rows/s, first byte ≤ 1 s, RSS ≤ +150 MB", met: xlsx.rowsPerSecond >= 100_000 && xlsx.firstByte <= 1 && xlsx.rssGrowth <= 150 },
    ];
    // A figure measured on refused requests measures nothing: say so in the table.
    const measured: [Load, string][] = [[ceil, "ceiling"], [add, "add-data"], [page1Small, "get-data page 1, 10,000"],
      [page1Large, "get-data page 1, "], [windowLarge, "one-month window"], [ownLarge, "own restriction"],
      [profileLarge, "profile filter"], [deepLarge, "get-data page "], [oneSmall, "update matching 1 record, 10,000"],
      [oneLarge, "update matching 1 record, " + large], [thousandSmall, "update matching 1,000 records (one batch)"],
      [thousandLarge, "update matching 1,000 records, " + large]];
    for (const [result, prefix] of measured) {
      if (result.failures === 0) continue;
      const index = figures.findIndex((f) => f.name.includes(prefix));
      if (index >= 0) figures[index] = { ...figures[index]!, value: `${figures[index]!.value} (${result.failures} of ${result.requests} requests failed)`, met: false };
    }
    const sqlite = (new Database(":memory:").prepare("SELECT sqlite_version() AS v").get() as { v: string }).v;
    const raw = { ceil, add, page1Small, page1Large, windowLarge, ownLarge, profileLarge, deepLarge, oneSmall, oneLarge, thousandSmall, thousandLarge, json, xlsx, seedRate };
    const table = writeResults(path.resolve(here, "../../bench"), {
      quick, large: LARGE, seconds: SECONDS, sqlite, figures, raw, failures,
      elapsed: (performance.now() - started) / 1000,
    });
    process.stdout.write(table);
  } finally {
    await server?.stop();
    await ceiling?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();

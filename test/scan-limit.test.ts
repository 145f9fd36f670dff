import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { addMember, startServer, type TestServer } from "./support/server.js";
import { call, type Reply } from "./support/http.js";
import { startPair, type ProcessPair } from "./support/process.js";
import { insertAt, keysOf, storedRecords } from "./support/fixtures.js";

/**
 * Scan limits (issue 4, acceptance 4): a bloc takes at most `scanLimit` records per
 * period (or ever), exactly so under concurrent adds, in one process and across two;
 * get-data reports the state in `countLimitInfo`.
 */

const TIMESTAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

let server: TestServer;

before(async () => {
  server = await startServer();
});

after(async () => {
  await server.close();
});

async function limitedBloc(settings: Record<string, unknown>): Promise<string> {
  const reply = await server.call("POST", "/api/admin/blocs", { json: { name: "Limited", fields: [{ name: "Part" }], ...settings } });
  assert.equal(reply.status, 201, reply.text);
  return reply.json.id as string;
}

function add(blocId: string, part = "P", token?: string): Promise<Reply> {
  return server.call("POST", "/api/add-data", {
    json: { scanStationID: blocId, dataToAdd: JSON.stringify({ field_1: part }) }, ...(token === undefined ? {} : { token }),
  });
}

async function limitInfo(blocId: string, token?: string): Promise<Record<string, unknown>> {
  const reply = await server.call("GET", "/api/get-data", { json: { blocId }, ...(token === undefined ? {} : { token }) });
  assert.equal(reply.status, 200, reply.text);
  const info = reply.json.data.countLimitInfo as Record<string, unknown>;
  assert.deepEqual(keysOf(info), ["limit_reached", "scan_limit", "scan_limit_time_logged", "scans_counted"]);
  return info;
}

function assertLimitRefusal(reply: Reply): void {
  assert.equal(reply.status, 400, reply.text);
  assert.deepEqual(keysOf(reply.json), ["error"]);
  assert.match(String(reply.json.error), /scan limit/i);
  assert.match(String(reply.json.error), /reached/i);
}

/** `YYYY-MM-DD` in UTC, `offsetDays` from today. */
function utcDay(offsetDays = 0, from = new Date()): string {
  return new Date(from.getTime() + offsetDays * 86_400_000).toISOString().slice(0, 10);
}

/** The created_at of the limit-th record, in the order the store counts them. */
async function limitthCreatedAt(blocId: string, limit: number, since = ""): Promise<string> {
  const records = (await storedRecords(server, blocId)).filter((r) => r.createdAt >= since);
  return records[limit - 1]!.createdAt;
}

describe("scan limit: countLimitInfo", () => {
  test("a bloc without a limit: scan_limit null, limit_reached 0, scan_limit_time_logged null", async () => {
    const bloc = await limitedBloc({});
    for (let i = 0; i < 3; i += 1) assert.equal((await add(bloc)).status, 200);
    assert.deepEqual(await limitInfo(bloc), { scan_limit: null, scans_counted: 3, limit_reached: 0, scan_limit_time_logged: null });
  });

  test("before the limit: the limit, the count so far, limit_reached 0 and scan_limit_time_logged null", async () => {
    const bloc = await limitedBloc({ scanLimit: 5 });
    assert.deepEqual(await limitInfo(bloc), { scan_limit: 5, scans_counted: 0, limit_reached: 0, scan_limit_time_logged: null });
    for (let i = 0; i < 4; i += 1) assert.equal((await add(bloc)).status, 200);
    assert.deepEqual(await limitInfo(bloc), { scan_limit: 5, scans_counted: 4, limit_reached: 0, scan_limit_time_logged: null });
    assert.equal((await add(bloc)).status, 200);
    const info = await limitInfo(bloc);
    assert.deepEqual(info, {
      scan_limit: 5, scans_counted: 5, limit_reached: 1, scan_limit_time_logged: await limitthCreatedAt(bloc, 5),
    });
    assertLimitRefusal(await add(bloc));
    assert.equal(await server.ctx.store.records.countRecords({ blocId: bloc }), 5);
  });

  test("GET /api/admin/blocs/:blocId shows scanLimit and scanLimitPeriod", async () => {
    const bloc = await limitedBloc({ scanLimit: 7, scanLimitPeriod: "week" });
    const reply = await server.call("GET", `/api/admin/blocs/${bloc}`);
    assert.equal(reply.json.scanLimit, 7);
    assert.equal(reply.json.scanLimitPeriod, "week");
  });
});

describe("scan limit under concurrency (acceptance 4)", () => {
  test("a bloc with scanLimit 50 under 80 concurrent adds accepts exactly 50", async () => {
    const bloc = await limitedBloc({ scanLimit: 50 });
    const replies = await Promise.all(Array.from({ length: 80 }, (_, i) => add(bloc, `P-${i}`)));
    const accepted = replies.filter((r) => r.status === 200);
    const refused = replies.filter((r) => r.status !== 200);
    assert.equal(accepted.length, 50);
    assert.equal(refused.length, 30);
    for (const reply of refused) assertLimitRefusal(reply);
    assert.equal(await server.ctx.store.records.countRecords({ blocId: bloc }), 50);
    assert.equal(new Set(accepted.map((r) => r.json.returnedStationID)).size, 50);

    const info = await limitInfo(bloc);
    assert.equal(info.scan_limit, 50);
    assert.equal(info.scans_counted, 50);
    assert.equal(info.limit_reached, 1);
    assert.match(String(info.scan_limit_time_logged), TIMESTAMP);
    assert.equal(info.scan_limit_time_logged, await limitthCreatedAt(bloc, 50));

    const read = await server.call("GET", "/api/get-data", { json: { blocId: bloc, resultLimit: 1 } });
    assert.equal(read.json.data.count, 50);
  });

  test("raising the limit by PATCH opens the bloc again; null removes it", async () => {
    const bloc = await limitedBloc({ scanLimit: 2 });
    assert.equal((await add(bloc)).status, 200);
    assert.equal((await add(bloc)).status, 200);
    assertLimitRefusal(await add(bloc));

    let patch = await server.call("PATCH", `/api/admin/blocs/${bloc}`, { json: { scanLimit: 3 } });
    assert.equal(patch.status, 200, patch.text);
    assert.deepEqual(await limitInfo(bloc), { scan_limit: 3, scans_counted: 2, limit_reached: 0, scan_limit_time_logged: null });
    assert.equal((await add(bloc)).status, 200);
    assertLimitRefusal(await add(bloc));

    patch = await server.call("PATCH", `/api/admin/blocs/${bloc}`, { json: { scanLimit: null } });
    assert.equal(patch.status, 200, patch.text);
    assert.equal((await add(bloc)).status, 200);
    assert.deepEqual(await limitInfo(bloc), { scan_limit: null, scans_counted: 4, limit_reached: 0, scan_limit_time_logged: null });
  });

  test("a limit set by PATCH below the current count closes the bloc at once", async () => {
    const bloc = await limitedBloc({});
    for (let i = 0; i < 3; i += 1) assert.equal((await add(bloc)).status, 200);
    const patch = await server.call("PATCH", `/api/admin/blocs/${bloc}`, { json: { scanLimit: 2 } });
    assert.equal(patch.status, 200, patch.text);
    assertLimitRefusal(await add(bloc));
    const info = await limitInfo(bloc);
    assert.equal(info.limit_reached, 1);
    assert.equal(info.scans_counted, 3);
    assert.equal(info.scan_limit_time_logged, await limitthCreatedAt(bloc, 2));
  });

  const BAD: readonly [string, Record<string, unknown>][] = [
    ["scanLimit 0", { scanLimit: 0 }],
    ["a negative scanLimit", { scanLimit: -5 }],
    ["a fractional scanLimit", { scanLimit: 2.5 }],
    ["a scanLimit given as text", { scanLimit: "ten" }],
    ["an unknown period", { scanLimit: 5, scanLimitPeriod: "year" }],
  ];
  for (const [what, settings] of BAD) {
    test(`${what} is refused with 400 {error} at creation and by PATCH`, async () => {
      const created = await server.call("POST", "/api/admin/blocs", { json: { name: "Bad limit", ...settings } });
      assert.equal(created.status, 400, created.text);
      assert.deepEqual(keysOf(created.json), ["error"]);
      const bloc = await limitedBloc({});
      const patched = await server.call("PATCH", `/api/admin/blocs/${bloc}`, { json: settings });
      assert.equal(patched.status, 400, patched.text);
      assert.deepEqual(keysOf(patched.json), ["error"]);
      assert.equal((await server.call("GET", `/api/admin/blocs/${bloc}`)).json.scanLimit, null);
    });
  }
});

describe("scan limit periods", () => {
  test("without a period every record ever counts, yesterday's included", async () => {
    const bloc = await limitedBloc({ scanLimit: 2 });
    const yesterday = utcDay(-1);
    await insertAt(server, bloc, `${yesterday} 10:00:00`, { field_1: "old" });
    await insertAt(server, bloc, `${yesterday} 11:00:00`, { field_1: "old" });
    assertLimitRefusal(await add(bloc));
    assert.deepEqual(await limitInfo(bloc), {
      scan_limit: 2, scans_counted: 2, limit_reached: 1, scan_limit_time_logged: `${yesterday} 11:00:00`,
    });
  });

  test("day: records of yesterday do not count, so a bloc full yesterday opens again today", async () => {
    const bloc = await limitedBloc({ scanLimit: 2, scanLimitPeriod: "day" });
    const yesterday = utcDay(-1);
    await insertAt(server, bloc, `${yesterday} 10:00:00`, { field_1: "old" });
    await insertAt(server, bloc, `${yesterday} 23:59:59`, { field_1: "old" });
    assert.deepEqual(await limitInfo(bloc), { scan_limit: 2, scans_counted: 0, limit_reached: 0, scan_limit_time_logged: null });
    assert.equal((await add(bloc)).status, 200);
    assert.equal((await add(bloc)).status, 200);
    assertLimitRefusal(await add(bloc));
    const info = await limitInfo(bloc);
    assert.equal(info.scans_counted, 2);
    assert.equal(info.limit_reached, 1);
    assert.equal(String(info.scan_limit_time_logged).slice(0, 10), utcDay(0));
    assert.equal(info.scan_limit_time_logged, await limitthCreatedAt(bloc, 2, `${utcDay(0)} 00:00:00`));
  });

  test("day: a record at 00:00:00 today counts", async () => {
    const bloc = await limitedBloc({ scanLimit: 2, scanLimitPeriod: "day" });
    await insertAt(server, bloc, `${utcDay(0)} 00:00:00`, { field_1: "midnight" });
    assert.equal((await limitInfo(bloc)).scans_counted, 1);
    assert.equal((await add(bloc)).status, 200);
    assertLimitRefusal(await add(bloc));
  });

  test("month: last month's records do not count; this month's from the 1st at 00:00:00 do", async () => {
    const bloc = await limitedBloc({ scanLimit: 2, scanLimitPeriod: "month" });
    const firstOfMonth = `${utcDay(0).slice(0, 8)}01`;
    const lastOfPrevious = utcDay(-1, new Date(`${firstOfMonth}T12:00:00Z`));
    await insertAt(server, bloc, `${lastOfPrevious} 23:59:59`, { field_1: "last month" });
    await insertAt(server, bloc, `${lastOfPrevious} 08:00:00`, { field_1: "last month" });
    assert.deepEqual(await limitInfo(bloc), { scan_limit: 2, scans_counted: 0, limit_reached: 0, scan_limit_time_logged: null });
    await insertAt(server, bloc, `${firstOfMonth} 00:00:00`, { field_1: "this month" });
    assert.equal((await limitInfo(bloc)).scans_counted, 1);
    assert.equal((await add(bloc)).status, 200);
    assertLimitRefusal(await add(bloc));
    assert.equal((await limitInfo(bloc)).scan_limit_time_logged, await limitthCreatedAt(bloc, 2, `${firstOfMonth} 00:00:00`));
  });

  test("week: records before this Monday do not count; this Monday 00:00:00 does", async () => {
    const bloc = await limitedBloc({ scanLimit: 2, scanLimitPeriod: "week" });
    const today = new Date(`${utcDay(0)}T12:00:00Z`);
    const monday = utcDay(-((today.getUTCDay() + 6) % 7), today);
    const sunday = utcDay(-1, new Date(`${monday}T12:00:00Z`));
    assert.equal(new Date(`${monday}T00:00:00Z`).getUTCDay(), 1);
    await insertAt(server, bloc, `${sunday} 23:59:59`, { field_1: "last week" });
    await insertAt(server, bloc, `${sunday} 09:00:00`, { field_1: "last week" });
    assert.deepEqual(await limitInfo(bloc), { scan_limit: 2, scans_counted: 0, limit_reached: 0, scan_limit_time_logged: null });
    await insertAt(server, bloc, `${monday} 00:00:00`, { field_1: "this week" });
    assert.equal((await limitInfo(bloc)).scans_counted, 1);
    assert.equal((await add(bloc)).status, 200);
    assertLimitRefusal(await add(bloc));
  });
});

describe("scan limit and visibility", () => {
  test("a member who sees only their own records: scans_counted counts theirs, the bloc's full state is shared", async () => {
    const bloc = await limitedBloc({ scanLimit: 3 });
    const member = await addMember(server, { blocId: bloc, read: true, add: true });
    const restricted = await server.call("PUT", `/api/admin/blocs/${bloc}/restrictions/${member.id}`, { json: { mode: "own" } });
    assert.equal(restricted.status, 200, restricted.text);
    assert.equal((await add(bloc, "mine", member.token)).status, 200);
    assert.deepEqual(await limitInfo(bloc, member.token), { scan_limit: 3, scans_counted: 1, limit_reached: 0, scan_limit_time_logged: null });
    assert.equal((await add(bloc, "admin's")).status, 200);
    assert.equal((await add(bloc, "admin's")).status, 200);
    const info = await limitInfo(bloc, member.token);
    assert.equal(info.scans_counted, 1);
    assert.equal(info.limit_reached, 1);
    assert.match(String(info.scan_limit_time_logged), TIMESTAMP);
    assertLimitRefusal(await add(bloc, "mine again", member.token));
  });
});

describe("scan limit across two server processes on one SQLite file", () => {
  let pair: ProcessPair;
  before(async () => { pair = await startPair("limit-2p"); });
  after(async () => { await pair.stop(); });

  test("limit 20 under 40 concurrent adds split across both processes accepts exactly 20", async () => {
    const { urls, admin } = pair;
    const created = await call(urls[0], "POST", "/api/admin/blocs", {
      token: admin, json: { name: "Shared", fields: [{ name: "Part" }], scanLimit: 20 },
    });
    assert.equal(created.status, 201, created.text);
    const bloc = created.json.id as string;
    const replies = await Promise.all(Array.from({ length: 40 }, (_, i) => call(urls[i % 2]!, "POST", "/api/add-data", {
      token: admin, json: { scanStationID: bloc, dataToAdd: JSON.stringify({ field_1: `P-${i}` }) },
    })));
    assert.equal(replies.filter((r) => r.status === 200).length, 20);
    for (const reply of replies.filter((r) => r.status !== 200)) assertLimitRefusal(reply);

    for (const url of urls) {
      const read = await call(url, "GET", "/api/get-data", { token: admin, json: { blocId: bloc } });
      assert.equal(read.status, 200, read.text);
      assert.equal(read.json.data.count, 20);
      assert.equal(read.json.data.countLimitInfo.scans_counted, 20);
      assert.equal(read.json.data.countLimitInfo.limit_reached, 1);
      assert.match(String(read.json.data.countLimitInfo.scan_limit_time_logged), TIMESTAMP);
    }
  });
});

import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { buffer } from "node:stream/consumers";
// Through the package's exports map, as another package imports it.
import { BlocClient, unguardCsvCell, type DataRecord } from "bloc-data-service/client";
import { runPython } from "./support/python.js";
import { runToEnd } from "./support/process.js";
import { refusal } from "./support/refusal.js";
import { addMember, startServer, type TestServer } from "./support/server.js";

/*
 * The typed client against the real server: every method, both error shapes, paging to
 * the end of a 2,500-record bloc, an .xlsx download read by openpyxl, a file upload.
 */

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
let server: TestServer;
let admin: BlocClient;
let blocId: string;

before(async () => {
  server = await startServer();
  admin = new BlocClient({ url: server.url, token: server.adminToken });
  const bloc = await admin.admin.createBloc({
    name: "Client parts", fields: [{ name: "Part" }, { name: "Count" }, { name: "Photo", type: "file" }],
  });
  blocId = bloc.id;
});
after(async () => {
  admin.close();
  await server.close();
});

describe("client: records", () => {
  test("addData, getData (typed records and aggregates), updateRecordsByMatchingValues, record history", async () => {
    const first = await admin.addData({ scanStationID: blocId, dataToAdd: { field_1: "bolt", field_2: "5" } });
    assert.equal(typeof first.returnedStationID, "number");
    assert.deepEqual(first.autogenerateReplacements, []);
    await admin.addData({ scanStationID: Number.isNaN(Number(blocId)) ? blocId : Number(blocId), dataToAdd: { field_1: "nut, \"M4\"", field_2: "7" } });
    const page = await admin.getData<"field_1" | "field_2" | "field_3">({ blocId, resultLimit: 1, reverse: true });
    assert.equal(page.count, 2);
    assert.equal(page.records.length, 1);
    const record: DataRecord<"field_1" | "field_2" | "field_3"> = page.records[0]!;
    assert.equal(record.field_1, "bolt");
    assert.equal(record.service_entry_row_id, first.returnedStationID);
    assert.match(record.created_at, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    assert.equal(record.submitted_status, 1);
    assert.deepEqual(page.fieldNames, { field_1: "Part", field_2: "Count", field_3: "Photo" });
    assert.deepEqual(page.fieldCounts.field_1, { bolt: 1, "nut, \"M4\"": 1 });
    assert.equal(page.countLimitInfo.limit_reached, 0);
    assert.equal(page.countLimitInfo.scan_limit, null);

    const updated = await admin.updateRecordsByMatchingValues({ blocId, searchItems: { field_1: "bolt" }, fieldsToUpdate: { field_2: "6" } });
    assert.deepEqual(updated, [first.returnedStationID]);
    assert.deepEqual(await admin.updateRecordsByMatchingValues({ blocId, searchItems: { field_1: "none" }, fieldsToUpdate: { field_2: "1" } }), []);
    const history = await admin.admin.recordHistory(blocId, first.returnedStationID);
    assert.equal(history.length, 1);
    assert.deepEqual(history[0]!.changes, { field_2: { from: "5", to: "6" } });
    assert.equal(history[0]!.action, "updated");
  });

  test("deleteRecordsByMatchingValues and admin.restoreRecord (with their refusals)", async () => {
    const added = await admin.addData({ scanStationID: blocId, dataToAdd: { field_1: "temporary", field_2: "1" } });
    const id = added.returnedStationID;
    assert.deepEqual(await admin.deleteRecordsByMatchingValues({ blocId, searchItems: { service_entry_row_id: String(id) } }), [id]);
    assert.deepEqual(await admin.deleteRecordsByMatchingValues({ blocId, searchItems: { field_1: "temporary" } }), []);
    assert.deepEqual(await admin.admin.restoreRecord(blocId, id), { blocId, recordId: id });
    const notDeleted = await refusal(admin.admin.restoreRecord(blocId, id));
    assert.equal(notDeleted.status, 404);
    assert.deepEqual((await admin.admin.recordHistory(blocId, id)).map((h) => h.action), ["deleted", "restored"]);
    const stranger = new BlocClient({ url: server.url, token: (await addMember(server)).token });
    const denied = await refusal(stranger.deleteRecordsByMatchingValues({ blocId, searchItems: { field_1: "temporary" } }));
    assert.equal(denied.status, 401);
    assert.deepEqual(denied.body, { message: "You are not authorized to access this bloc" });
    stranger.close();
    assert.deepEqual(await admin.deleteRecordsByMatchingValues({ blocId, searchItems: { field_1: "temporary" } }), [id], "the stranger deleted nothing");
  });

  test("getDataReport as JSON rows (chosen fields, filter, dates), and as a CSV stream", async () => {
    const rows = await admin.getDataReport({
      stationID: blocId, fieldsToReport: ["field_1", "field_2"],
      requestedReportData: { reportFromDate: "2000-01-01 00:00:00", reportToDate: "2999-01-01 00:00:00" },
      dataFilteringData: { filterDataToQuery: { field_1: ["bolt", "nut, \"M4\""] } },
    });
    assert.deepEqual(rows, [{ field_1: "bolt", field_2: "6" }, { field_1: "nut, \"M4\"", field_2: "7" }]);
    const all = await admin.getDataReport({ stationID: blocId, fieldsToReport: "all", dataFilteringData: { reverse: true } });
    assert.equal(all[0]!.field_1, "nut, \"M4\"");
    assert.ok("date_stamp" in all[0]!);
    const csv = await admin.getDataReportStream({ stationID: blocId, fieldsToReport: { field_1: true } }, "csv");
    assert.match(csv.contentType, /^text\/csv/);
    assert.match(csv.filename, /^Client parts-\d{8}-\d{6}\.csv$/);
    const text = (await buffer(csv.stream)).toString("utf8");
    assert.equal(text, "\uFEFFPart\r\nbolt\r\n\"nut, \"\"M4\"\"\"\r\n");
  });

  test("an .xlsx report saved to a folder under the service's name, read back with openpyxl", async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "bloc-client-"));
    try {
      const saved = await admin.saveDataReport({ stationID: blocId, fieldsToReport: ["field_1", "field_2"] }, "xlsx", dir);
      assert.equal(path.dirname(saved.path), dir);
      assert.match(path.basename(saved.path), /^Client parts-\d{8}-\d{6}\.xlsx$/);
      const bytes = await fs.readFile(saved.path);
      assert.equal(bytes.length, saved.bytes);
      const script = "import openpyxl, io, json, sys\nwb = openpyxl.load_workbook(io.BytesIO(sys.stdin.buffer.read()))\n" +
        "print(json.dumps([[c if c is not None else '' for c in r] for r in wb.worksheets[0].iter_rows(values_only=True)]))";
      assert.deepEqual(JSON.parse(runPython(script, bytes)), [["Part", "Count"], ["bolt", "6"], ["nut, \"M4\"", "7"]]);
      // A file path is written as named.
      const named = path.join(dir, "mine.xlsx");
      assert.equal((await admin.saveDataReport({ stationID: blocId, fieldsToReport: "all" }, "xlsx", named)).path, named);
      assert.equal((await fs.readFile(named)).subarray(0, 2).toString(), "PK");
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  test("addData with files: multipart upload from bytes and from a path, downloadable as uploaded", async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "bloc-client-"));
    try {
      const content = Buffer.from(Array.from({ length: 300_000 }, (_, i) => (i * 7) % 256));
      const added = await admin.addData({ scanStationID: blocId, dataToAdd: { field_1: "photo" } },
        { field_3: { content, filename: "photo \"1\".png", contentType: "image/png" } });
      const file = path.join(dir, "scan.bin");
      await fs.writeFile(file, "from disk");
      const second = await admin.addData({ scanStationID: blocId, dataToAdd: { field_1: "scan" }, idempotencyKey: "client-upload-1" },
        { field_3: { content: { path: file } } });
      const rows = await admin.getDataReport({ stationID: blocId, fieldsToReport: ["field_1", "field_3"], dataFilteringData: { filterDataToQuery: { field_1: ["photo", "scan"] } } });
      assert.equal(rows.length, 2);
      for (const [row, expected, type] of [[rows[0]!, content, "image/png"], [rows[1]!, Buffer.from("from disk"), "application/octet-stream"]] as const) {
        assert.ok(row.field_3, "the file field holds a reference");
        const reply = await server.call("GET", `/api/files/${encodeURIComponent(row.field_3)}`);
        assert.equal(reply.status, 200);
        assert.equal(reply.headers["content-type"], type);
        assert.ok(reply.body.equals(expected));
      }
      assert.ok(added.returnedStationID < second.returnedStationID);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});

describe("client: refusals become one BlocApiError whichever key the body uses", () => {
  let stranger: BlocClient;
  before(async () => {
    const user = await admin.admin.createUser("stranger");
    stranger = new BlocClient({ url: server.url, token: (await admin.admin.createToken(user.id)).token });
  });
  after(() => stranger.close());

  test("`error` bodies: get-data 401, get-data-report 401, add-data 403 and 400, admin 403", async () => {
    const read = await refusal(stranger.getData({ blocId }));
    assert.deepEqual([read.status, read.endpoint, read.text], [401, "/api/get-data", "You are not authorized to access this bloc"]);
    assert.deepEqual(read.body, { error: read.text });
    const report = await refusal(stranger.getDataReport({ stationID: blocId, fieldsToReport: "all" }));
    assert.deepEqual([report.status, report.endpoint], [401, "/api/get-data-report"]);
    const xlsx = await refusal(stranger.getDataReportStream({ stationID: blocId, fieldsToReport: "all" }, "xlsx"));
    assert.equal(xlsx.status, 401);
    const add = await refusal(stranger.addData({ scanStationID: blocId, dataToAdd: { field_1: "x" } }));
    assert.deepEqual([add.status, add.endpoint], [403, "/api/add-data"]);
    assert.match(add.text, /permission to add or edit data/);
    const bad = await refusal(admin.addData({ scanStationID: blocId, dataToAdd: { field_9: "x" } }));
    assert.equal(bad.status, 400);
    assert.match(bad.text, /field_9/);
    const notAdmin = await refusal(stranger.admin.listBlocs());
    assert.deepEqual([notAdmin.status, notAdmin.endpoint], [403, "/api/admin/blocs"]);
    assert.match(notAdmin.message, /\/api\/admin\/blocs answered 403: /);
  });

  test("`message` bodies: update-records 401 and 400; a bad token", async () => {
    const update = await refusal(stranger.updateRecordsByMatchingValues({ blocId, searchItems: { field_1: "bolt" }, fieldsToUpdate: { field_2: "0" } }));
    assert.deepEqual([update.status, update.endpoint, update.text], [401, "/api/update-records-by-matching-values", "You are not authorized to access this bloc"]);
    assert.deepEqual(update.body, { message: update.text });
    const unknown = await refusal(admin.updateRecordsByMatchingValues({ blocId, searchItems: { field_99: "x" }, fieldsToUpdate: { field_2: "0" } }));
    assert.equal(unknown.status, 400);
    assert.ok(unknown.body && typeof unknown.body === "object" && "message" in unknown.body);
    const nobody = new BlocClient({ url: server.url, token: "not-a-token" });
    try {
      const denied = await refusal(nobody.getData({ blocId }));
      assert.equal(denied.status, 401);
      assert.ok(denied.text.length > 0);
    } finally {
      nobody.close();
    }
  });

  test("an unknown bloc and a missing admin object are 4xx BlocApiErrors with text", async () => {
    const missing = await refusal(admin.admin.getBloc("no-such-bloc"));
    assert.equal(missing.status, 404);
    assert.match(missing.text, /no-such-bloc/);
    const page = await refusal(admin.getData({ blocId, resultLimit: 0 }));
    assert.equal(page.status, 400);
    assert.match(page.text, /resultLimit/);
  });
});

describe("client: paging to the end of a 2,500-record bloc", () => {
  let big: string;
  const TOTAL = 2500;
  before(async () => {
    big = (await admin.admin.createBloc({ name: "Big", fields: [{ name: "N" }] })).id;
    // 25 writers at once: each record goes through add-data, as a client's would.
    await Promise.all(Array.from({ length: 25 }, async (_, w) => {
      for (let i = w; i < TOTAL; i += 25) await admin.addData({ scanStationID: big, dataToAdd: { field_1: String(i) } });
    }));
  });

  for (const readMethod of ["GET", "POST"] as const) {
    test(`records() walks every page oldest first (${readMethod} reads), each record once`, async () => {
      const client = new BlocClient({ url: server.url, token: server.adminToken, readMethod });
      try {
        const ids: number[] = [];
        const values = new Set<string>();
        for await (const record of client.records<"field_1">({ blocId: big, reverse: true }, 300)) {
          ids.push(record.service_entry_row_id);
          values.add(record.field_1);
        }
        assert.equal(ids.length, TOTAL);
        assert.equal(new Set(ids).size, TOTAL);
        assert.deepEqual(ids, [...ids].sort((a, b) => a - b));
        assert.equal(values.size, TOTAL);
        let pages = 0;
        for await (const page of client.pages({ blocId: big, resultLimit: 1000 })) {
          pages += 1;
          assert.equal(page.count, TOTAL);
        }
        assert.equal(pages, 3);
      } finally {
        client.close();
      }
    });
  }

  test("the CSV report of the whole bloc reads back whole", async () => {
    const download = await admin.getDataReportStream({ stationID: big, fieldsToReport: ["field_1"] }, "csv");
    const lines = (await buffer(download.stream)).toString("utf8").replace(/^\uFEFF/, "").split("\r\n");
    assert.equal(lines[0], "N");
    assert.equal(lines.length, TOTAL + 2);
    assert.deepEqual(new Set(lines.slice(1, -1).map(unguardCsvCell)), new Set(Array.from({ length: TOTAL }, (_, i) => String(i))));
  });
});

describe("client: the admin API", () => {
  test("users, tokens, roles, modules, blocs, fields, access and restrictions", async () => {
    const api = admin.admin;
    const user = await api.createUser("Ada", "member");
    assert.deepEqual(user, { id: user.id, name: "Ada", role: "member", profile: [], email: null, disabled: false });
    assert.deepEqual((await api.setProfile(user.id, ["North"])).profile, ["North"]);
    const role = await api.createRole("Inspectors");
    assert.ok((await api.listRoles()).some((r) => r.id === role.id && r.name === "Inspectors"));
    assert.deepEqual(await api.addRoleMember(user.id, role.id), { userId: user.id, roleId: role.id });
    assert.deepEqual((await api.getUser(user.id)).roles, [{ id: role.id, name: "Inspectors" }]);
    await api.removeRoleMember(user.id, role.id);
    assert.deepEqual((await api.getUser(user.id)).roles, []);

    const module = await api.createModule("Line 1");
    assert.ok((await api.listModules()).some((m) => m.id === module.id));
    const bloc = await api.createBloc({ name: "Admin made", fields: [{ name: "A" }], moduleId: module.id });
    assert.equal(bloc.moduleId, module.id);
    assert.ok((await api.listBlocs()).some((b) => b.id === bloc.id));
    assert.equal((await api.updateBloc(bloc.id, { acceptingData: false })).acceptingData, false);
    await api.updateBloc(bloc.id, { acceptingData: true });
    const field = await api.addField(bloc.id, { name: "B", slug: "b_code", type: "select", options: ["x", "y"] });
    assert.deepEqual([field.slug, field.type, field.options], ["b_code", "select", ["x", "y"]]);
    assert.equal((await api.updateField(bloc.id, "b_code", { name: "B code" })).name, "B code");
    assert.deepEqual((await api.getBloc(bloc.id)).fields.map((f) => f.slug), ["field_1", "b_code"]);

    const token = await api.createToken(user.id, { name: "scanner", permissions: ["read", "add"], blocs: [bloc.id] });
    const member = new BlocClient({ url: server.url, token: token.token });
    try {
      assert.equal((await refusal(member.getData({ blocId: bloc.id }))).status, 401);
      const grant = await api.setAccess(bloc.id, user.id, { read: true, add: true });
      assert.deepEqual(grant, { blocId: bloc.id, userId: user.id, read: true, add: true, update: false, delete: false, seeHidden: false });
      await member.addData({ scanStationID: bloc.id, dataToAdd: { field_1: "mine", b_code: "x" } });
      await admin.addData({ scanStationID: bloc.id, dataToAdd: { field_1: "admin's" } });
      assert.equal((await member.getData({ blocId: bloc.id })).count, 2);
      assert.deepEqual(await api.setRestriction(bloc.id, user.id, "own"), { blocId: bloc.id, userId: user.id, mode: "own" });
      assert.equal((await member.getData({ blocId: bloc.id })).count, 1);
      await api.removeRestriction(bloc.id, user.id);
      assert.equal((await member.getData({ blocId: bloc.id })).count, 2);
      await api.removeAccess(bloc.id, user.id);
      assert.equal((await refusal(member.getData({ blocId: bloc.id }))).status, 401);
      const roleGrant = await api.setRoleAccess(bloc.id, role.id, { read: true });
      assert.deepEqual(roleGrant, { blocId: bloc.id, roleId: role.id, read: true, add: false, update: false, delete: false, seeHidden: false });
      await api.addRoleMember(user.id, role.id);
      assert.equal((await member.getData({ blocId: bloc.id })).count, 2);
      await api.removeRoleAccess(bloc.id, role.id);
      assert.equal((await refusal(member.getData({ blocId: bloc.id }))).status, 401);
      await api.revokeToken(token.id);
      assert.equal((await refusal(member.getData({ blocId: bloc.id }))).status, 401);
      assert.equal((await refusal(api.revokeToken("no-such-token"))).status, 404);
    } finally {
      member.close();
    }
  });

  test("listUsers and listTokens (GET /api/admin/users, /users/:id/tokens)", async (t) => {
    // These two routes come with the admin listing; before they exist the answer is a 404 BlocApiError.
    const probe = await server.call("GET", "/api/admin/users");
    if (probe.status === 404) {
      assert.equal((await refusal(admin.admin.listUsers())).status, 404);
      t.skip("GET /api/admin/users is not in this build yet");
      return;
    }
    const user = await admin.admin.createUser("Listed");
    const issued = await admin.admin.createToken(user.id, { name: "listed token" });
    const users = await admin.admin.listUsers();
    assert.ok(users.some((u) => u.id === user.id && u.name === "Listed"));
    const tokens = await admin.admin.listTokens(user.id);
    assert.deepEqual(tokens.map((k) => [k.id, k.name]), [[issued.id, "listed token"]]);
    assert.ok(!JSON.stringify(tokens).includes(issued.token), "never the secret");
  });

  test("accounts: createUser with email and password, authenticate, changeOwnPassword, setPassword, updateUser", async () => {
    const email = `client-${Date.now()}@example.com`;
    const user = await admin.admin.createUser("Signer", "member", { email: email.toUpperCase(), password: "first-password-1" });
    assert.equal(user.email, email);
    assert.equal(user.disabled, false);
    const signedIn = await BlocClient.authenticate({ url: server.url, email, password: "first-password-1" });
    assert.deepEqual(signedIn.user, { id: user.id, name: "Signer", role: "member" });
    assert.match(signedIn.expiresAt, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    const wrong = await refusal(BlocClient.authenticate({ url: server.url, email, password: "not-the-password" }));
    assert.equal(wrong.status, 401);
    assert.equal(wrong.text, "Wrong email or password");

    const self = new BlocClient({ url: server.url, token: signedIn.token });
    try {
      assert.equal((await refusal(self.changeOwnPassword("not-the-password", "second-password-2"))).status, 400);
      await self.changeOwnPassword("first-password-1", "second-password-2");
      await BlocClient.authenticate({ url: server.url, email, password: "second-password-2" });

      await admin.admin.setPassword(user.id, "third-password-3");
      assert.equal((await refusal(admin.admin.setPassword(user.id, "short"))).status, 400);
      await BlocClient.authenticate({ url: server.url, email, password: "third-password-3" });

      const disabled = await admin.admin.updateUser(user.id, { disabled: true, name: "Signer 2" });
      assert.equal(disabled.disabled, true);
      assert.equal(disabled.name, "Signer 2");
      // Refused as unauthenticated (401), not as a wrong current password (400): the token no longer works.
      assert.equal((await refusal(self.changeOwnPassword("not-the-password", "fourth-password-4"))).status, 401);
      await admin.admin.updateUser(user.id, { disabled: false });
    } finally {
      self.close();
    }
  });
});

test("another package imports the client by name and type-checks against its declarations", async () => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "bloc-client-pkg-"));
  try {
    await fs.mkdir(path.join(dir, "node_modules"));
    await fs.symlink(root, path.join(dir, "node_modules", "bloc-data-service"), "dir");
    await fs.writeFile(path.join(dir, "package.json"), JSON.stringify({ name: "consumer", type: "module" }));
    await fs.writeFile(path.join(dir, "use.ts"), [
      'import { BlocApiError, BlocClient, type DataRecord, type GetDataResult } from "bloc-data-service/client";',
      'const client = new BlocClient({ url: process.argv[2]!, token: process.argv[3]! });',
      'const page: GetDataResult<"field_1"> = await client.getData<"field_1">({ blocId: process.argv[4]!, resultLimit: 1 });',
      'const first: DataRecord<"field_1"> | undefined = page.records[0];',
      'try { await client.getData({ blocId: "nope" }); } catch (e) { if (e instanceof BlocApiError) console.log(e.status, first?.field_1 !== undefined, page.count > 0); }',
      "client.close();",
    ].join("\n"));
    await fs.writeFile(path.join(dir, "tsconfig.json"), JSON.stringify({
      compilerOptions: { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", strict: true, types: ["node"], typeRoots: [path.join(root, "node_modules/@types")], skipLibCheck: false, noUncheckedIndexedAccess: true },
      files: ["use.ts"],
    }));
    const tsc = spawnSync(process.execPath, [path.join(root, "node_modules/typescript/bin/tsc"), "-p", dir], { encoding: "utf8" });
    assert.equal(tsc.status, 0, tsc.stdout + tsc.stderr);
    // Not spawnSync: the server answering it runs in this process.
    const run = await runToEnd(path.join(dir, "use.js"), [server.url, server.adminToken, blocId], {}, dir);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout.trim(), "404 true true");
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
});

describe("client: events", () => {
  test("webhook admin methods, and a live stream read with events(), resumed with lastEventId", async () => {
    const hook = await admin.admin.createWebhook({ url: "http://127.0.0.1:9/hook", blocs: [blocId], events: ["record.added"] });
    assert.equal(hook.url, "http://127.0.0.1:9/hook");
    assert.ok(hook.secret.length >= 40, "a generated secret, shown once");
    assert.deepEqual((await admin.admin.listWebhooks()).map((w) => w.id), [hook.id]);

    const stop = new AbortController();
    const seen: string[] = [];
    let lastId: string | undefined;
    const reading = (async () => {
      for await (const event of admin.events(blocId, { signal: stop.signal })) {
        seen.push(String(event.data.record?.field_1));
        lastId = event.id;
        if (seen.length === 2) stop.abort();
      }
    })();
    // The stream starts from now: wait until it is open before adding.
    await new Promise((resolve) => setTimeout(resolve, 300));
    await admin.addData({ scanStationID: blocId, dataToAdd: { field_1: "streamed 1" } });
    await admin.addData({ scanStationID: blocId, dataToAdd: { field_1: "streamed 2" } });
    await reading;
    assert.deepEqual(seen, ["streamed 1", "streamed 2"]);

    await admin.addData({ scanStationID: blocId, dataToAdd: { field_1: "missed" } });
    const resumed = new AbortController();
    for await (const event of admin.events(blocId, { lastEventId: lastId!, signal: resumed.signal })) {
      assert.equal(event.type, "record.added");
      assert.equal(event.data.record?.field_1, "missed");
      resumed.abort();
    }

    // The unreachable receiver has failed attempts logged by now, or soon.
    let deliveries = await admin.admin.webhookDeliveries(hook.id, { limit: 5 });
    for (let i = 0; deliveries.length === 0 && i < 100; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      deliveries = await admin.admin.webhookDeliveries(hook.id, { limit: 5 });
    }
    assert.equal(deliveries[0]!.outcome, "failed");
    assert.equal(deliveries[0]!.statusCode, null);
    const resent = await admin.admin.resendDelivery(hook.id, deliveries[0]!.id);
    assert.equal(resent.outcome, "resend-failed");
    await admin.admin.removeWebhook(hook.id);
    assert.deepEqual(await admin.admin.listWebhooks(), []);

    const stranger = new BlocClient({ url: server.url, token: "not-a-token" });
    const refused = await refusal((async () => { for await (const _ of stranger.events(blocId)) break; })());
    assert.equal(refused.status, 401);
    stranger.close();
  });
});

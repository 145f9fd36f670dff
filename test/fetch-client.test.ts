import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { unzipSync, strFromU8 } from "fflate";
// Through the package's exports map, as a browser bundle of another package would import it.
import { FetchBlocClient } from "bloc-data-service/client/fetch";
import { refusal } from "./support/refusal.js";
import { startServer, type TestServer } from "./support/server.js";

/*
 * The fetch client (the web console's) against the real server, with Node's own fetch
 * standing in for a browser's: the read endpoints sent as POST (fetch sends no GET body),
 * Blob downloads with the service's file names, a FormData upload, HEAD to tell a file
 * reference from text, the admin API over the same transport, and refusals as BlocApiError.
 */

let server: TestServer;
let admin: FetchBlocClient;
let blocId: string;
const methods: string[] = [];

before(async () => {
  server = await startServer();
  admin = new FetchBlocClient({
    url: server.url, token: server.adminToken,
    fetch: (input, init) => { methods.push(`${init.method ?? "GET"} ${input.pathname}`); return fetch(input, init); },
  });
  blocId = (await admin.admin.createBloc({ name: "Fetch parts", fields: [{ name: "Part" }, { name: "Photo", type: "file" }] })).id;
});
after(async () => {
  await server.close();
});

test("records: add (JSON and FormData with a file), get-data and report as POST, update, me", async () => {
  const first = await admin.addData({ scanStationID: blocId, dataToAdd: { field_1: "bolt" } });
  const photo = new File([new Uint8Array([0, 1, 2, 250])], "photo 1.png", { type: "image/png" });
  const second = await admin.addData({ scanStationID: blocId, dataToAdd: { field_1: "nut" } }, { field_2: photo });
  assert.ok(second.returnedStationID > first.returnedStationID);

  const page = await admin.getData<"field_1" | "field_2">({ blocId, resultLimit: 1 });
  assert.equal(page.count, 2);
  assert.equal(page.records[0]!.field_1, "nut");
  assert.deepEqual(page.fieldCounts.field_1, { bolt: 1, nut: 1 });
  assert.deepEqual(page.fieldNames, { field_1: "Part", field_2: "Photo" });
  assert.equal(page.fieldCountsPartial, undefined);

  const rows = await admin.getDataReport({ stationID: blocId, fieldsToReport: ["field_1"], dataFilteringData: { filterDataToQuery: { field_1: ["bolt"] } } });
  assert.deepEqual(rows, [{ field_1: "bolt" }]);
  assert.ok(methods.includes(`POST /api/get-data`) && methods.includes(`POST /api/get-data-report`), methods.join(", "));

  const ref = page.records[0]!.field_2;
  assert.equal(await admin.isFile(ref), true);
  assert.equal(await admin.isFile("00000000-0000-4000-8000-000000000000"), false);
  const file = await admin.downloadFile(ref);
  assert.equal(file.filename, "photo 1.png");
  assert.equal(file.contentType, "image/png");
  assert.deepEqual([...new Uint8Array(await file.blob.arrayBuffer())], [0, 1, 2, 250]);

  assert.deepEqual(await admin.updateRecordsByMatchingValues({ blocId, searchItems: { field_1: "bolt" }, fieldsToUpdate: { field_1: "screw" } }), [first.returnedStationID]);
  const me = await admin.me();
  assert.equal(me.user.role, "admin");
  assert.deepEqual(me.token, { permissions: null, blocs: null });
  assert.ok(me.blocs.some((b) => b.id === blocId && b.permissions.includes("update")));
});

test("downloads: .xlsx and CSV reports as Blobs named by the service", async () => {
  const xlsx = await admin.downloadDataReport({ stationID: blocId, fieldsToReport: ["field_1"], dataFilteringData: { reverse: true } }, "xlsx");
  assert.match(xlsx.filename, /^Fetch parts-\d{8}-\d{6}\.xlsx$/);
  assert.equal(xlsx.contentType, "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet");
  const files = unzipSync(new Uint8Array(await xlsx.blob.arrayBuffer()));
  const sheet = strFromU8(files["xl/worksheets/sheet1.xml"]!);
  assert.ok(sheet.indexOf(">nut<") < sheet.indexOf(">screw<"), "newest first, as asked");
  const csv = await admin.downloadDataReport({ stationID: blocId, fieldsToReport: { field_1: true } }, "csv");
  assert.match(csv.filename, /\.csv$/);
  // Blob.text() would drop the byte order mark the service writes; the bytes keep it.
  assert.equal(new TextDecoder("utf-8", { ignoreBOM: true }).decode(await csv.blob.arrayBuffer()), "\uFEFFPart\r\nscrew\r\nnut\r\n");
});

test("the admin API over fetch, and refusals in both keys as BlocApiError", async () => {
  const user = await admin.admin.createUser("fetch member");
  assert.ok((await admin.admin.listUsers()).some((u) => u.id === user.id));
  const issued = await admin.admin.createToken(user.id, { name: "browser" });
  const member = new FetchBlocClient({ url: server.url, token: issued.token });
  assert.deepEqual((await member.me()).blocs, []);

  const read = await refusal(member.getData({ blocId }));
  assert.deepEqual([read.status, read.endpoint, read.text], [401, "/api/get-data", "You are not authorized to access this bloc"]);
  const update = await refusal(member.updateRecordsByMatchingValues({ blocId, searchItems: { field_1: "nut" }, fieldsToUpdate: { field_1: "x" } }));
  assert.deepEqual(update.body, { message: update.text });
  const download = await refusal(member.downloadDataReport({ stationID: blocId, fieldsToReport: "all" }, "xlsx"));
  assert.equal(download.status, 401);
  const notAdmin = await refusal(member.admin.listBlocs());
  assert.deepEqual([notAdmin.status, notAdmin.endpoint], [403, "/api/admin/blocs"]);

  await admin.admin.revokeToken(issued.id);
  assert.equal((await refusal(member.me())).status, 401);
});

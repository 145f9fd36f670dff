import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import ExcelJS from "exceljs";
import { addBloc, startServer, type TestServer } from "./support/server.js";
import { expiredTokenThroughApi } from "./support/expired-token.js";
import { importRecords } from "../src/domain/record-writes.js";
import type { JsonBody } from "./support/json.js";

/**
 * Every identity the access rules know, against every endpoint, on blocs of over a
 * thousand records with mixed owners and profile values. Each answer must hold exactly
 * the records the identity may see: IDs, count, every fieldCounts entry, report rows
 * (JSON and .xlsx), updated IDs; and refusals must have the endpoint's status and key.
 */

const NOT_AUTHORISED = "You are not authorized to access this bloc";
const NO_PERMISSION = "You do not have permission to add or edit data on this form.";
const SITES = ["Dublin", "Cork", "Galway", ""];
const SHIFTS = ["day", "night"];

interface Seeded {
  readonly id: number;
  readonly blocId: string;
  readonly owner: string;
  readonly tag: string;
  readonly site: string;
  readonly shift: string;
}

interface Identity {
  readonly name: string;
  readonly token: string | undefined;
  readonly bloc: string;
  readonly read: boolean;
  readonly add: boolean;
  readonly update: boolean;
  /** Refused at authentication: 401 everywhere. */
  readonly unauthenticated?: boolean;
  /** Has add permission, but the values it sends fall outside its profile filter. */
  readonly addRefused?: boolean;
  readonly site?: string;
  readonly visible: (record: Seeded) => boolean;
}

let server: TestServer;
const records: Seeded[] = [];
const identities: Identity[] = [];
const blocs: Record<"main" | "profile" | "open" | "hidden", string> = { main: "", profile: "", open: "", hidden: "" };
let cells = 0;

async function admin(method: string, path: string, json?: unknown): Promise<JsonBody> {
  const reply = await server.call(method, path, json === undefined ? {} : { json });
  assert.ok(reply.status < 300, `${method} ${path} answered ${reply.status} ${reply.text}`);
  return reply.json;
}

async function user(name: string, options: { profile?: string[]; token?: Record<string, unknown> } = {}): Promise<{ id: string; token: string; tokenId: string }> {
  const created = await admin("POST", "/api/admin/users", { name });
  if (options.profile) await admin("PUT", `/api/admin/users/${created.id}`, { profile: options.profile });
  const issued = await admin("POST", `/api/admin/users/${created.id}/tokens`, options.token ?? {});
  return { id: created.id, token: issued.token, tokenId: issued.id };
}

async function seed(blocId: string, owners: readonly string[], count: number): Promise<void> {
  const made = Array.from({ length: count }, (_, i) => ({
    blocId, owner: owners[i % owners.length]!, tag: `${blocId}-r${i}`,
    site: SITES[(i * 7) % SITES.length]!, shift: SHIFTS[i % 3 === 0 ? 1 : 0]!,
  }));
  // One transaction for the bloc: its counters settle once, as a group commit's would.
  const ids = await server.ctx.store.transaction((tx) => importRecords(tx, made.map((record, i) => {
    const values: Record<string, string> = { field_1: record.tag, field_3: record.shift };
    if (record.site !== "") values.field_2 = record.site;
    return {
      blocId, createdAt: `2026-0${1 + (i % 9)}-1${i % 10} 0${i % 10}:00:${String(i % 60).padStart(2, "0")}`,
      userId: record.owner, submittedStatus: 1, jobId: null, values,
    };
  })));
  made.forEach((record, i) => records.push({ ...record, id: ids[i]! }));
}

function expectedCounts(visible: readonly Seeded[]): Record<string, Record<string, number>> {
  const counts: Record<string, Record<string, number>> = { field_1: {}, field_2: {}, field_3: {}, field_4: {} };
  const bump = (slug: string, value: string): void => {
    if (value !== "") counts[slug]![value] = (counts[slug]![value] ?? 0) + 1;
  };
  for (const r of visible) { bump("field_1", r.tag); bump("field_2", r.site); bump("field_3", r.shift); }
  return counts;
}

function assertRefusal(reply: { status: number; json: JsonBody }, status: number, key: string, text: string | undefined, what: string): void {
  assert.equal(reply.status, status, `${what}: status`);
  assert.deepEqual(Object.keys(reply.json ?? {}), [key], `${what}: body key`);
  if (text !== undefined) assert.equal(reply.json[key], text, `${what}: text`);
}

before(async () => {
  // Every value listed, so that fieldCounts can be compared whole (the bloc holds 1,200 distinct tags).
  server = await startServer({ BLOC_FIELD_COUNTS_LIMIT: "0" });
  const fields = [{ name: "Tag" }, { name: "Site" }, { name: "Shift" }, { name: "Note" }];
  blocs.main = await addBloc(server, "Main", fields.map((f) => f.name));
  blocs.open = await addBloc(server, "Open", fields.map((f) => f.name));
  blocs.hidden = await addBloc(server, "Hidden", fields.map((f) => f.name));
  blocs.profile = await addBloc(server, "Profile", fields.map((f) => f.name));
  await admin("PATCH", `/api/admin/blocs/${blocs.open}`, { openToAllUsers: true });
  await admin("PATCH", `/api/admin/blocs/${blocs.hidden}`, { restriction: "hidden" });
  await admin("PATCH", `/api/admin/blocs/${blocs.profile}/fields/field_2`, { applyProfileFilter: true });

  const all = { read: true, add: true, update: true };
  const stranger = await user("stranger");
  const reader = await user("reader");
  await admin("PUT", `/api/admin/blocs/${blocs.main}/access/${reader.id}`, { read: true });
  const adder = await user("adder");
  await admin("PUT", `/api/admin/blocs/${blocs.main}/access/${adder.id}`, { add: true });
  const roleMember = await user("role member");
  const role = await admin("POST", "/api/admin/roles", { name: "line leads" });
  await admin("PUT", `/api/admin/users/${roleMember.id}/roles/${role.id}`);
  await admin("PUT", `/api/admin/blocs/${blocs.main}/access/roles/${role.id}`, all);
  const anyone = await user("anyone");
  const owner = await user("owner");
  await admin("PUT", `/api/admin/blocs/${blocs.main}/access/${owner.id}`, all);
  await admin("PUT", `/api/admin/blocs/${blocs.main}/restrictions/${owner.id}`, { mode: "own" });
  const hidden = await user("hidden");
  await admin("PUT", `/api/admin/blocs/${blocs.hidden}/access/${hidden.id}`, all);
  const seer = await user("seer");
  // seeHidden through a role, the permissions through the user's own grant: the union counts.
  const seers = await admin("POST", "/api/admin/roles", { name: "auditors" });
  await admin("PUT", `/api/admin/users/${seer.id}/roles/${seers.id}`);
  await admin("PUT", `/api/admin/blocs/${blocs.hidden}/access/roles/${seers.id}`, { seeHidden: true });
  await admin("PUT", `/api/admin/blocs/${blocs.hidden}/access/${seer.id}`, all);
  const dubliner = await user("dubliner", { profile: ["Dublin", "Galway"] });
  await admin("PUT", `/api/admin/blocs/${blocs.profile}/access/${dubliner.id}`, all);
  const profileless = await user("profileless");
  await admin("PUT", `/api/admin/blocs/${blocs.profile}/access/${profileless.id}`, all);
  const scopedUser = await user("scoped", { token: { permissions: ["read"], blocs: [blocs.main] } });
  await admin("PUT", `/api/admin/blocs/${blocs.main}/access/${scopedUser.id}`, all);
  const elsewhere = await admin("POST", `/api/admin/users/${scopedUser.id}/tokens`, { blocs: [blocs.open] });
  const expiredUser = await user("expired");
  const expiredToken = (await expiredTokenThroughApi(server.url, server.adminToken, expiredUser.id)).token;
  await admin("PUT", `/api/admin/blocs/${blocs.main}/access/${expiredUser.id}`, all);
  const revokedUser = await user("revoked");
  await admin("PUT", `/api/admin/blocs/${blocs.main}/access/${revokedUser.id}`, all);
  await admin("DELETE", `/api/admin/tokens/${revokedUser.tokenId}`);

  const owners = ["1", owner.id, reader.id, hidden.id, dubliner.id, seer.id];
  await seed(blocs.main, owners, 1200);
  await seed(blocs.profile, owners, 1100);
  await seed(blocs.hidden, owners, 300);
  await seed(blocs.open, owners, 200);

  const everything = (): boolean => true;
  const nothing = (): boolean => false;
  const denied = { read: false, add: false, update: false, visible: nothing };
  const unauthenticated = { ...denied, bloc: blocs.main, unauthenticated: true };
  identities.push(
    { name: "no token", token: undefined, ...unauthenticated },
    { name: "unknown token", token: "bds_not-a-token-anyone-issued-000000000000000", ...unauthenticated },
    { name: "expired token", token: expiredToken, ...unauthenticated },
    { name: "revoked token", token: revokedUser.token, ...unauthenticated },
    { name: "member without access", token: stranger.token, bloc: blocs.main, ...denied },
    { name: "read-only", token: reader.token, bloc: blocs.main, ...denied, read: true, visible: everything },
    { name: "add-only", token: adder.token, bloc: blocs.main, ...denied, add: true },
    { name: "role-granted", token: roleMember.token, bloc: blocs.main, ...all, visible: everything },
    { name: "openToAllUsers", token: anyone.token, bloc: blocs.open, ...denied, read: true, add: true, visible: everything },
    { name: "own", token: owner.token, bloc: blocs.main, ...all, visible: (r) => r.owner === owner.id },
    { name: "hidden", token: hidden.token, bloc: blocs.hidden, ...all, visible: nothing },
    { name: "seeHidden", token: seer.token, bloc: blocs.hidden, ...all, visible: everything },
    { name: "profile-filtered", token: dubliner.token, bloc: blocs.profile, ...all, site: "Galway",
      visible: (r) => r.site === "Dublin" || r.site === "Galway" },
    { name: "profile-less", token: profileless.token, bloc: blocs.profile, ...all, addRefused: true, visible: nothing },
    { name: "scoped token (read, one bloc)", token: scopedUser.token, bloc: blocs.main, ...denied, read: true, visible: everything },
    { name: "scoped token (other bloc)", token: elsewhere.token, bloc: blocs.main, ...denied },
    { name: "admin", token: server.adminToken, bloc: blocs.main, ...all, visible: everything },
  );
});

after(async () => {
  console.log(`access matrix: ${identities.length} identities x 5 endpoint calls, ${cells} assertions of status, key and records`);
  await server.close();
});

function seen(identity: Identity): Seeded[] {
  return records.filter((r) => r.blocId === identity.bloc && identity.visible(r));
}

test("get-data shows each identity exactly its records, count and fieldCounts", async () => {
  for (const who of identities) {
    const what = `get-data as ${who.name}`;
    const first = await server.call("GET", "/api/get-data", { token: who.token, json: { blocId: who.bloc, resultLimit: 1000 } });
    cells += 1;
    if (who.unauthenticated) { assertRefusal(first, 401, "error", undefined, what); continue; }
    if (!who.read) { assertRefusal(first, 401, "error", NOT_AUTHORISED, what); continue; }
    assert.equal(first.status, 200, what);
    const expected = seen(who);
    const ids: number[] = [];
    for (let page = 1; ; page += 1) {
      const reply = page === 1 ? first
        : await server.call("GET", "/api/get-data", { token: who.token, json: { blocId: who.bloc, resultLimit: 1000, currentPage: page } });
      const data = reply.json.data;
      assert.equal(data.count, expected.length, `${what}: count`);
      assert.deepEqual(data.fieldCounts, expectedCounts(expected), `${what}: fieldCounts`);
      assert.equal(data.countLimitInfo.scans_counted, expected.length, `${what}: scans_counted`);
      const onPage = Object.keys(data).filter((k) => /^\d+$/.test(k)).map((k) => data[k].service_entry_row_id as number);
      ids.push(...onPage);
      if (onPage.length < 1000) break;
    }
    assert.deepEqual(ids.sort((a, b) => a - b), expected.map((r) => r.id).sort((a, b) => a - b), `${what}: IDs`);
  }
});

test("reports (JSON and .xlsx) hold each identity exactly its rows", async () => {
  for (const who of identities) {
    for (const responseType of ["json", "blob"]) {
      const what = `report (${responseType}) as ${who.name}`;
      const reply = await server.call("GET", "/api/get-data-report", {
        token: who.token, json: { stationID: who.bloc, fieldsToReport: "all", responseType },
      });
      cells += 1;
      if (who.unauthenticated) { assertRefusal(reply, 401, "error", undefined, what); continue; }
      if (!who.read) { assertRefusal(reply, 401, "error", NOT_AUTHORISED, what); continue; }
      assert.equal(reply.status, 200, what);
      let tags: string[];
      if (responseType === "json") {
        tags = reply.json.data.map((row: { field_1: string }) => row.field_1);
      } else {
        const workbook = new ExcelJS.Workbook();
        await workbook.xlsx.load(reply.body.buffer.slice(reply.body.byteOffset, reply.body.byteOffset + reply.body.byteLength) as ArrayBuffer);
        const sheet = workbook.worksheets[0]!;
        tags = [];
        sheet.eachRow((row, n) => { if (n > 1) tags.push(row.getCell(3).text); });
      }
      assert.deepEqual(tags.sort(), seen(who).map((r) => r.tag).sort(), `${what}: rows`);
    }
  }
});

test("update-records touches exactly the visible matching records, and nothing else", async () => {
  for (const who of identities) {
    const what = `update as ${who.name}`;
    const note = `note by ${who.name}`;
    const fieldsToUpdate = who.site ? { field_4: note, field_2: who.site } : { field_4: note };
    const reply = await server.call("POST", "/api/update-records-by-matching-values", {
      token: who.token, json: { blocId: who.bloc, fieldsToUpdate, searchItems: { field_3: "night" } },
    });
    cells += 1;
    const stored = await server.ctx.store.records.listRecords(
      { blocId: who.bloc, match: [{ key: "field_4", values: [note] }] }, { order: "oldest", limit: 5000, offset: 0 },
    );
    if (who.unauthenticated) { assertRefusal(reply, 401, "message", undefined, what); assert.equal(stored.length, 0); continue; }
    if (!who.update) { assertRefusal(reply, 401, "message", NOT_AUTHORISED, what); assert.equal(stored.length, 0); continue; }
    assert.equal(reply.status, 200, `${what}: ${reply.text}`);
    const expected = seen(who).filter((r) => r.shift === "night").map((r) => r.id).sort((a, b) => a - b);
    assert.deepEqual(reply.json.updated_record_ids, expected, `${what}: updated IDs`);
    assert.deepEqual(stored.map((r) => r.id).sort((a, b) => a - b), expected, `${what}: records holding the note`);
  }
});

test("add-data is allowed exactly where the identity may add, and writes nothing when refused", async () => {
  for (const who of identities) {
    const what = `add as ${who.name}`;
    const tag = `added by ${who.name}`;
    const reply = await server.call("POST", "/api/add-data", {
      token: who.token,
      json: { scanStationID: who.bloc, dataToAdd: JSON.stringify({ field_1: tag, field_2: who.site ?? "Cork" }) },
    });
    cells += 1;
    const stored = await server.ctx.store.records.listRecords(
      { blocId: who.bloc, match: [{ key: "field_1", values: [tag] }] }, { order: "oldest", limit: 10, offset: 0 },
    );
    if (who.unauthenticated) { assertRefusal(reply, 401, "error", undefined, what); assert.equal(stored.length, 0); continue; }
    if (!who.add) { assertRefusal(reply, 403, "error", NO_PERMISSION, what); assert.equal(stored.length, 0); continue; }
    if (who.addRefused) {
      assertRefusal(reply, 403, "error", undefined, what);
      assert.match(reply.json.error, /field_2/);
      assert.equal(stored.length, 0, `${what}: nothing written`);
      continue;
    }
    assert.equal(reply.status, 200, `${what}: ${reply.text}`);
    assert.equal(stored.length, 1, `${what}: written once`);
    assert.equal(stored[0]!.id, reply.json.returnedStationID);
  }
});

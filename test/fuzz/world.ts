import { call, type Reply } from "../support/http.js";
import { expiredTokenThroughApi } from "../support/expired-token.js";
import type { JsonBody } from "../support/json.js";

/**
 * What the fuzz runs against: a realistic instance made through the admin API and
 * add-data before the first malformed request, so that malformed requests reach the
 * deep code (rules of every field type, unique values, autogenerate counters, files,
 * restrictions, profile filters, scan limits, modules) and not only the parsers.
 */
export interface World {
  readonly url: string;
  /** Tokens, by who holds them. */
  readonly tokens: {
    readonly admin: string;
    /** The admin user's token narrowed to read: refused by the admin API. */
    readonly adminScoped: string;
    /** read, add and update on the main bloc; restriction "own"; profile Dublin. */
    readonly writer: string;
    /** The writer's token narrowed to read. */
    readonly writerReadOnly: string;
    /** read only on the main bloc (through a role). */
    readonly reader: string;
    /** No grant anywhere. */
    readonly outsider: string;
    readonly revoked: string;
    readonly expired: string;
  };
  readonly main: MainBloc;
  /** acceptingData false; the writer holds add on it. */
  readonly closedBlocId: string;
  /** A scan limit of 1, ever, already reached; the writer holds add on it. */
  readonly limitedBlocId: string;
  readonly moduleId: string;
  readonly roleId: string;
  readonly roleName: string;
  /** Every ID that exists, per kind: generated "unknown" IDs are checked against these. */
  readonly existing: {
    readonly blocs: ReadonlySet<string>;
    readonly users: ReadonlySet<string>;
    readonly roles: ReadonlySet<string>;
    readonly tokens: ReadonlySet<string>;
    readonly modules: ReadonlySet<string>;
    readonly fileRefs: ReadonlySet<string>;
  };
}

export interface MainBloc {
  readonly id: string;
  /** Slugs by role in the bloc. */
  readonly slugs: {
    readonly requiredText: string; readonly number: string; readonly date: string; readonly datetime: string;
    readonly autogenerate: string; readonly file: string; readonly unique: string; readonly select: string;
    readonly profile: string;
  };
  readonly allSlugs: readonly string[];
  readonly selectOptions: readonly string[];
  /** Values of the unique field that records already hold. */
  readonly takenSerials: readonly string[];
  /** A select value at least two records hold (an update setting one unique value on all of them must fail). */
  readonly sharedGrade: string;
  /** A reference of a file uploaded with a record. */
  readonly fileRef: string;
}

const MAIN = "fuzz_main";
const CLOSED = "fuzz_closed";
const LIMITED = "fuzz_limited";

async function expect(reply: Promise<Reply>, status: number, what: string): Promise<JsonBody> {
  const answer = await reply;
  if (answer.status !== status) throw new Error(`seeding: ${what} answered ${answer.status} ${answer.text.slice(0, 300)}`);
  return answer.json;
}

/** Builds the world on a running server, as its admin. */
export async function seedWorld(url: string, admin: string): Promise<World> {
  const as = (token: string) => (method: string, path: string, json?: unknown) =>
    call(url, method, path, { token, ...(json === undefined ? {} : { json }) });
  const adm = as(admin);

  const me = await expect(adm("GET", "/api/me"), 200, "GET /api/me");
  const adminId = String(me.user.id);
  const module = await expect(adm("POST", "/api/admin/modules", { name: "Goods in" }), 201, "module");
  const moduleId = String(module.id);
  const role = await expect(adm("POST", "/api/admin/roles", { name: "fuzz readers" }), 201, "role");
  const roleId = String(role.id);

  await expect(adm("POST", "/api/admin/blocs", {
    name: "Fuzz deliveries", id: MAIN, moduleId, restriction: "none",
    fields: [
      { name: "Part", required: true },
      { name: "Quantity", type: "number" },
      { name: "Delivered", type: "date" },
      { name: "Checked at", type: "datetime" },
      { name: "Docket", type: "autogenerate", format: "DKT-{seq:4}" },
      { name: "Photo", type: "file" },
      { name: "Serial", unique: true, maxLength: 20, pattern: "[A-Z0-9-]+" },
      { name: "Grade", type: "select", options: ["A", "B", "C"], indexed: true },
      { name: "Site", slug: "site", applyProfileFilter: true },
    ],
  }), 201, "main bloc");
  const slugs = {
    requiredText: "field_1", number: "field_2", date: "field_3", datetime: "field_4", autogenerate: "field_5",
    file: "field_6", unique: "field_7", select: "field_8", profile: "site",
  };
  await expect(adm("POST", "/api/admin/blocs", { name: "Fuzz closed", id: CLOSED, fields: [{ name: "Note" }] }), 201, "closed bloc");
  await expect(adm("POST", "/api/admin/blocs", {
    name: "Fuzz limited", id: LIMITED, fields: [{ name: "Note" }], scanLimit: 1, scanLimitPeriod: null,
  }), 201, "limited bloc");

  const user = async (name: string): Promise<string> =>
    String((await expect(adm("POST", "/api/admin/users", { name, role: "member" }), 201, `user ${name}`)).id);
  const token = async (userId: string, body: object = {}): Promise<{ id: string; token: string }> =>
    expect(adm("POST", `/api/admin/users/${userId}/tokens`, body), 201, `token for ${userId}`);
  const writerId = await user("fuzz writer");
  const readerId = await user("fuzz reader");
  const outsiderId = await user("fuzz outsider");

  await expect(adm("PUT", `/api/admin/users/${writerId}`, { profile: ["Dublin"] }), 200, "writer profile");
  await expect(adm("PUT", `/api/admin/users/${readerId}`, { profile: ["Dublin", "Cork"] }), 200, "reader profile");
  await expect(adm("PUT", `/api/admin/blocs/${MAIN}/access/${writerId}`, { read: true, add: true, update: true }), 200, "writer grant");
  await expect(adm("PUT", `/api/admin/blocs/${MAIN}/restrictions/${writerId}`, { mode: "own" }), 200, "writer restriction");
  await expect(adm("PUT", `/api/admin/blocs/${CLOSED}/access/${writerId}`, { read: true, add: true }), 200, "closed grant");
  await expect(adm("PUT", `/api/admin/blocs/${LIMITED}/access/${writerId}`, { read: true, add: true }), 200, "limited grant");
  await expect(adm("PUT", `/api/admin/users/${readerId}/roles/${roleId}`), 200, "role member");
  await expect(adm("PUT", `/api/admin/blocs/${MAIN}/access/roles/${roleId}`, { read: true }), 200, "role grant");

  const writer = await token(writerId);
  const writerReadOnly = await token(writerId, { permissions: ["read"], blocs: [MAIN] });
  const reader = await token(readerId);
  const outsider = await token(outsiderId);
  const adminScoped = await token(adminId, { permissions: ["read"] });
  const revoked = await token(readerId, { name: "to revoke" });
  await expect(adm("DELETE", `/api/admin/tokens/${revoked.id}`), 204, "revoke");
  const expired = await expiredTokenThroughApi(url, admin, readerId);

  // Records: the admin's across both sites, the writer's in Dublin; grade A held by several.
  const takenSerials: string[] = [];
  const grades = ["A", "B", "A", "C"];
  for (let i = 1; i <= 12; i += 1) {
    const serial = `SER-${i}`;
    takenSerials.push(serial);
    await expect(adm("POST", "/api/add-data", {
      scanStationID: MAIN, jobID: moduleId,
      dataToAdd: JSON.stringify({
        field_1: `P-${i}`, field_2: String(i * 3), field_3: `2026-01-${String(i).padStart(2, "0")}`,
        field_4: `2026-01-${String(i).padStart(2, "0")} 10:00:00`, field_7: serial, field_8: grades[i % 4],
        site: i % 2 === 0 ? "Dublin" : "Cork",
      }),
    }), 200, `record ${i}`);
  }
  const asWriter = as(writer.token);
  for (let i = 1; i <= 4; i += 1) {
    const serial = `W-${i}`;
    takenSerials.push(serial);
    await expect(asWriter("POST", "/api/add-data", {
      scanStationID: MAIN, dataToAdd: { field_1: `WP-${i}`, field_2: "1.5", field_7: serial, field_8: "A", site: "Dublin" },
    }), 200, `writer record ${i}`);
  }
  const fileRef = await uploadRecordWithFile(url, admin, moduleId);
  takenSerials.push("SER-PHOTO");
  await expect(adm("POST", "/api/add-data", { scanStationID: CLOSED, dataToAdd: { field_1: "before closing" } }), 200, "closed record");
  await expect(adm("PATCH", `/api/admin/blocs/${CLOSED}`, { acceptingData: false }), 200, "closing");
  await expect(adm("POST", "/api/add-data", { scanStationID: LIMITED, dataToAdd: { field_1: "the only one" } }), 200, "limited record");

  return {
    url,
    tokens: {
      admin, adminScoped: adminScoped.token, writer: writer.token, writerReadOnly: writerReadOnly.token,
      reader: reader.token, outsider: outsider.token, revoked: revoked.token, expired: expired.token,
    },
    main: {
      id: MAIN, slugs, allSlugs: Object.values(slugs), selectOptions: ["A", "B", "C"], takenSerials, sharedGrade: "A", fileRef,
    },
    closedBlocId: CLOSED,
    limitedBlocId: LIMITED,
    moduleId,
    roleId,
    roleName: "fuzz readers",
    existing: {
      blocs: new Set([MAIN, CLOSED, LIMITED]),
      users: new Set([adminId, writerId, readerId, outsiderId]),
      roles: new Set([roleId]),
      tokens: new Set([writer.id, writerReadOnly.id, reader.id, outsider.id, adminScoped.id, revoked.id, expired.id]),
      modules: new Set([moduleId]),
      fileRefs: new Set([fileRef]),
    },
  };
}

/** A record with a photo, through multipart; returns the file's reference. */
async function uploadRecordWithFile(url: string, admin: string, moduleId: string): Promise<string> {
  const form = new FormData();
  form.append("scanStationID", MAIN);
  form.append("jobID", moduleId);
  form.append("dataToAdd", JSON.stringify({ field_1: "P-photo", field_7: "SER-PHOTO", field_8: "B", site: "Dublin" }));
  form.append("field_6", new Blob([Buffer.from("fuzz photo bytes\n".repeat(64))], { type: "image/jpeg" }), "photo.jpg");
  const response = await fetch(new URL("/api/add-data", url), { method: "POST", body: form, headers: { authorization: `Bearer ${admin}` } });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`seeding: upload answered ${response.status} ${text}`);
  const id = (JSON.parse(text) as { returnedStationID: number }).returnedStationID;
  const page = await expect(call(url, "GET", "/api/get-data", { token: admin, json: { blocId: MAIN, resultLimit: 1000 } }), 200, "reading back");
  const record = Object.values(page.data as Record<string, JsonBody>).find((r) => r?.service_entry_row_id === id);
  const ref = record?.field_6;
  if (typeof ref !== "string" || ref === "") throw new Error(`seeding: no file reference on record ${id}`);
  return ref;
}

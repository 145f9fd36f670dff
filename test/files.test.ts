import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import crypto from "node:crypto";
import fs from "node:fs/promises";
import { createWriteStream } from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import ExcelJS from "exceljs";
import { addMember, startServer, type Member, type TestServer } from "./support/server.js";
import { call } from "./support/http.js";
import { freshWorkspace, startProcess, type Running, type Workspace } from "./support/process.js";
import { keysOf, storedRecords } from "./support/fixtures.js";
import { curlUpload, postMultipart, type FilePart } from "./support/upload.js";
import { dispositionName, safeName } from "../src/client/requests.js";
import type { JsonBody } from "./support/json.js";

/**
 * File uploads (issue 4, acceptance 2): multipart add-data, content-addressed storage,
 * download to readers of the record only, the size limit, nothing left behind by a
 * failed upload, and flat server memory for a 100 MB upload.
 */

const MiB = 1024 * 1024;

let server: TestServer;
let blocId: string;
let filesDir: string;
let uploader: Member;
let ownReader: Member;
let adderOnly: Member;
let stranger: Member;

function sha256(content: Buffer): string {
  return crypto.createHash("sha256").update(content).digest("hex");
}

/** Every stored blob, as `<2 hex>/<sha256>` paths, the tmp folder left out. */
async function blobs(dir = filesDir): Promise<string[]> {
  const entries = await fs.readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath ?? e.path, e.name)))
    .filter((p) => !p.startsWith(`tmp${path.sep}`))
    .sort();
}

async function tmpEntries(dir = filesDir): Promise<string[]> {
  return fs.readdir(path.join(dir, "tmp"));
}

function blobPath(hash: string): string {
  return `${hash.slice(0, 2)}${path.sep}${hash}`;
}

function upload(
  values: Record<string, unknown>, files: readonly FilePart[], options: { token?: string; bloc?: string; filesFirst?: boolean; jobID?: string } = {},
) {
  const text: Record<string, string> = { scanStationID: options.bloc ?? blocId, dataToAdd: JSON.stringify(values) };
  if (options.jobID !== undefined) text.jobID = options.jobID;
  return postMultipart(server.url, options.token ?? server.adminToken, text, files, { filesFirst: options.filesFirst ?? false });
}

function photo(content: Buffer, filename = "photo 1.png", type = "image/png"): FilePart {
  return { slug: "field_2", content, filename, type };
}

function download(ref: string, token?: string) {
  return server.call("GET", `/api/files/${encodeURIComponent(ref)}`, token === undefined ? {} : { token });
}

function count(): Promise<number> {
  return server.ctx.store.records.countRecords({ blocId });
}

async function recordValues(id: number): Promise<Readonly<Record<string, string>>> {
  const record = (await storedRecords(server, blocId)).find((r) => r.id === id);
  assert.ok(record, `record ${id} is stored`);
  return record.values;
}

/** Uploads one photo as `token`, which must be accepted; returns the record ID and the file's reference. */
async function uploaded(content: Buffer, token = uploader.token, filename?: string): Promise<{ id: number; ref: string }> {
  const reply = await upload({ field_1: "P-1" }, [photo(content, filename)], { token });
  assert.equal(reply.status, 200, reply.text);
  const id = reply.json.returnedStationID as number;
  const ref = (await recordValues(id)).field_2;
  assert.ok(ref, "the file field holds a reference");
  return { id, ref };
}

before(async () => {
  server = await startServer();
  filesDir = path.join(server.dir, "files");
  const created = await server.call("POST", "/api/admin/blocs", {
    json: { name: "Inspections", fields: [{ name: "Part", required: true }, { name: "Photo", type: "file" }, { name: "Manual", type: "file" }] },
  });
  assert.equal(created.status, 201, created.text);
  blocId = created.json.id as string;
  uploader = await addMember(server, { blocId, read: true, add: true });
  ownReader = await addMember(server, { blocId, read: true, add: true });
  const restricted = await server.call("PUT", `/api/admin/blocs/${blocId}/restrictions/${ownReader.id}`, { json: { mode: "own" } });
  assert.equal(restricted.status, 200, restricted.text);
  adderOnly = await addMember(server, { blocId, add: true });
  stranger = await addMember(server);
});

after(async () => {
  await server.close();
});

describe("files: upload and download", () => {
  test("multipart add-data with text parts and a file part → 200; the field holds a reference; the content is stored by SHA-256", async () => {
    const content = crypto.randomBytes(50_000);
    const reply = await upload({ field_1: "P-100" }, [photo(content)], { token: uploader.token, jobID: "J-7" });
    assert.equal(reply.status, 200, reply.text);
    assert.deepEqual(keysOf(reply.json), ["autogenerateReplacements", "returnedStationID"]);
    assert.deepEqual(reply.json.autogenerateReplacements, []);
    const record = (await storedRecords(server, blocId)).find((r) => r.id === reply.json.returnedStationID);
    assert.ok(record);
    assert.equal(record.values.field_1, "P-100");
    assert.equal(record.jobId, "J-7");
    assert.equal(record.userId, uploader.id);
    const ref = record.values.field_2!;
    assert.match(ref, /^[A-Za-z0-9_-]{16,}$/, "an opaque reference, not a path or a name");
    assert.ok(!ref.includes(sha256(content)), "the reference does not reveal the content hash");
    assert.equal(record.values.field_3 ?? "", "", "a file field without a part stays empty");

    const onDisk = await fs.readFile(path.join(filesDir, blobPath(sha256(content))));
    assert.ok(onDisk.equals(content), "the blob holds the uploaded bytes");
    assert.deepEqual(await tmpEntries(), []);
  });

  test("GET /api/files/:ref streams the bytes back with their type and original name, to the uploader and to an admin", async () => {
    const content = crypto.randomBytes(70_000);
    const { ref } = await uploaded(content);
    for (const token of [uploader.token, server.adminToken]) {
      const reply = await download(ref, token);
      assert.equal(reply.status, 200, reply.text.slice(0, 200));
      assert.ok(reply.body.equals(content), "the same bytes");
      assert.equal(reply.headers["content-type"], "image/png");
      assert.equal(reply.headers["content-length"], String(content.length));
      assert.match(String(reply.headers["content-disposition"]), /^attachment;/);
      assert.ok(String(reply.headers["content-disposition"]).includes('filename="photo 1.png"'), reply.headers["content-disposition"]);
      assert.equal(reply.headers["x-content-type-options"], "nosniff");
    }
  });

  test("a non-ASCII file name comes back in RFC 5987 form beside an ASCII fallback", async () => {
    const content = crypto.randomBytes(1000);
    const reply = await upload({ field_1: "P-2" }, [{ slug: "field_3", content, filename: "résumé – v2.pdf", type: "application/pdf" }]);
    assert.equal(reply.status, 200, reply.text);
    const ref = (await recordValues(reply.json.returnedStationID)).field_3!;
    const file = await download(ref);
    assert.equal(file.status, 200);
    assert.equal(file.headers["content-type"], "application/pdf");
    const disposition = String(file.headers["content-disposition"]);
    assert.ok(disposition.includes(`filename*=UTF-8''${encodeURIComponent("résumé – v2.pdf")}`), disposition);
    assert.match(disposition, /filename="[\x20-\x7e]+"/);
  });

  test("controls and format characters (a bidirectional override) in a file's name are replaced: stored, downloaded and saved by the client", async () => {
    const cases: [string, string][] = [
      ["evil\u202Egpj.exe", "evil_gpj.exe"],
      ["a\u2066b\u2069\u200Bc\u00ADd\uFEFF.txt", "a_b__c_d_.txt"],
      ["bell\u0007\u0085tab\u0009.pdf", "bell__tab_.pdf"],
      ["résumé – v2 👩‍👩‍👧.pdf", "résumé – v2 👩_👩_👧.pdf"],
    ];
    for (const [sent, shown] of cases) {
      const { ref } = await uploaded(crypto.randomBytes(100), uploader.token, sent);
      assert.equal((await server.ctx.store.files.findFile(ref))?.name, shown, `${JSON.stringify(sent)} as stored`);
      const disposition = String((await download(ref)).headers["content-disposition"]);
      assert.equal(dispositionName(disposition), shown, disposition);
      assert.doesNotMatch(disposition, /%E2%80%AE|%E2%81%A6|%E2%80%8B|%C2%85/, "no hidden character, encoded or not");
      assert.equal(safeName(sent), shown, `${JSON.stringify(sent)} saved by the client`);
    }
  });

  test("a file with no usable type is served as application/octet-stream", async () => {
    const content = crypto.randomBytes(500);
    const reply = await upload({ field_1: "P-3" }, [photo(content, "data.bin", "")]);
    assert.equal(reply.status, 200, reply.text);
    const file = await download((await recordValues(reply.json.returnedStationID)).field_2!);
    assert.equal(file.status, 200);
    assert.equal(file.headers["content-type"], "application/octet-stream");
  });

  test("two file fields in one request: each part is stored under its own field", async () => {
    const photoBytes = crypto.randomBytes(3000);
    const manualBytes = crypto.randomBytes(4000);
    const reply = await upload({ field_1: "P-4" }, [photo(photoBytes), { slug: "field_3", content: manualBytes, filename: "m.pdf", type: "application/pdf" }]);
    assert.equal(reply.status, 200, reply.text);
    const values = await recordValues(reply.json.returnedStationID);
    assert.notEqual(values.field_2, values.field_3);
    assert.ok((await download(values.field_2!)).body.equals(photoBytes));
    assert.ok((await download(values.field_3!)).body.equals(manualBytes));
  });

  test("a file part before scanStationID is refused (400) before any byte of it is written", async () => {
    // Permission to add to the bloc is checked before a file is written, so the bloc must be known first.
    const before = { records: await count(), blobs: await blobs() };
    const reply = await upload({ field_1: "P-5" }, [photo(crypto.randomBytes(2000))], { filesFirst: true });
    assert.equal(reply.status, 400, reply.text);
    assert.match(reply.json.error, /scanStationID must come before the file parts/);
    assert.deepEqual({ records: await count(), blobs: await blobs() }, before);
    assert.deepEqual(await tmpEntries(), []);
  });

  test("multipart text parts carry jobID and submittedStatus like JSON does", async () => {
    const moduleReply = await server.call("POST", "/api/admin/modules", { json: { name: "Uploads" } });
    const moduleId = moduleReply.json.id as string;
    const created = await server.call("POST", "/api/admin/blocs", {
      json: { name: "Jobbed files", fields: [{ name: "Doc", type: "file" }], moduleId, requireJob: true },
    });
    const bloc = created.json.id as string;
    const file = (): FilePart => ({ slug: "field_1", content: crypto.randomBytes(300), filename: "d.txt", type: "text/plain" });
    const before = await blobs();
    const refused = await postMultipart(server.url, server.adminToken, { scanStationID: bloc, dataToAdd: "{}" }, [file()]);
    assert.equal(refused.status, 400, refused.text);
    assert.match(String(refused.json.error), /jobID/);
    assert.deepEqual(await blobs(), before, "the refused upload left no blob");
    const reply = await postMultipart(server.url, server.adminToken, { scanStationID: bloc, jobID: moduleId, submittedStatus: "0", dataToAdd: "{}" }, [file()]);
    assert.equal(reply.status, 200, reply.text);
    const record = (await storedRecords(server, bloc))[0]!;
    assert.equal(record.jobId, moduleId);
    assert.equal(record.submittedStatus, 0);
  });

  test("identical content uploaded twice is stored once on disk; both references work", async () => {
    const content = crypto.randomBytes(20_000);
    const before = await blobs();
    const first = await uploaded(content);
    const second = await uploaded(content, ownReader.token, "again.png");
    assert.notEqual(first.ref, second.ref, "each upload has its own reference");
    const added = (await blobs()).filter((b) => !before.includes(b));
    assert.deepEqual(added, [blobPath(sha256(content))]);
    assert.ok((await download(first.ref)).body.equals(content));
    const again = await download(second.ref);
    assert.ok(again.body.equals(content));
    assert.ok(String(again.headers["content-disposition"]).includes('filename="again.png"'), "each upload keeps its own name");
    assert.deepEqual(await tmpEntries(), []);
  });
});

describe("files: who may download", () => {
  let ref: string;
  let id: number;

  before(async () => {
    ({ ref, id } = await uploaded(crypto.randomBytes(5000)));
  });

  async function assertNotFound(token: string | undefined, fileRef = ref): Promise<void> {
    const reply = await download(fileRef, token);
    assert.equal(reply.status, 404, reply.text);
    assert.deepEqual(keysOf(reply.json), ["error"]);
  }

  test("a reader whose restriction hides the record (own, not the creator) gets 404 {error}", async () => {
    await assertNotFound(ownReader.token);
    // The same reader sees their own upload.
    const own = await uploaded(crypto.randomBytes(800), ownReader.token);
    assert.equal((await download(own.ref, ownReader.token)).status, 200);
  });

  test("once the restriction is lifted, the same reader may download it", async () => {
    const lifted = await server.call("DELETE", `/api/admin/blocs/${blocId}/restrictions/${ownReader.id}`);
    assert.ok(lifted.status < 300, lifted.text);
    try {
      assert.equal((await download(ref, ownReader.token)).status, 200);
    } finally {
      const again = await server.call("PUT", `/api/admin/blocs/${blocId}/restrictions/${ownReader.id}`, { json: { mode: "own" } });
      assert.equal(again.status, 200, again.text);
    }
    await assertNotFound(ownReader.token);
  });

  test("a member under a hidden restriction gets 404 {error}", async () => {
    const hidden = await addMember(server, { blocId, read: true });
    const put = await server.call("PUT", `/api/admin/blocs/${blocId}/restrictions/${hidden.id}`, { json: { mode: "hidden" } });
    assert.equal(put.status, 200, put.text);
    await assertNotFound(hidden.token);
  });

  test("a member who may add but not read, and a member with no grant, get 404 {error}", async () => {
    const mine = await uploaded(crypto.randomBytes(900), adderOnly.token);
    await assertNotFound(adderOnly.token, mine.ref);
    await assertNotFound(stranger.token);
  });

  test("a token scoped to another bloc gets 404 {error}, even for the uploader", async () => {
    const other = await server.call("POST", "/api/admin/blocs", { json: { name: "Other" } });
    const issued = await server.call("POST", `/api/admin/users/${uploader.id}/tokens`, { json: { blocs: [other.json.id] } });
    assert.equal(issued.status, 201, issued.text);
    await assertNotFound(issued.json.token as string);
    assert.equal((await download(ref, uploader.token)).status, 200);
  });

  test("an unknown reference → 404 {error}; no token → 401", async () => {
    await assertNotFound(server.adminToken, crypto.randomUUID());
    await assertNotFound(server.adminToken, "..%2F..%2Fbloc.db");
    const anonymous = await call(server.url, "GET", `/api/files/${ref}`);
    assert.equal(anonymous.status, 401, anonymous.text);
  });

  test("get-data and the JSON report show the reference; the .xlsx report shows the file column as a link", async () => {
    const read = await server.call("GET", "/api/get-data", { json: { blocId, resultLimit: 1000 } });
    assert.equal(read.status, 200, read.text);
    const rows = Object.entries(read.json.data).filter(([key]) => /^\d+$/.test(key)).map(([, row]) => row as Record<string, unknown>);
    assert.equal(rows.find((r) => r.service_entry_row_id === id)?.field_2, ref);
    assert.equal(read.json.data.fieldNames.field_2, "Photo");

    const json = await server.call("GET", "/api/get-data-report", {
      json: { stationID: blocId, fieldsToReport: { field_1: true, field_2: true } },
    });
    assert.equal(json.status, 200, json.text);
    assert.ok((json.json.data as Record<string, string>[]).some((row) => row.field_2 === ref), "the JSON report holds the reference");

    const xlsx = await server.call("GET", "/api/get-data-report", {
      json: { stationID: blocId, fieldsToReport: { field_1: true, field_2: true }, responseType: "blob" },
    });
    assert.equal(xlsx.status, 200, xlsx.text.slice(0, 200));
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(xlsx.body as unknown as Parameters<typeof workbook.xlsx.load>[0]);
    const sheet = workbook.worksheets[0]!;
    const header = sheet.getRow(1);
    const columns: string[] = [];
    for (let c = 1; c <= sheet.columnCount; c += 1) columns.push(header.getCell(c).text);
    const photoColumn = columns.indexOf("Photo") + 1;
    assert.ok(photoColumn > 0, `the header ${columns.join(", ")} has the file column`);
    const links: { text: string; hyperlink: string }[] = [];
    for (let r = 2; r <= sheet.rowCount; r += 1) {
      const value = sheet.getRow(r).getCell(photoColumn).value;
      if (value !== null && typeof value === "object" && "hyperlink" in value) {
        links.push({ text: String(value.text), hyperlink: value.hyperlink });
      }
    }
    const link = links.find((l) => l.text === ref);
    assert.ok(link, "the reference is a link cell");
    assert.equal(new URL(link.hyperlink).pathname, `/api/files/${ref}`);
  });
});

describe("files: a failed upload leaves nothing behind", () => {
  /** Runs a refused upload and checks: no record, no new blob, an empty tmp folder. */
  async function assertNothingLeft(run: () => Promise<{ status: number; json: JsonBody; text: string }>, status: number): Promise<void> {
    const recordsBefore = await count();
    const blobsBefore = await blobs();
    const reply = await run();
    assert.equal(reply.status, status, reply.text);
    // A rule refusal names its failing fields beside the spec's key; nothing else is added.
    assert.deepEqual(keysOf(reply.json).filter((key) => key !== "fields"), ["error"]);
    assert.equal(await count(), recordsBefore, "no record was added");
    assert.deepEqual(await blobs(), blobsBefore, "no blob was left");
    assert.deepEqual(await tmpEntries(), [], "the tmp folder is empty");
  }

  test("a rule violation in dataToAdd (required field missing)", async () => {
    await assertNothingLeft(() => upload({}, [photo(crypto.randomBytes(10_000))]), 400);
  });

  test("an unknown scanStationID", async () => {
    await assertNothingLeft(() => upload({ field_1: "x" }, [photo(crypto.randomBytes(10_000))], { bloc: "no-such-bloc" }), 404);
    await assertNothingLeft(() => upload({ field_1: "x" }, [photo(crypto.randomBytes(10_000))], { bloc: "no-such-bloc", token: uploader.token }), 403);
  });

  test("a member without add permission", async () => {
    const reader = await addMember(server, { blocId, read: true });
    await assertNothingLeft(() => upload({ field_1: "x" }, [photo(crypto.randomBytes(10_000))], { token: reader.token }), 403);
  });

  test("a file part named after a field that is not a file field, or after no field", async () => {
    await assertNothingLeft(() => upload({ field_1: "x" }, [{ slug: "field_1", content: crypto.randomBytes(4000), filename: "a.bin" }]), 400);
    await assertNothingLeft(() => upload({ field_1: "x" }, [{ slug: "field_9", content: crypto.randomBytes(4000), filename: "a.bin" }]), 400);
  });

  test("two file parts for one file field", async () => {
    await assertNothingLeft(() => upload({ field_1: "x" }, [photo(crypto.randomBytes(4000)), photo(crypto.randomBytes(4000))]), 400);
  });

  test("a string value for the file field beside its part", async () => {
    await assertNothingLeft(() => upload({ field_1: "x", field_2: "someone-elses-ref" }, [photo(crypto.randomBytes(4000))]), 400);
  });

  test("missing dataToAdd", async () => {
    await assertNothingLeft(() => postMultipart(server.url, server.adminToken, { scanStationID: blocId }, [photo(crypto.randomBytes(4000))]), 400);
  });

  test("a bloc at its scan limit", async () => {
    const created = await server.call("POST", "/api/admin/blocs", { json: { name: "Full", fields: [{ name: "Doc", type: "file" }], scanLimit: 1 } });
    const full = created.json.id as string;
    const first = await upload({}, [{ slug: "field_1", content: crypto.randomBytes(100), filename: "a" }], { bloc: full });
    assert.equal(first.status, 200, first.text);
    await assertNothingLeft(() => upload({}, [{ slug: "field_1", content: crypto.randomBytes(4000), filename: "b" }], { bloc: full }), 400);
  });

  test("a refused upload of content another record already holds keeps that content", async () => {
    const content = crypto.randomBytes(6000);
    const kept = await uploaded(content);
    await assertNothingLeft(() => upload({}, [photo(content)]), 400);
    const reply = await download(kept.ref);
    assert.equal(reply.status, 200);
    assert.ok(reply.body.equals(content));
  });

  test("concurrent uploads of one content, half of them refused, leave every accepted record's file downloadable", async () => {
    for (let round = 0; round < 6; round += 1) {
      const content = crypto.randomBytes(200_000);
      // Odd requests are valid; even ones leave out the required field and are refused after the file is stored.
      const replies = await Promise.all(Array.from({ length: 20 }, (_, i) => upload(i % 2 === 1 ? { field_1: `race-${i}` } : {}, [photo(content)])));
      assert.deepEqual(replies.map((r) => r.status), Array.from({ length: 20 }, (_, i) => (i % 2 === 1 ? 200 : 400)));
      const broken: string[] = [];
      for (const reply of replies.filter((r) => r.status === 200)) {
        const ref = (await recordValues(reply.json.returnedStationID as number)).field_2!;
        const file = await download(ref);
        if (file.status !== 200 || !file.body.equals(content)) broken.push(`record ${reply.json.returnedStationID}: ${file.status} ${file.text.slice(0, 80)}`);
      }
      assert.deepEqual(broken, [], `round ${round}: accepted records whose file cannot be downloaded`);
      assert.ok((await blobs()).includes(blobPath(sha256(content))), "the shared blob is on disk");
    }
    assert.deepEqual(await tmpEntries(), []);
  });

  test("a client that disconnects halfway through a file part", async () => {
    const recordsBefore = await count();
    const blobsBefore = await blobs();
    const boundary = "----bloc-test-boundary";
    const head = [
      `--${boundary}\r\nContent-Disposition: form-data; name="scanStationID"\r\n\r\n${blocId}\r\n`,
      `--${boundary}\r\nContent-Disposition: form-data; name="dataToAdd"\r\n\r\n{"field_1":"aborted"}\r\n`,
      `--${boundary}\r\nContent-Disposition: form-data; name="field_2"; filename="a.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
    ].join("");
    const url = new URL(server.url);
    const socket = net.connect(Number(url.port), url.hostname);
    await new Promise<void>((resolve, reject) => { socket.once("connect", () => resolve()); socket.once("error", reject); });
    socket.write(`POST /api/add-data HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${server.adminToken}\r\n` +
      `Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${10 * MiB}\r\n\r\n${head}`);
    socket.write(crypto.randomBytes(2 * MiB));
    // The server has started storing the part…
    let started = false;
    for (let i = 0; i < 50 && !started; i += 1) {
      started = (await tmpEntries()).length > 0;
      if (!started) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.ok(started, "the part was being written to tmp");
    // …when the client goes away.
    socket.destroy();
    let left: string[] = ["?"];
    for (let i = 0; i < 100 && left.length > 0; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      left = await tmpEntries();
    }
    assert.deepEqual(left, [], "the partial file was removed from tmp");
    assert.deepEqual(await blobs(), blobsBefore);
    assert.equal(await count(), recordsBefore);
    assert.equal((await server.call("GET", "/health")).status, 200);
  });

  test("a 26 MiB file against the default 25 MiB limit → 413 {error}, no record, no blob, empty tmp", async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "bloc-413-"));
    try {
      const big = path.join(dir, "big.bin");
      await writeFile(big, 26 * MiB);
      await assertNothingLeft(async () => {
        const reply = await curlUpload(server.url, server.adminToken, { scanStationID: blocId, dataToAdd: JSON.stringify({ field_1: "big" }) },
          { slug: "field_2", path: big, filename: "big.bin", type: "application/octet-stream" });
        return reply;
      }, 413);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});

/** Writes `size` bytes to `file` 1 MiB at a time (never the whole file in memory); returns its SHA-256. */
async function writeFile(file: string, size: number): Promise<string> {
  const hash = crypto.createHash("sha256");
  const out = createWriteStream(file);
  const chunk = crypto.randomBytes(MiB);
  for (let written = 0; written < size; written += MiB) {
    chunk.writeUInt32BE(written / MiB, 0); // every chunk differs
    const piece = chunk.subarray(0, Math.min(MiB, size - written));
    hash.update(piece);
    if (!out.write(piece)) await new Promise<void>((resolve) => out.once("drain", () => resolve()));
  }
  await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
  return hash.digest("hex");
}

/** A /proc/<pid>/status figure in kB (VmHWM: peak resident set; VmRSS: current). */
async function procKb(pid: number, key: "VmHWM" | "VmRSS"): Promise<number> {
  const status = await fs.readFile(`/proc/${pid}/status`, "utf8");
  const match = new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(status);
  assert.ok(match, `${key} in /proc/${pid}/status`);
  return Number(match[1]);
}

/** Resets the peak RSS of a process to its current RSS; false where the kernel does not allow it. */
async function resetPeak(pid: number): Promise<boolean> {
  try {
    await fs.writeFile(`/proc/${pid}/clear_refs`, "5");
    return true;
  } catch {
    return false;
  }
}

/** Streams a download through a hash: neither the test nor the server holds it whole. */
function streamedDownload(url: string, token: string): Promise<{ status: number; size: number; sha256: string }> {
  return new Promise((resolve, reject) => {
    http.get(url, { headers: { authorization: `Bearer ${token}` } }, (response) => {
      const hash = crypto.createHash("sha256");
      let size = 0;
      response.on("data", (chunk: Buffer) => { hash.update(chunk); size += chunk.length; });
      response.on("end", () => resolve({ status: response.statusCode ?? 0, size, sha256: hash.digest("hex") }));
      response.on("error", reject);
    }).on("error", reject);
  });
}

describe("a 100 MB upload to a server process keeps its memory flat (acceptance 2)", () => {
  let workspace: Workspace | undefined;
  let cwd: string;
  let running: Running | undefined;
  let bloc: string;
  const admin = `big-upload-admin-${crypto.randomBytes(8).toString("hex")}`;

  before(async () => {
    workspace = await freshWorkspace("big");
    cwd = workspace.cwd;
    running = await startProcess({
      DATABASE_URL: workspace.databaseUrl, BLOC_ADMIN_TOKEN: admin,
      BLOC_FILES_DIR: path.join(cwd, "files"), BLOC_MAX_FILE_BYTES: "200000000",
    }, cwd);
    const created = await call(running.url, "POST", "/api/admin/blocs", {
      token: admin, json: { name: "Big", fields: [{ name: "Part" }, { name: "Video", type: "file" }] },
    });
    assert.equal(created.status, 201, created.text);
    bloc = created.json.id as string;
  });

  after(async () => {
    await running?.stop();
    await workspace?.remove();
  });

  test("100 MB streamed by curl -F: 200, the blob on disk is whole, peak RSS grows by well under 100 MB", async () => {
    const url = running!.url;
    const pid = running!.child.pid!;
    const small = path.join(cwd, "small.bin");
    const big = path.join(cwd, "big.bin");
    await writeFile(small, 64 * 1024);
    const size = 100 * MiB;
    const bigSha = await writeFile(big, size);
    const text = (part: string) => ({ scanStationID: bloc, dataToAdd: JSON.stringify({ field_1: part }) });

    // Warm-up: the multipart path has run once before measuring.
    const warm = await curlUpload(url, admin, text("warm"), { slug: "field_2", path: small, filename: "small.bin", type: "application/octet-stream" });
    assert.equal(warm.status, 200, `${warm.text} ${warm.curlError}`);

    const reset = await resetPeak(pid);
    const rssBefore = await procKb(pid, "VmRSS");
    const peakBefore = await procKb(pid, "VmHWM");
    const started = Date.now();
    const reply = await curlUpload(url, admin, text("big"), { slug: "field_2", path: big, filename: "big.bin", type: "video/mp4" });
    const seconds = (Date.now() - started) / 1000;
    const peakAfter = await procKb(pid, "VmHWM");
    assert.equal(reply.status, 200, `${reply.text} ${reply.curlError}`);
    assert.equal(reply.curlError, "");

    const growthMb = (peakAfter - peakBefore) / 1024;
    const overRssMb = (peakAfter - rssBefore) / 1024;
    console.log(`100 MiB upload in ${seconds.toFixed(1)} s: server VmRSS before ${(rssBefore / 1024).toFixed(1)} MB, ` +
      `VmHWM before ${(peakBefore / 1024).toFixed(1)} MB${reset ? " (peak reset to current)" : ""}, ` +
      `VmHWM after ${(peakAfter / 1024).toFixed(1)} MB: peak grew ${growthMb.toFixed(1)} MB, ${overRssMb.toFixed(1)} MB over the RSS before`);
    assert.ok(growthMb < 60, `peak RSS grew ${growthMb.toFixed(1)} MB for a 100 MiB upload`);
    if (reset) assert.ok(overRssMb < 60, `peak RSS rose ${overRssMb.toFixed(1)} MB over the RSS before the upload`);

    // The blob on disk is the whole file, and tmp is empty.
    const stat = await fs.stat(path.join(cwd, "files", blobPath(bigSha)));
    assert.equal(stat.size, size);
    assert.deepEqual(await tmpEntries(path.join(cwd, "files")), []);

    // Download streams it back whole, also without the server's memory following the size.
    const read = await call(url, "GET", "/api/get-data", { token: admin, json: { blocId: bloc, resultLimit: 1 } });
    const ref = read.json.data["0"].field_2 as string;
    assert.equal(read.json.data["0"].field_1, "big");
    await resetPeak(pid);
    const downloadPeakBefore = await procKb(pid, "VmHWM");
    const fetched = await streamedDownload(`${url}/api/files/${encodeURIComponent(ref)}`, admin);
    const downloadPeakAfter = await procKb(pid, "VmHWM");
    const downloadGrowthMb = (downloadPeakAfter - downloadPeakBefore) / 1024;
    console.log(`100 MiB download: server VmHWM ${(downloadPeakBefore / 1024).toFixed(1)} → ${(downloadPeakAfter / 1024).toFixed(1)} MB (grew ${downloadGrowthMb.toFixed(1)} MB)`);
    assert.equal(fetched.status, 200);
    assert.equal(fetched.size, size);
    assert.equal(fetched.sha256, bigSha);
    assert.ok(downloadGrowthMb < 60, `peak RSS grew ${downloadGrowthMb.toFixed(1)} MB for a 100 MiB download`);
  });
});

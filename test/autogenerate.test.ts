import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import crypto from "node:crypto";
import { startServer, type TestServer } from "./support/server.js";
import { call, type Reply } from "./support/http.js";
import { freshWorkspace, startPair, startProcess, type ProcessPair, type Running, type Workspace } from "./support/process.js";
import { insertAt, keysOf, storedRecords } from "./support/fixtures.js";

/**
 * Auto-generated values (issue 4, acceptance 3): formats, filling, counting on from
 * the highest value, keeping free client values and replacing taken ones, and
 * uniqueness under concurrent requests, in one process and across two.
 */

let server: TestServer;

before(async () => {
  server = await startServer();
});

after(async () => {
  await server.close();
});

async function autoBloc(format: string, extra: Record<string, unknown>[] = [{ name: "Note" }]): Promise<string> {
  const reply = await server.call("POST", "/api/admin/blocs", {
    json: { name: "Auto", fields: [{ name: "Number", type: "autogenerate", format }, ...extra] },
  });
  assert.equal(reply.status, 201, reply.text);
  return reply.json.id as string;
}

function add(blocId: string, values: Record<string, string>): Promise<Reply> {
  return server.call("POST", "/api/add-data", { json: { scanStationID: blocId, dataToAdd: JSON.stringify(values) } });
}

/** Adds a record, which must be accepted, and returns its stored value of field_1 and the replacements. */
async function addAndRead(blocId: string, values: Record<string, string> = {}): Promise<{ value: string; replacements: unknown[] }> {
  const reply = await add(blocId, values);
  assert.equal(reply.status, 200, reply.text);
  const record = (await storedRecords(server, blocId)).find((r) => r.id === reply.json.returnedStationID);
  assert.ok(record);
  return { value: record.values.field_1 ?? "", replacements: reply.json.autogenerateReplacements as unknown[] };
}

function seq(prefix: string, n: number, width: number): string {
  return `${prefix}${String(n).padStart(width, "0")}`;
}

/** YYYYMMDD of a `YYYY-MM-DD HH:MM:SS` timestamp. */
function compactDay(timestamp: string): string {
  return timestamp.slice(0, 10).replace(/-/g, "");
}

function utcDay(offsetDays = 0): string {
  return new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);
}

describe("autogenerate: formats", () => {
  test("INV-{seq:5}: an empty or absent value is filled with the next zero-padded number", async () => {
    const bloc = await autoBloc("INV-{seq:5}");
    assert.deepEqual(await addAndRead(bloc, {}), { value: "INV-00001", replacements: [] });
    assert.deepEqual(await addAndRead(bloc, { field_1: "" }), { value: "INV-00002", replacements: [] });
    assert.deepEqual(await addAndRead(bloc, { field_2: "x" }), { value: "INV-00003", replacements: [] });
  });

  test("a suffix after the counter is kept: {seq:3}-B", async () => {
    const bloc = await autoBloc("{seq:3}-B");
    assert.equal((await addAndRead(bloc)).value, "001-B");
    assert.equal((await addAndRead(bloc)).value, "002-B");
  });

  test("{YYYY}{MM}{DD}-{seq:3}: date parts come from the record's created_at (UTC by default)", async () => {
    const bloc = await autoBloc("{YYYY}{MM}{DD}-{seq:3}");
    const daysAround = [utcDay(0), utcDay(1)].map((d) => d.replace(/-/g, ""));
    const first = await add(bloc, {});
    const second = await add(bloc, {});
    assert.equal(first.status, 200, first.text);
    assert.equal(second.status, 200, second.text);
    const records = await storedRecords(server, bloc);
    assert.equal(records.length, 2);
    for (const [index, record] of records.entries()) {
      const day = compactDay(record.createdAt);
      assert.ok(daysAround.includes(day), `created_at ${record.createdAt} is today in UTC`);
      assert.equal(record.values.field_1, `${day}-${String(index + 1).padStart(3, "0")}`);
    }
  });

  test("a date-prefixed counter starts again on a new day: yesterday's values do not count", async () => {
    const bloc = await autoBloc("{YYYY}{MM}{DD}-{seq:3}");
    const yesterday = utcDay(-1);
    await insertAt(server, bloc, `${yesterday} 12:00:00`, { field_1: `${yesterday.replace(/-/g, "")}-007` });
    const { value } = await addAndRead(bloc);
    const record = (await storedRecords(server, bloc)).at(-1)!;
    assert.equal(value, `${compactDay(record.createdAt)}-001`);
  });

  test("{YY}{MM}: two-digit year and month", async () => {
    const bloc = await autoBloc("B{YY}{MM}/{seq:2}");
    const { value } = await addAndRead(bloc);
    const record = (await storedRecords(server, bloc))[0]!;
    assert.equal(value, `B${record.createdAt.slice(2, 4)}${record.createdAt.slice(5, 7)}/01`);
  });

  test("{seq:4 by field_2}: a separate counter per value of field_2", async () => {
    const bloc = await autoBloc("{seq:4 by field_2}", [{ name: "Line" }]);
    const sequence: [string, string][] = [
      ["A", "0001"], ["A", "0002"], ["B", "0001"], ["A", "0003"], ["B", "0002"], ["", "0001"], ["C", "0001"], ["", "0002"],
    ];
    for (const [line, expected] of sequence) {
      const { value } = await addAndRead(bloc, line === "" ? {} : { field_2: line });
      assert.equal(value, expected, `line ${JSON.stringify(line)}`);
    }
  });

  test("{seq:4 by field_2}: each group counts on from its own highest value; a value taken in one group is free in another", async () => {
    const bloc = await autoBloc("T-{seq:4 by field_2}", [{ name: "Line" }]);
    await insertAt(server, bloc, "2026-01-01 08:00:00", { field_1: "T-0009", field_2: "C" });
    await insertAt(server, bloc, "2026-01-01 08:00:01", { field_1: "T-0100", field_2: "D" });
    assert.equal((await addAndRead(bloc, { field_2: "C" })).value, "T-0010");
    assert.equal((await addAndRead(bloc, { field_2: "E" })).value, "T-0001");
    // T-0009 is taken in C but not in E: kept there, replaced in C.
    assert.deepEqual(await addAndRead(bloc, { field_2: "E", field_1: "T-0009" }), { value: "T-0009", replacements: [] });
    assert.deepEqual(await addAndRead(bloc, { field_2: "C", field_1: "T-0009" }), {
      value: "T-0011", replacements: [{ field: "field_1", sent: "T-0009", value: "T-0011" }],
    });
  });

  test("a counter wider than its width keeps counting: N{seq:2} after N99 gives N100", async () => {
    const bloc = await autoBloc("N{seq:2}");
    await insertAt(server, bloc, "2026-01-01 08:00:00", { field_1: "N99" });
    assert.equal((await addAndRead(bloc)).value, "N100");
    assert.equal((await addAndRead(bloc)).value, "N101");
  });
});

describe("autogenerate: existing and client-sent values", () => {
  let bloc: string;

  before(async () => {
    bloc = await autoBloc("INV-{seq:5}");
    // Seeded through the store, as an import or an earlier version would have left them.
    const seeds = ["INV-00041", "INV-00007", "INV-00040", "INV-0041X", "X-00099", "INV-", "inv-00090"];
    for (const [i, value] of seeds.entries()) await insertAt(server, bloc, `2026-01-01 08:00:0${i}`, { field_1: value });
  });

  test("counting continues from the highest existing value of the format (INV-00041 → INV-00042)", async () => {
    assert.deepEqual(await addAndRead(bloc), { value: "INV-00042", replacements: [] });
  });

  test("a value that appeared since the counter was last used is skipped", async () => {
    await insertAt(server, bloc, "2026-01-02 08:00:00", { field_1: "INV-00043" });
    assert.equal((await addAndRead(bloc)).value, "INV-00044");
  });

  test("a free value sent by the client is kept, and counting continues after it", async () => {
    assert.deepEqual(await addAndRead(bloc, { field_1: "INV-00500" }), { value: "INV-00500", replacements: [] });
    assert.deepEqual(await addAndRead(bloc, { field_1: "MANUAL-1" }), { value: "MANUAL-1", replacements: [] });
    assert.equal((await addAndRead(bloc)).value, "INV-00501");
  });

  test("a taken value sent by the client is replaced by the next free one and reported as {field, sent, value}", async () => {
    const reply = await add(bloc, { field_1: "INV-00041", field_2: "pre-filled" });
    assert.equal(reply.status, 200, reply.text);
    assert.deepEqual(keysOf(reply.json), ["autogenerateReplacements", "returnedStationID"]);
    assert.deepEqual(reply.json.autogenerateReplacements, [{ field: "field_1", sent: "INV-00041", value: "INV-00502" }]);
    const record = (await storedRecords(server, bloc)).find((r) => r.id === reply.json.returnedStationID);
    assert.deepEqual(record?.values, { field_1: "INV-00502", field_2: "pre-filled" });
    // A taken value that is not of the format is replaced too.
    assert.deepEqual(await addAndRead(bloc, { field_1: "MANUAL-1" }), {
      value: "INV-00503", replacements: [{ field: "field_1", sent: "MANUAL-1", value: "INV-00503" }],
    });
  });

  test("get-data shows the generated values", async () => {
    const reply = await server.call("GET", "/api/get-data", { json: { blocId: bloc, resultLimit: 1 } });
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.json.data["0"].field_1, "INV-00503");
  });
});

describe("autogenerate and update-records", () => {
  function update(blocId: string, fieldsToUpdate: Record<string, string>, id: number): Promise<Reply> {
    return server.call("POST", "/api/update-records-by-matching-values", {
      json: { blocId, fieldsToUpdate, searchItems: { service_entry_row_id: String(id) } },
    });
  }

  test("a record's own generated value may be sent back unchanged", async () => {
    const bloc = await autoBloc("INV-{seq:5}", [{ name: "Note" }]);
    const first = await add(bloc, {});
    const second = await add(bloc, {});
    const reply = await update(bloc, { field_1: "INV-00001", field_2: "checked" }, first.json.returnedStationID as number);
    assert.equal(reply.status, 200, reply.text);
    assert.deepEqual(reply.json.updated_record_ids, [first.json.returnedStationID]);
    const stored = await storedRecords(server, bloc);
    assert.deepEqual(stored.map((r) => [r.id, r.values.field_1, r.values.field_2 ?? ""]).sort(), [
      [first.json.returnedStationID, "INV-00001", "checked"],
      [second.json.returnedStationID, "INV-00002", ""],
    ].sort(), "the record keeps its number and takes the note; the other record is untouched");
  });

  test("{seq:4 by field_2}: sending back a record's own value is accepted though another group holds the same number", async () => {
    const bloc = await autoBloc("{seq:4 by field_2}", [{ name: "Line" }, { name: "Note" }]);
    const a = await add(bloc, { field_2: "A" });
    const b = await add(bloc, { field_2: "B" });
    assert.equal(a.status, 200, a.text);
    assert.equal(b.status, 200, b.text);
    const records = await storedRecords(server, bloc);
    assert.deepEqual(records.map((r) => r.values.field_1), ["0001", "0001"], "each line counts from 0001");
    // A client that sends the whole form back, its generated number unchanged.
    const reply = await update(bloc, { field_1: "0001", field_3: "checked" }, b.json.returnedStationID as number);
    assert.equal(reply.status, 200, `add-data counts per line, so update-records must too: ${reply.text}`);
    assert.equal((await storedRecords(server, bloc)).find((r) => r.id === b.json.returnedStationID)?.values.field_3, "checked");
  });

  test("{seq:4 by field_2}: moving a record to a group where its number is taken does not make a duplicate there", async () => {
    const bloc = await autoBloc("{seq:4 by field_2}", [{ name: "Line" }]);
    await add(bloc, { field_2: "A" });
    const b = await add(bloc, { field_2: "B" });
    const reply = await update(bloc, { field_2: "A" }, b.json.returnedStationID as number);
    const inA = (await storedRecords(server, bloc)).filter((r) => r.values.field_2 === "A").map((r) => r.values.field_1);
    assert.equal(new Set(inA).size, inA.length, `values within line A stay distinct: ${inA.join(", ")} (update answered ${reply.status} ${reply.text})`);
  });
});

/** Asserts that `values` are exactly INV-00001 … INV-<n>. */
function assertConsecutive(values: readonly string[], n: number): void {
  assert.equal(new Set(values).size, values.length, "every value is distinct");
  assert.deepEqual([...values].sort(), Array.from({ length: n }, (_, i) => seq("INV-", i + 1, 5)));
}

describe("autogenerate under concurrency (acceptance 3)", () => {
  test("200 concurrent add-data requests produce 200 distinct consecutive values INV-00001 … INV-00200", async () => {
    const bloc = await autoBloc("INV-{seq:5}");
    const replies = await Promise.all(Array.from({ length: 200 }, (_, i) => add(bloc, { field_2: `r${i}` })));
    for (const reply of replies) {
      assert.equal(reply.status, 200, reply.text);
      assert.deepEqual(reply.json.autogenerateReplacements, []);
    }
    assert.equal(new Set(replies.map((r) => r.json.returnedStationID)).size, 200);
    const records = await storedRecords(server, bloc);
    assert.equal(records.length, 200);
    assertConsecutive(records.map((r) => r.values.field_1!), 200);
  });

  test("concurrent requests pre-filling the same values get distinct values, each conflict reported", async () => {
    const bloc = await autoBloc("INV-{seq:5}");
    // 60 scanners pre-fill one of three "next numbers" (20 each); 40 leave the field empty.
    const sent = Array.from({ length: 100 }, (_, i) => (i < 60 ? seq("INV-", 1 + (i % 3), 5) : ""));
    const replies = await Promise.all(sent.map((value, i) => add(bloc, { field_1: value, field_2: `r${i}` })));
    const records = new Map((await storedRecords(server, bloc)).map((r) => [r.id, r.values.field_1!]));
    assert.equal(records.size, 100);
    assertConsecutive([...records.values()], 100);

    const keptPerValue = new Map<string, number>();
    let reported = 0;
    replies.forEach((reply, i) => {
      assert.equal(reply.status, 200, reply.text);
      const stored = records.get(reply.json.returnedStationID as number);
      assert.ok(stored, "the answered ID is stored");
      const asked = sent[i]!;
      if (asked === "" || stored === asked) {
        assert.deepEqual(reply.json.autogenerateReplacements, [], `request ${i} kept or was given its value`);
        if (asked !== "") keptPerValue.set(asked, (keptPerValue.get(asked) ?? 0) + 1);
      } else {
        assert.deepEqual(reply.json.autogenerateReplacements, [{ field: "field_1", sent: asked, value: stored }]);
        reported += 1;
      }
    });
    for (const [value, kept] of keptPerValue) assert.equal(kept, 1, `${value} was kept by one request only`);
    assert.ok(reported >= 57, `at least 57 of the 60 pre-filled values were taken and reported (${reported})`);
    assert.equal(reported + [...keptPerValue.values()].reduce((a, b) => a + b, 0), 60);
  });
});

describe("autogenerate across two server processes on one SQLite file", () => {
  let pair: ProcessPair;
  before(async () => { pair = await startPair("auto-2p"); });
  after(async () => { await pair.stop(); });

  test("200 concurrent adds split across both processes give INV-00001 … INV-00200, with pre-filled conflicts reported", async () => {
    const { urls, admin } = pair;
    const created = await call(urls[0], "POST", "/api/admin/blocs", {
      token: admin, json: { name: "Shared", fields: [{ name: "Number", type: "autogenerate", format: "INV-{seq:5}" }, { name: "Note" }] },
    });
    assert.equal(created.status, 201, created.text);
    const bloc = created.json.id as string;
    // Every fifth request pre-fills INV-00001, which only one of them can keep.
    const sent = Array.from({ length: 200 }, (_, i) => (i % 5 === 0 ? "INV-00001" : ""));
    const replies = await Promise.all(sent.map((value, i) => call(urls[i % 2]!, "POST", "/api/add-data", {
      token: admin, json: { scanStationID: bloc, dataToAdd: JSON.stringify({ field_1: value, field_2: `r${i}` }) },
    })));
    for (const reply of replies) assert.equal(reply.status, 200, reply.text);

    const read = await call(urls[1], "GET", "/api/get-data", { token: admin, json: { blocId: bloc, resultLimit: 1000 } });
    assert.equal(read.status, 200, read.text);
    assert.equal(read.json.data.count, 200);
    const byId = new Map<number, string>();
    for (let i = 0; i < 200; i += 1) {
      const record = read.json.data[String(i)];
      byId.set(record.service_entry_row_id as number, record.field_1 as string);
    }
    assertConsecutive([...byId.values()], 200);

    let kept = 0;
    replies.forEach((reply, i) => {
      const stored = byId.get(reply.json.returnedStationID as number);
      if (sent[i] === "INV-00001" && stored === "INV-00001") {
        kept += 1;
        assert.deepEqual(reply.json.autogenerateReplacements, []);
      } else if (sent[i] === "INV-00001") {
        assert.deepEqual(reply.json.autogenerateReplacements, [{ field: "field_1", sent: "INV-00001", value: stored }]);
      } else {
        assert.deepEqual(reply.json.autogenerateReplacements, []);
      }
    });
    assert.ok(kept <= 1, "INV-00001 was kept at most once");
  });
});

describe("autogenerate: counters beyond what a double holds exactly", () => {
  let workspace: Workspace | undefined;
  let running: Running | undefined;
  const admin = `huge-counter-admin-${crypto.randomBytes(8).toString("hex")}`;

  before(async () => {
    workspace = await freshWorkspace("auto-huge");
    const { cwd, databaseUrl } = workspace;
    running = await startProcess({ DATABASE_URL: databaseUrl, BLOC_ADMIN_TOKEN: admin }, cwd);
  });

  after(async () => {
    // The server may be stuck in a loop: it gets no chance to shut down cleanly.
    if (running && running.child.exitCode === null) {
      const exited = new Promise((done) => running!.child.once("exit", done));
      running.child.kill("SIGKILL");
      await exited;
    }
    await workspace?.remove();
  });

  /** A request that must be answered within 5 s; a server stuck in a loop answers never. */
  function within5s(reply: Promise<Reply>): Promise<Reply | "no answer in 5 s"> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<"no answer in 5 s">((resolve) => { timer = setTimeout(() => resolve("no answer in 5 s"), 5000); });
    return Promise.race([reply, timeout]).finally(() => clearTimeout(timer));
  }

  test("a client-sent 17-digit counter value leaves later adds answered, with distinct values", async () => {
    const url = running!.url;
    const created = await call(url, "POST", "/api/admin/blocs", {
      token: admin, json: { name: "Huge", fields: [{ name: "Number", type: "autogenerate", format: "INV-{seq:5}" }] },
    });
    assert.equal(created.status, 201, created.text);
    const bloc = created.json.id as string;
    const values: string[] = [];
    for (const sent of ["INV-99999999999999999", "", "", ""]) {
      const reply = await within5s(call(url, "POST", "/api/add-data", {
        token: admin, json: { scanStationID: bloc, dataToAdd: JSON.stringify({ field_1: sent }) },
      }));
      assert.notEqual(reply, "no answer in 5 s", `add-data with field_1 ${JSON.stringify(sent)} was never answered (after ${values.join(", ")})`);
      if (reply === "no answer in 5 s") return;
      assert.ok(reply.status === 200 || reply.status === 400, reply.text);
      if (reply.status === 200) {
        const read = await call(url, "GET", "/api/get-data", { token: admin, json: { blocId: bloc, resultLimit: 1 } });
        values.push(read.json.data["0"].field_1 as string);
      }
    }
    assert.equal(new Set(values).size, values.length, `distinct values: ${values.join(", ")}`);
  });
});

import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { startServer, type TestServer } from "./support/server.js";
import { keysOf, storedRecords } from "./support/fixtures.js";
import { postMultipart } from "./support/upload.js";

/**
 * Field types and rules (issue 4, acceptance 1): every type and rule accepts a valid
 * value and refuses an invalid one, on add-data (400 `error`) and on update-records
 * (400 `message`), with a message naming the field and the rule, writing nothing.
 */

let server: TestServer;
let blocId: string;

/** The bloc under test: one field per type and per rule. */
const FIELDS = [
  { name: "Qty", type: "number" },
  { name: "Day", type: "date" },
  { name: "When", type: "datetime" },
  { name: "Colour", type: "select", options: ["red", "green", "blue"] },
  { name: "Doc", type: "file" },
  { name: "Ref", type: "autogenerate", format: "R-{seq:3}" },
  { name: "Note" },
  { name: "Code", required: true },
  { name: "Serial", unique: true },
  { name: "Short", maxLength: 5 },
  { name: "Plate", pattern: "[A-Z]{2}-\\d+" },
];

async function createBloc(body: Record<string, unknown>): Promise<string> {
  const reply = await server.call("POST", "/api/admin/blocs", { json: body });
  assert.equal(reply.status, 201, reply.text);
  return reply.json.id as string;
}

before(async () => {
  server = await startServer();
  blocId = await createBloc({ name: "Rules", fields: FIELDS });
});

after(async () => {
  await server.close();
});

/** Values with the required field filled, so that only the field under test can fail. */
function withRequired(values: Record<string, unknown>): Record<string, unknown> {
  return { field_8: "C-1", ...values };
}

function add(values: Record<string, unknown>, bloc = blocId) {
  return server.call("POST", "/api/add-data", { json: { scanStationID: bloc, dataToAdd: JSON.stringify(values) } });
}

function update(fieldsToUpdate: Record<string, unknown>, searchItems: Record<string, unknown>, bloc = blocId) {
  return server.call("POST", "/api/update-records-by-matching-values", { json: { blocId: bloc, fieldsToUpdate, searchItems } });
}

function count(bloc = blocId): Promise<number> {
  return server.ctx.store.records.countRecords({ blocId: bloc });
}

async function valuesOf(id: number, bloc = blocId): Promise<Readonly<Record<string, string>>> {
  const record = (await storedRecords(server, bloc)).find((r) => r.id === id);
  assert.ok(record, `record ${id} is stored`);
  return record.values;
}

/** Adds a record that must be accepted and returns its ID. */
async function added(values: Record<string, unknown>, bloc = blocId): Promise<number> {
  const reply = await add(values, bloc);
  assert.equal(reply.status, 200, reply.text);
  return reply.json.returnedStationID as number;
}

function ruleText(slug: string, name: string, rule: string): string {
  return `${slug} (${name}) breaks rule "${rule}"`;
}

/** add-data refuses with 400 {error} containing `needle`, and writes nothing. */
async function assertAddRefused(values: Record<string, unknown>, needle: string, bloc = blocId): Promise<void> {
  const before = await count(bloc);
  const reply = await add(values, bloc);
  assert.equal(reply.status, 400, `${JSON.stringify(values)} → ${reply.status} ${reply.text}`);
  // A rule refusal names each failing field under `fields` too (test/multi-field-refusals.test.ts); other refusals do not.
  const rule = needle.includes("breaks rule");
  assert.deepEqual(keysOf(reply.json), rule ? ["error", "fields"] : ["error"]);
  assert.ok(String(reply.json.error).includes(needle), `"${reply.json.error}" should contain ${needle}`);
  if (rule) assert.ok(Object.values(reply.json.fields).some((text) => String(text).includes(needle)), `fields should name ${needle}`);
  assert.equal(await count(bloc), before, "a refused add writes nothing");
}

/** update-records refuses with 400 {message} containing `needle`, and changes no record of the bloc. */
async function assertUpdateRefused(
  set: Record<string, unknown>, search: Record<string, unknown>, needle: string, bloc = blocId,
): Promise<void> {
  const before = await storedRecords(server, bloc);
  const reply = await update(set, search, bloc);
  assert.equal(reply.status, 400, `${JSON.stringify(set)} → ${reply.status} ${reply.text}`);
  const rule = needle.includes("breaks rule");
  assert.deepEqual(keysOf(reply.json), rule ? ["fields", "message"] : ["message"]);
  assert.ok(String(reply.json.message).includes(needle), `"${reply.json.message}" should contain ${needle}`);
  if (rule) assert.ok(Object.values(reply.json.fields).some((text) => String(text).includes(needle)), `fields should name ${needle}`);
  assert.deepEqual(await storedRecords(server, bloc), before, "a refused update changes nothing");
}

interface Case {
  readonly what: string;
  readonly slug: string;
  readonly name: string;
  readonly rule: string;
  readonly valid: readonly string[];
  readonly invalid: readonly string[];
}

const CASES: readonly Case[] = [
  { what: "type number", slug: "field_1", name: "Qty", rule: "number",
    valid: ["12", "-3.5", "0.25", "1e3", ""], invalid: ["12abc", "1,5", "abc", "+1", " 12", "0x10", "NaN"] },
  { what: "type date", slug: "field_2", name: "Day", rule: "date",
    valid: ["2026-11-21", "2024-02-29"], invalid: ["2026-02-30", "2026-13-01", "21/11/2026", "2026-11-21 10:00:00", "2026-1-5", "2025-02-29"] },
  { what: "type datetime", slug: "field_3", name: "When", rule: "datetime",
    valid: ["2026-11-21 18:30:00", "2024-02-29 23:59:59"],
    invalid: ["2026-11-21", "2026-11-21T18:30:00", "2026-11-21 24:00:00", "2026-11-21 18:60:00", "2025-02-29 10:00:00"] },
  { what: "type select", slug: "field_4", name: "Colour", rule: "options",
    valid: ["red", "blue", ""], invalid: ["Red", "purple", "red "] },
  { what: "rule required", slug: "field_8", name: "Code", rule: "required",
    valid: ["C-9", "0"], invalid: [""] },
  { what: "rule maxLength", slug: "field_10", name: "Short", rule: "maxLength",
    valid: ["abcde", "a", "ééééé", "😀😀😀😀😀"], invalid: ["abcdef", "😀😀😀😀😀😀"] },
  { what: "rule pattern", slug: "field_11", name: "Plate", rule: "pattern",
    valid: ["AB-12", "ZZ-0"], invalid: ["ab-12", "AB-12x", "xAB-12", "AB-", "ABC-1"] },
];

describe("field rules: add-data and update-records per type and rule", () => {
  for (const c of CASES) {
    test(`${c.what}: add-data stores each valid value`, async () => {
      for (const value of c.valid) {
        const id = await added(withRequired({ [c.slug]: value }));
        assert.equal((await valuesOf(id))[c.slug], value, `${c.slug} = ${JSON.stringify(value)}`);
      }
    });

    test(`${c.what}: add-data refuses each invalid value with 400 {error} naming ${c.slug} and "${c.rule}"`, async () => {
      for (const value of c.invalid) {
        await assertAddRefused(withRequired({ field_7: "refused", [c.slug]: value }), ruleText(c.slug, c.name, c.rule));
      }
    });

    test(`${c.what}: update-records sets a valid value and refuses an invalid one with 400 {message}`, async () => {
      const tag = `upd-${c.slug}`;
      const id = await added(withRequired({ field_7: tag }));
      for (const value of c.valid) {
        const reply = await update({ [c.slug]: value }, { field_7: tag });
        assert.equal(reply.status, 200, reply.text);
        assert.deepEqual(reply.json, { updated_record_ids: [id] });
        assert.equal((await valuesOf(id))[c.slug], value);
      }
      for (const value of c.invalid) {
        await assertUpdateRefused({ field_7: "changed", [c.slug]: value }, { field_7: tag }, ruleText(c.slug, c.name, c.rule));
      }
    });
  }

  test("a number sent as a JSON number is stored in its string form and passes the number rule", async () => {
    const id = await added(withRequired({ field_1: 12.5 }));
    assert.equal((await valuesOf(id)).field_1, "12.5");
  });

  test("rule required: a record that leaves the required field out, or sends null, is refused", async () => {
    await assertAddRefused({ field_7: "no code" }, ruleText("field_8", "Code", "required"));
    await assertAddRefused({ field_7: "null code", field_8: null }, ruleText("field_8", "Code", "required"));
  });

  test("rule required: an update that does not touch the required field is accepted", async () => {
    const id = await added(withRequired({ field_7: "req-untouched" }));
    const reply = await update({ field_1: "5" }, { field_7: "req-untouched" });
    assert.equal(reply.status, 200, reply.text);
    const values = await valuesOf(id);
    assert.equal(values.field_1, "5");
    assert.equal(values.field_8, "C-1");
  });

  test("type text: accepts any string; a value that is not a string, number, boolean or null is refused", async () => {
    const id = await added(withRequired({ field_7: "anything: 12/13/2026, 😀, <b>" }));
    assert.equal((await valuesOf(id)).field_7, "anything: 12/13/2026, 😀, <b>");
    await assertAddRefused(withRequired({ field_7: { nested: 1 } }), "field_7");
    await assertUpdateRefused({ field_7: ["a"] }, { service_entry_row_id: String(id) }, "field_7");
  });

  test("a refused record writes none of its other, valid values either", async () => {
    const before = await count();
    await assertAddRefused(withRequired({ field_7: "partial", field_1: "7", field_9: "partial-serial", field_2: "2026-02-30" }),
      ruleText("field_2", "Day", "date"));
    assert.equal(await count(), before);
    // The unique value of the refused record is still free.
    await added(withRequired({ field_9: "partial-serial" }));
  });

  test("an update whose second field breaks a rule changes neither field", async () => {
    const id = await added(withRequired({ field_7: "two-fields", field_1: "1" }));
    await assertUpdateRefused({ field_1: "2", field_4: "purple" }, { field_7: "two-fields" }, ruleText("field_4", "Colour", "options"));
    assert.equal((await valuesOf(id)).field_1, "1");
  });
});

describe("field rules: unique", () => {
  test("add-data: a value no other record holds is accepted; the same value again is refused", async () => {
    const id = await added(withRequired({ field_9: "S-1" }));
    assert.equal((await valuesOf(id)).field_9, "S-1");
    await assertAddRefused(withRequired({ field_9: "S-1" }), ruleText("field_9", "Serial", "unique"));
    // Exact equality: another case is another value.
    await added(withRequired({ field_9: "s-1" }));
  });

  test("add-data: empty values are not unique values; several records may leave the field empty", async () => {
    await added(withRequired({ field_9: "" }));
    await added(withRequired({ field_9: "" }));
    await added(withRequired({ field_7: "no serial" }));
  });

  test("add-data: 20 concurrent adds of one unique value store exactly one record", async () => {
    const before = await count();
    const replies = await Promise.all(Array.from({ length: 20 }, () => add(withRequired({ field_9: "S-race" }))));
    const statuses = replies.map((r) => r.status).sort();
    assert.deepEqual(statuses, [200, ...Array<number>(19).fill(400)]);
    for (const reply of replies.filter((r) => r.status === 400)) {
      assert.ok(String(reply.json.error).includes(ruleText("field_9", "Serial", "unique")), reply.text);
    }
    assert.equal(await count(), before + 1);
    const holders = (await storedRecords(server, blocId)).filter((r) => r.values.field_9 === "S-race");
    assert.equal(holders.length, 1);
  });

  test("update-records: setting a value another record holds is refused with 400 {message}", async () => {
    await added(withRequired({ field_7: "u-a", field_9: "S-10" }));
    const b = await added(withRequired({ field_7: "u-b", field_9: "S-11" }));
    await assertUpdateRefused({ field_9: "S-10" }, { field_7: "u-b" }, ruleText("field_9", "Serial", "unique"));
    assert.equal((await valuesOf(b)).field_9, "S-11");
  });

  test("update-records: one value set on several matched records is refused, and none of them changes", async () => {
    await added(withRequired({ field_7: "u-pair", field_9: "S-20" }));
    await added(withRequired({ field_7: "u-pair", field_9: "S-21" }));
    await assertUpdateRefused({ field_9: "S-22" }, { field_7: "u-pair" }, ruleText("field_9", "Serial", "unique"));
    const pair = (await storedRecords(server, blocId)).filter((r) => r.values.field_7 === "u-pair");
    assert.deepEqual(pair.map((r) => r.values.field_9).sort(), ["S-20", "S-21"]);
  });

  test("update-records: a record may keep its own value, take a free one, and several may be emptied", async () => {
    const a = await added(withRequired({ field_7: "u-own", field_9: "S-30" }));
    let reply = await update({ field_9: "S-30", field_1: "3" }, { field_7: "u-own" });
    assert.equal(reply.status, 200, reply.text);
    reply = await update({ field_9: "S-31" }, { field_7: "u-own" });
    assert.equal(reply.status, 200, reply.text);
    assert.equal((await valuesOf(a)).field_9, "S-31");
    // The old value is free again.
    await added(withRequired({ field_9: "S-30" }));

    await added(withRequired({ field_7: "u-empty", field_9: "S-40" }));
    await added(withRequired({ field_7: "u-empty", field_9: "S-41" }));
    reply = await update({ field_9: "" }, { field_7: "u-empty" });
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.json.updated_record_ids.length, 2);
  });
});

describe("field rules: autogenerate and file fields", () => {
  test("autogenerate: add-data fills the field; update-records may set a free value but not a taken one", async () => {
    const first = await added(withRequired({ field_7: "ag-1" }));
    const second = await added(withRequired({ field_7: "ag-2" }));
    const taken = (await valuesOf(first)).field_6!;
    assert.match(taken, /^R-\d{3}$/);
    assert.match((await valuesOf(second)).field_6!, /^R-\d{3}$/);
    assert.notEqual((await valuesOf(second)).field_6, taken);

    await assertUpdateRefused({ field_6: taken }, { field_7: "ag-2" }, ruleText("field_6", "Ref", "unique"));
    const reply = await update({ field_6: "R-900" }, { field_7: "ag-2" });
    assert.equal(reply.status, 200, reply.text);
    assert.equal((await valuesOf(second)).field_6, "R-900");
  });

  test("file: a string value through JSON add-data is refused with 400 {error} naming the field", async () => {
    await assertAddRefused(withRequired({ field_5: "some-other-files-ref" }), "field_5");
    const reply = await add(withRequired({ field_5: "x" }));
    assert.match(String(reply.json.error), /file/);
  });

  test("file: update-records cannot point a file field at a string either (400 {message})", async () => {
    await added(withRequired({ field_7: "file-upd" }));
    await assertUpdateRefused({ field_5: "some-other-files-ref" }, { field_7: "file-upd" }, "field_5");
  });

  test("file: a required file field refuses a record without the file and accepts one with it (multipart)", async () => {
    const bloc = await createBloc({ name: "Photos", fields: [{ name: "Photo", type: "file", required: true }, { name: "Label" }] });
    await assertAddRefused({ field_2: "no photo" }, ruleText("field_1", "Photo", "required"), bloc);
    const reply = await postMultipart(server.url, server.adminToken, { scanStationID: bloc, dataToAdd: JSON.stringify({ field_2: "with photo" }) },
      [{ slug: "field_1", content: Buffer.from("fake png bytes"), filename: "p.png", type: "image/png" }]);
    assert.equal(reply.status, 200, reply.text);
    const values = await valuesOf(reply.json.returnedStationID as number, bloc);
    assert.equal(values.field_2, "with photo");
    assert.ok(values.field_1 && values.field_1.length > 0, "the file field holds a reference");
  });
});

describe("field definitions", () => {
  test("GET /api/admin/blocs/:blocId shows each field's type and rules", async () => {
    const reply = await server.call("GET", `/api/admin/blocs/${blocId}`);
    assert.equal(reply.status, 200, reply.text);
    const fields = reply.json.fields as Record<string, unknown>[];
    const rules = (f: Record<string, unknown>) => ({
      slug: f.slug, name: f.name, type: f.type, options: f.options, required: f.required,
      unique: f.unique, maxLength: f.maxLength, pattern: f.pattern, format: f.format,
    });
    const text = { type: "text", options: null, required: false, unique: false, maxLength: null, pattern: null, format: null };
    assert.deepEqual(fields.map(rules), [
      { slug: "field_1", name: "Qty", ...text, type: "number" },
      { slug: "field_2", name: "Day", ...text, type: "date" },
      { slug: "field_3", name: "When", ...text, type: "datetime" },
      { slug: "field_4", name: "Colour", ...text, type: "select", options: ["red", "green", "blue"] },
      { slug: "field_5", name: "Doc", ...text, type: "file" },
      { slug: "field_6", name: "Ref", ...text, type: "autogenerate", format: "R-{seq:3}" },
      { slug: "field_7", name: "Note", ...text },
      { slug: "field_8", name: "Code", ...text, required: true },
      { slug: "field_9", name: "Serial", ...text, unique: true },
      { slug: "field_10", name: "Short", ...text, maxLength: 5 },
      { slug: "field_11", name: "Plate", ...text, pattern: "[A-Z]{2}-\\d+" },
    ]);
  });

  const BAD_FIELDS: readonly [string, Record<string, unknown>][] = [
    ["a select without options", { name: "S", type: "select" }],
    ["a select with an empty options list", { name: "S", type: "select", options: [] }],
    ["an autogenerate field without a format", { name: "A", type: "autogenerate" }],
    ["an autogenerate format with two counters", { name: "A", type: "autogenerate", format: "X-{seq:5}-{seq:2}" }],
    ["an autogenerate format with an unknown part", { name: "A", type: "autogenerate", format: "{foo}" }],
    ["an autogenerate format with no counter", { name: "A", type: "autogenerate", format: "INV-{YYYY}" }],
    ["an autogenerate format with an unclosed brace", { name: "A", type: "autogenerate", format: "INV-{seq:5" }],
    ["an autogenerate format with a zero width", { name: "A", type: "autogenerate", format: "INV-{seq:0}" }],
    ["an autogenerate format counting by a field the bloc lacks", { name: "A", type: "autogenerate", format: "{seq:4 by nope}" }],
    ["a pattern that is not a regular expression", { name: "P", pattern: "([a-z" }],
    ["options on a text field", { name: "T", options: ["a", "b"] }],
    ["a format on a text field", { name: "T", format: "INV-{seq:5}" }],
    ["a maxLength of 0", { name: "T", maxLength: 0 }],
    ["a fractional maxLength", { name: "T", maxLength: 2.5 }],
    ["an unknown type", { name: "T", type: "colour" }],
  ];

  for (const [what, field] of BAD_FIELDS) {
    test(`${what} is refused with 400 {error} at bloc creation and at field creation`, async () => {
      const blocsBefore = (await server.call("GET", "/api/admin/blocs")).json.blocs.length as number;
      const created = await server.call("POST", "/api/admin/blocs", { json: { name: "Bad", fields: [{ name: "Other" }, field] } });
      assert.equal(created.status, 400, `${JSON.stringify(field)} → ${created.status} ${created.text}`);
      assert.deepEqual(keysOf(created.json), ["error"]);
      assert.equal((await server.call("GET", "/api/admin/blocs")).json.blocs.length, blocsBefore, "no bloc was made");

      const target = await createBloc({ name: "Target", fields: [{ name: "Other" }] });
      const addedField = await server.call("POST", `/api/admin/blocs/${target}/fields`, { json: field });
      assert.equal(addedField.status, 400, `${JSON.stringify(field)} → ${addedField.status} ${addedField.text}`);
      assert.deepEqual(keysOf(addedField.json), ["error"]);
      const bloc = await server.call("GET", `/api/admin/blocs/${target}`);
      assert.deepEqual(bloc.json.fields.map((f: { slug: string }) => f.slug), ["field_1"], "no field was added");
    });
  }

  const BAD_PATCHES: readonly [string, Record<string, unknown>][] = [
    ["type select without options", { type: "select" }],
    ["type autogenerate without a format", { type: "autogenerate" }],
    ["type autogenerate with two counters", { type: "autogenerate", format: "X-{seq:5}-{seq:2}" }],
    ["type autogenerate with {foo}", { type: "autogenerate", format: "{foo}" }],
    ["a bad pattern", { pattern: "(unclosed" }],
    ["options on a text field", { options: ["a"] }],
  ];

  for (const [what, patch] of BAD_PATCHES) {
    test(`PATCH of a field with ${what} → 400 {error}, and the field is unchanged`, async () => {
      const target = await createBloc({ name: "Patched", fields: [{ name: "Plain", maxLength: 10 }] });
      const before = (await server.call("GET", `/api/admin/blocs/${target}`)).json.fields;
      const reply = await server.call("PATCH", `/api/admin/blocs/${target}/fields/field_1`, { json: patch });
      assert.equal(reply.status, 400, `${JSON.stringify(patch)} → ${reply.status} ${reply.text}`);
      assert.deepEqual(keysOf(reply.json), ["error"]);
      assert.deepEqual((await server.call("GET", `/api/admin/blocs/${target}`)).json.fields, before);
    });
  }

  test("PATCH of a field changes its rules, and add-data and update-records enforce the new ones at once", async () => {
    const target = await createBloc({ name: "Evolving", fields: [{ name: "Size" }, { name: "Tag" }] });
    await added({ field_1: "huge", field_2: "old" }, target);

    let reply = await server.call("PATCH", `/api/admin/blocs/${target}/fields/field_1`, {
      json: { type: "select", options: ["S", "M", "L"], required: true },
    });
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.json.type, "select");
    assert.deepEqual(reply.json.options, ["S", "M", "L"]);
    assert.equal(reply.json.required, true);
    const shown = (await server.call("GET", `/api/admin/blocs/${target}`)).json.fields[0];
    assert.equal(shown.type, "select");
    assert.deepEqual(shown.options, ["S", "M", "L"]);
    assert.equal(shown.required, true);

    await assertAddRefused({ field_1: "XL" }, ruleText("field_1", "Size", "options"), target);
    await assertAddRefused({ field_2: "no size" }, ruleText("field_1", "Size", "required"), target);
    await added({ field_1: "M" }, target);
    await assertUpdateRefused({ field_1: "huge" }, { field_2: "old" }, ruleText("field_1", "Size", "options"), target);

    reply = await server.call("PATCH", `/api/admin/blocs/${target}/fields/field_2`, { json: { unique: true, pattern: "[a-z]+", maxLength: 4 } });
    assert.equal(reply.status, 200, reply.text);
    await assertAddRefused({ field_1: "S", field_2: "old" }, ruleText("field_2", "Tag", "unique"), target);
    await assertAddRefused({ field_1: "S", field_2: "NEW" }, ruleText("field_2", "Tag", "pattern"), target);
    await assertAddRefused({ field_1: "S", field_2: "abcde" }, ruleText("field_2", "Tag", "maxLength"), target);
    await added({ field_1: "S", field_2: "abcd" }, target);

    // Back to plain text: the select's options must be cleared with it.
    reply = await server.call("PATCH", `/api/admin/blocs/${target}/fields/field_1`, { json: { type: "text", options: null, required: false } });
    assert.equal(reply.status, 200, reply.text);
    await added({ field_1: "XL" }, target);
  });

  test("PATCH of an unknown field → 404 {error}", async () => {
    const reply = await server.call("PATCH", `/api/admin/blocs/${blocId}/fields/field_99`, { json: { required: true } });
    assert.equal(reply.status, 404, reply.text);
    assert.deepEqual(keysOf(reply.json), ["error"]);
  });
});

import { test } from "node:test";
import assert from "node:assert/strict";
import { call } from "./support/http.js";
import { CLI_ENTRY, freshWorkspace, runToEnd, startProcess } from "./support/process.js";
import { Receiver, signedWith } from "./support/receiver.js";
import type { JsonBody } from "./support/json.js";

/** Runs `bloc-data <args>` in cwd, expects exit 0 and returns the JSON it printed. */
function cliIn(env: Record<string, string>, cwd: string): (...args: string[]) => Promise<JsonBody> {
  return async (...args) => {
    const result = await runToEnd(CLI_ENTRY, args, env, cwd);
    assert.equal(result.code, 0, `bloc-data ${args.join(" ")}: ${result.stderr}`);
    return JSON.parse(result.stdout);
  };
}

test("the CLI sets up a store that the server then serves", async () => {
  // On SQLite the URL stays relative (sqlite:./store/bloc.db): CLI and server must resolve it alike.
  const { cwd, databaseUrl, remove } = await freshWorkspace("cli", "./store");
  const env = { DATABASE_URL: databaseUrl, BLOC_ID_STYLE: "numeric" };
  const cli = cliIn(env, cwd);
  try {
    const init = await cli("init");
    assert.equal(init.user.role, "admin");
    assert.match(init.token, /^bds_[A-Za-z0-9_-]{43}$/);
    const user = await cli("user", "add", "Line 2 scanner");
    const bloc = await cli("bloc", "add", "Scans", "--field", "Part", "--field", "Line");
    assert.equal(bloc.id, "1");
    assert.deepEqual(bloc.fields.map((f: { slug: string }) => f.slug), ["field_1", "field_2"]);
    const field = await cli("field", "add", bloc.id, "Shift", "--slug", "shift");
    assert.deepEqual(field, {
      slug: "shift", name: "Shift", applyProfileFilter: false,
      type: "text", options: null, required: false, unique: false, maxLength: null, pattern: null, format: null, indexed: false,
    });
    assert.deepEqual(await cli("grant", bloc.id, user.id, "read,add"),
      { blocId: "1", userId: user.id, read: true, add: true, update: false, delete: false, seeHidden: false });
    const token = await cli("token", "add", user.id, "--name", "scanner");
    const spare = await cli("token", "add", user.id);
    await cli("token", "revoke", spare.id);

    const server = await startProcess(env, cwd);
    try {
      const added = await call(server.url, "POST", "/api/add-data", {
        token: token.token, json: { scanStationID: 1, dataToAdd: { field_1: "P-1", shift: "night" } },
      });
      assert.equal(added.status, 200, added.text);
      const read = await call(server.url, "GET", "/api/get-data", { token: token.token, json: { blocId: "1" } });
      assert.equal(read.json.data["0"].shift, "night");
      const updated = await call(server.url, "POST", "/api/update-records-by-matching-values", {
        token: token.token, json: { blocId: "1", fieldsToUpdate: { shift: "day" }, searchItems: { shift: "night" } },
      });
      assert.equal(updated.status, 401, "no update permission was granted");
      const revoked = await call(server.url, "GET", "/api/get-data", { token: spare.token, json: { blocId: "1" } });
      assert.equal(revoked.status, 401);
      const admin = await call(server.url, "GET", "/api/admin/blocs", { token: init.token });
      assert.equal(admin.json.blocs.length, 1);
    } finally {
      await server.stop();
    }
  } finally {
    await remove();
  }
});

test("the CLI refuses a bad command with its usage and exit code 2, and a failure with one line", async () => {
  // On SQLite this is the default URL, sqlite:./data/bloc.db, now named so that PostgreSQL can replace it.
  const { cwd, databaseUrl, remove } = await freshWorkspace("cli-errors", "./data");
  const env = { DATABASE_URL: databaseUrl };
  try {
    const usage = await runToEnd(CLI_ENTRY, ["bloc", "explode", "x"], env, cwd);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /unknown command/);
    assert.match(usage.stderr, /Usage: bloc-data/);
    const missing = await runToEnd(CLI_ENTRY, ["token", "add", "999"], env, cwd);
    assert.equal(missing.code, 1);
    assert.equal(missing.stderr.trim(), 'bloc-data: User "999" does not exist');
  } finally {
    await remove();
  }
});

test("the CLI's access verbs configure what /api/me then reports", async () => {
  const { cwd, databaseUrl, remove } = await freshWorkspace("cli-access", "./store");
  const env = { DATABASE_URL: databaseUrl };
  const cli = cliIn(env, cwd);
  try {
    await cli("init");
    const user = await cli("user", "add", "Ann");
    const bloc = await cli("bloc", "add", "Scans", "--field", "Part", "--field", "Site", "--id", "scans");
    assert.equal((await cli("field", "set", "scans", "field_2", "--profile-filter", "true")).applyProfileFilter, true);
    assert.deepEqual((await cli("user", "profile", user.id, "Dublin", "Cork")).profile, ["Dublin", "Cork"]);
    const role = await cli("role", "add", "leads");
    await cli("role", "assign", user.id, role.id);
    assert.deepEqual(await cli("role", "grant", bloc.id, role.id, "read,seeHidden"),
      { blocId: "scans", roleId: role.id, read: true, add: false, update: false, delete: false, seeHidden: true });
    await cli("grant", bloc.id, user.id, "add");
    const settings = await cli("bloc", "set", bloc.id, "--restriction", "hidden", "--open-to-all", "false");
    assert.equal(settings.restriction, "hidden");
    await cli("restrict", bloc.id, user.id, "own");
    const shown = await cli("user", "show", user.id);
    assert.deepEqual(shown.roles, [{ id: role.id, name: "leads" }]);
    const token = await cli("token", "add", user.id, "--permissions", "read", "--blocs", "scans");

    const server = await startProcess(env, cwd);
    try {
      const me = await call(server.url, "GET", "/api/me", { token: token.token });
      assert.deepEqual(me.json.blocs, [{ id: "scans", name: "Scans", permissions: ["read"], restriction: "own", seeHidden: true }]);
      assert.deepEqual(me.json.token, { permissions: ["read"], blocs: ["scans"] });
    } finally {
      await server.stop();
    }
    await cli("restrict", bloc.id, user.id, "default");
    const bad = await runToEnd(CLI_ENTRY, ["restrict", bloc.id, user.id, "everything"], env, cwd);
    assert.equal(bad.code, 2);
  } finally {
    await remove();
  }
});

test("bloc-data history prints what the admin API answers for a record's history", async () => {
  const { cwd, databaseUrl, remove } = await freshWorkspace("cli-history");
  const env = { DATABASE_URL: databaseUrl };
  const cli = (...args: string[]): ReturnType<typeof runToEnd> => runToEnd(CLI_ENTRY, args, env, cwd);
  try {
    const init = await cli("init");
    assert.equal(init.code, 0, init.stderr);
    const admin = JSON.parse(init.stdout).token as string;
    const bloc = JSON.parse((await cli("bloc", "add", "Scans", "--field", "Part", "--id", "scans")).stdout);
    const server = await startProcess(env, cwd);
    let endpoint: unknown;
    try {
      const added = await call(server.url, "POST", "/api/add-data", { token: admin, json: { scanStationID: bloc.id, dataToAdd: { field_1: "P-1" } } });
      const id = added.json.returnedStationID as number;
      for (const value of ["P-2", "P-3"]) {
        const updated = await call(server.url, "POST", "/api/update-records-by-matching-values", {
          token: admin, json: { blocId: bloc.id, fieldsToUpdate: { field_1: value }, searchItems: { service_entry_row_id: id } },
        });
        assert.equal(updated.status, 200, updated.text);
      }
      const reply = await call(server.url, "GET", `/api/admin/blocs/scans/records/${id}/history`, { token: admin });
      assert.equal(reply.status, 200, reply.text);
      endpoint = reply.json;
    } finally {
      await server.stop();
    }
    const printed = await cli("history", "scans", "1");
    assert.equal(printed.code, 0, printed.stderr);
    assert.deepEqual(JSON.parse(printed.stdout), endpoint);
    assert.deepEqual(JSON.parse(printed.stdout).history.map((e: { changes: unknown }) => e.changes),
      [{ field_1: { from: "P-1", to: "P-2" } }, { field_1: { from: "P-2", to: "P-3" } }]);
    const missing = await cli("history", "scans", "42");
    assert.equal(missing.code, 1);
    assert.equal(missing.stderr, "bloc-data: Record \"42\" does not exist in bloc \"scans\"\n");
    const usage = await cli("history", "scans");
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /missing <recordId>/);
  } finally {
    await remove();
  }
});

test("bloc-data init makes one admin however often it runs; --new-admin makes another; user list and token list show them", async () => {
  const { cwd, databaseUrl, remove } = await freshWorkspace("cli-init", "./store");
  const env = { DATABASE_URL: databaseUrl };
  const cli = cliIn(env, cwd);
  try {
    const first = await cli("init");
    assert.equal(first.user.role, "admin");
    const again = await cli("init");
    assert.equal(again.adminExists, true);
    assert.deepEqual(again.admins, [{ id: first.user.id, name: "admin" }]);
    assert.match(again.message, /admin exists/);
    assert.equal(again.token, undefined, "no token is printed: none was made");
    assert.deepEqual((await cli("user", "list")).users.map((u: { id: string }) => u.id), [first.user.id]);

    const second = await cli("init", "--new-admin", "--name", "Second admin");
    assert.equal(second.user.role, "admin");
    assert.notEqual(second.user.id, first.user.id);
    const member = await cli("user", "add", "Ann");
    const users = (await cli("user", "list")).users;
    assert.deepEqual(users, [
      { id: first.user.id, name: "admin", role: "admin", profile: [], email: null, disabled: false },
      { id: second.user.id, name: "Second admin", role: "admin", profile: [], email: null, disabled: false },
      { id: member.id, name: "Ann", role: "member", profile: [], email: null, disabled: false },
    ]);

    const listed = (await cli("token", "list", first.user.id)).tokens;
    assert.equal(listed.length, 1);
    assert.equal(listed[0].id, first.id);
    assert.equal(listed[0].name, "init");
    assert.equal(listed[0].lastUsedAt, null);
    assert.ok(!JSON.stringify(listed).includes(first.token));

    const server = await startProcess(env, cwd);
    try {
      const reply = await call(server.url, "GET", `/api/admin/users/${first.user.id}/tokens`, { token: first.token });
      assert.equal(reply.status, 200, reply.text);
      assert.equal(reply.json.tokens[0].id, first.id);
    } finally {
      await server.stop();
    }
    const used = (await cli("token", "list", first.user.id)).tokens;
    assert.match(used[0].lastUsedAt, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/, "the server noted the token's use");
    const unknown = await runToEnd(CLI_ENTRY, ["token", "list", "424242"], env, cwd);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /^bloc-data: User "424242" does not exist/);
  } finally {
    await remove();
  }
});

test("bloc-data webhook add, list, deliveries and remove: a webhook made by the CLI is served by the server", async () => {
  const { cwd, databaseUrl, remove } = await freshWorkspace("cli-webhook", "./store");
  const env = { DATABASE_URL: databaseUrl, BLOC_EVENTS_POLL_MS: "100" };
  const cli = cliIn(env, cwd);
  const receiver = await Receiver.start();
  try {
    const init = await cli("init");
    const bloc = await cli("bloc", "add", "Scans", "--field", "Part");
    const made = await cli("webhook", "add", receiver.url, "--blocs", bloc.id, "--events", "record.added,bloc.updated",
      "--secret", "cli-webhook-secret-1234");
    assert.deepEqual({ ...made, id: "", createdAt: "" }, {
      id: "", url: receiver.url, blocs: [bloc.id], events: ["record.added", "bloc.updated"], createdAt: "", secret: "cli-webhook-secret-1234",
    });
    assert.deepEqual((await cli("webhook", "list")).webhooks.map((w: { id: string; secret?: string }) => [w.id, w.secret]), [[made.id, undefined]]);
    // A config change made by the CLI is an event too, in the same transaction as the change.
    await cli("field", "add", bloc.id, "Line");

    const server = await startProcess(env, cwd);
    try {
      const added = await call(server.url, "POST", "/api/add-data", {
        token: init.token, json: { scanStationID: bloc.id, dataToAdd: { field_1: "P-1" } },
      });
      assert.equal(added.status, 200, added.text);
      await receiver.until(() => receiver.acknowledged.length === 2, "2 events acknowledged");
    } finally {
      await server.stop();
    }
    assert.deepEqual(receiver.received.map((r) => r.body.type), ["bloc.updated", "record.added"]);
    assert.ok(receiver.received.every((r) => signedWith("cli-webhook-secret-1234", r)));
    const log = (await cli("webhook", "deliveries", made.id, "--limit", "5")).deliveries;
    assert.deepEqual(log.map((d: { type: string; outcome: string }) => [d.type, d.outcome]), [["record.added", "delivered"], ["bloc.updated", "delivered"]]);
    assert.deepEqual(await cli("webhook", "remove", made.id), { removed: made.id });
    assert.deepEqual((await cli("webhook", "list")).webhooks, []);
    const bad = await runToEnd(CLI_ENTRY, ["webhook", "add", "ftp://nowhere/"], env, cwd);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /^bloc-data: url must be an http:\/\/ or https:\/\/ URL/);
  } finally {
    await receiver.close();
    await remove();
  }
});

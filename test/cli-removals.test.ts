import { test } from "node:test";
import assert from "node:assert/strict";
import { CLI_ENTRY, freshWorkspace, runToEnd } from "./support/process.js";
import type { JsonBody } from "./support/json.js";

/** `bloc-data field retire`, `bloc access`, `role remove` and `bloc remove`: the admin API's removals without a server (issue 21). */

test("the CLI retires a field, lists a bloc's access, removes a role and a bloc", async () => {
  const { cwd, databaseUrl, remove } = await freshWorkspace("cli-removals", "./store");
  const env = { DATABASE_URL: databaseUrl };
  const cli = async (...args: string[]): Promise<JsonBody> => {
    const result = await runToEnd(CLI_ENTRY, args, env, cwd);
    assert.equal(result.code, 0, `bloc-data ${args.join(" ")}: ${result.stderr}`);
    return JSON.parse(result.stdout);
  };
  try {
    await cli("init");
    const user = await cli("user", "add", "Ann");
    await cli("bloc", "add", "Scans", "--field", "Part", "--field", "Note", "--id", "scans");
    await cli("grant", "scans", user.id, "read,add");
    const role = await cli("role", "add", "leads");
    await cli("role", "grant", "scans", role.id, "read");
    await cli("restrict", "scans", user.id, "own");

    const access = await cli("bloc", "access", "scans");
    assert.deepEqual(access.grants.map((g: { userId: string; userName: string }) => [g.userId, g.userName]), [[user.id, "Ann"]]);
    assert.deepEqual([access.grants[0].read, access.grants[0].add, access.grants[0].update], [true, true, false], "as the admin API lists it");
    assert.deepEqual(access.roleGrants.map((g: { roleId: string; roleName: string }) => [g.roleId, g.roleName]), [[role.id, "leads"]]);
    assert.deepEqual(access.restrictions, [{ userId: user.id, userName: "Ann", mode: "own" }]);

    assert.deepEqual(await cli("field", "retire", "scans", "field_2"), { blocId: "scans", retired: "field_2" });
    const [bloc] = await cli("bloc", "list");
    assert.deepEqual(bloc.fields.map((f: { slug: string }) => f.slug), ["field_1"]);

    assert.deepEqual(await cli("role", "remove", role.id), { removed: role.id });
    assert.deepEqual((await cli("bloc", "access", "scans")).roleGrants, []);
    assert.deepEqual(await cli("role", "list"), []);

    assert.deepEqual(await cli("bloc", "remove", "scans"), { removed: "scans" });
    assert.deepEqual(await cli("bloc", "list"), []);
    const missing = await runToEnd(CLI_ENTRY, ["bloc", "remove", "scans"], env, cwd);
    assert.notEqual(missing.code, 0);
    assert.match(missing.stderr, /Bloc "scans" does not exist/);
  } finally {
    await remove();
  }
});

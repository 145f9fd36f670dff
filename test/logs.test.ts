import { test } from "node:test";
import assert from "node:assert/strict";
import crypto from "node:crypto";
import Database from "better-sqlite3";
import postgres from "postgres";
import { call } from "./support/http.js";
import { freshWorkspace, startProcess } from "./support/process.js";
import type { JsonBody } from "./support/json.js";

/**
 * Issue 9, logs: the server as `npm start` runs it, at BLOC_LOG_LEVEL=info, is sent tokens
 * (in the Authorization header and in query strings) and distinctive record values, and is
 * made to fail unexpectedly (a trigger refuses an insert, on PostgreSQL quoting the record
 * in its message). Every line it logs must be JSON with a request id, and none may hold a
 * token, an Authorization header, a query string or a record value; the 500 answer
 * carries no stack trace.
 */

/** Makes every insert of a record holding BOOM fail inside the database. */
async function sabotage(databaseUrl: string): Promise<void> {
  if (databaseUrl.startsWith("sqlite:")) {
    const db = new Database(databaseUrl.slice("sqlite:".length));
    try {
      db.exec(`CREATE TRIGGER boom BEFORE INSERT ON records WHEN instr(NEW.data, 'BOOM') > 0
        BEGIN SELECT RAISE(ABORT, 'refused'); END;`);
    } finally {
      db.close();
    }
    return;
  }
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => undefined });
  try {
    await sql.unsafe(`CREATE FUNCTION boom() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.data::text LIKE '%BOOM%' THEN RAISE EXCEPTION 'refused record %', NEW.data; END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER boom BEFORE INSERT ON records FOR EACH ROW EXECUTE FUNCTION boom();`);
  } finally {
    await sql.end();
  }
}

test("JSON log lines carry a request id and never a token, an Authorization header, a query string or a record value", async () => {
  const workspace = await freshWorkspace("logs");
  const admin = `logs-admin-${crypto.randomBytes(12).toString("hex")}`;
  const server = await startProcess({ DATABASE_URL: workspace.databaseUrl, BLOC_ADMIN_TOKEN: admin, BLOC_LOG_LEVEL: "info" }, workspace.cwd)
    .catch(async (error: unknown) => { await workspace.remove(); throw error; });
  let output = "";
  server.child.stdout!.on("data", (chunk: Buffer) => { output += chunk.toString(); });
  server.child.stderr!.on("data", (chunk: Buffer) => { output += chunk.toString(); });
  try {
    const as = (token: string) => (method: string, p: string, json?: unknown) =>
      call(server.url, method, p, { token, ...(json === undefined ? {} : { json }) });
    const asAdmin = as(admin);
    const bloc = (await asAdmin("POST", "/api/admin/blocs", { name: "Logged", fields: [{ name: "Part" }, { name: "Qty", type: "number" }] })).json;
    const user = (await asAdmin("POST", "/api/admin/users", { name: "logger" })).json;
    await asAdmin("PUT", `/api/admin/blocs/${bloc.id}/access/${user.id}`, { read: true, add: true, update: true });
    const token = (await asAdmin("POST", `/api/admin/users/${user.id}/tokens`, {})).json.token as string;
    const asMember = as(token);

    const value = `VALUE-${crypto.randomBytes(8).toString("hex")}`;
    const searched = `SEARCH-${crypto.randomBytes(8).toString("hex")}`;
    const badNumber = `NOTANUMBER-${crypto.randomBytes(8).toString("hex")}`;
    const boom = `BOOM-${crypto.randomBytes(8).toString("hex")}`;
    const queryToken = `bds_${crypto.randomBytes(20).toString("hex")}`;
    const secrets = [admin, token, value, searched, badNumber, boom, queryToken];

    assert.equal((await asMember("POST", "/api/add-data", { scanStationID: bloc.id, dataToAdd: { field_1: value } })).status, 200);
    assert.equal((await asMember("POST", "/api/update-records-by-matching-values", {
      blocId: bloc.id, fieldsToUpdate: { field_1: searched }, searchItems: { field_1: value } })).status, 200);
    const refused = await asMember("POST", "/api/add-data", { scanStationID: bloc.id, dataToAdd: { field_2: badNumber } });
    assert.equal(refused.status, 400, refused.text);
    // A token in the query string is not a way in (401), and must not reach the log either.
    const inQuery = await call(server.url, "GET", `/api/get-data?blocId=${bloc.id}&token=${queryToken}&access_token=${token}`);
    assert.equal(inQuery.status, 401, inQuery.text);
    assert.equal((await asMember("GET", `/api/get-data?blocId=${bloc.id}&note=${searched}`)).status, 200);

    await sabotage(workspace.databaseUrl);
    const failed = await asMember("POST", "/api/add-data", { scanStationID: bloc.id, dataToAdd: { field_1: boom } });
    assert.equal(failed.status, 500, failed.text);
    assert.deepEqual(failed.json, { error: "Internal server error" }, "no stack trace, no driver message");
    const failedId = failed.headers["x-request-id"];
    assert.match(String(failedId), /^[0-9a-f-]{36}$/, "the answer names its request id");

    await new Promise((resolve) => setTimeout(resolve, 300));
    const lines = output.split("\n").filter((line) => line.trim() !== "" && !line.startsWith("Bloc Data Service listening"));
    assert.ok(lines.length >= 10, `the requests were logged: ${lines.length} lines`);
    const entries = lines.map((line) => {
      try { return JSON.parse(line) as Record<string, JsonBody>; } catch { assert.fail(`a log line is not JSON: ${line.slice(0, 200)}`); }
    });
    for (const entry of entries.filter((e) => e.req !== undefined || e.res !== undefined || e.err !== undefined)) {
      assert.match(String(entry.reqId), /^[0-9a-f-]{36}$/, `a request's line carries its id: ${JSON.stringify(entry).slice(0, 200)}`);
    }
    const errorLine = entries.find((e) => e.level >= 50 && e.reqId === failedId);
    assert.ok(errorLine, "the unexpected failure is logged under the answer's request id");
    assert.equal(typeof errorLine.err.type, "string");
    assert.ok(Array.isArray(errorLine.err.stack) && errorLine.err.stack.length > 0, "with its stack frames");
    assert.equal(errorLine.err.message, undefined, "but not its message");

    const all = lines.join("\n");
    for (const secret of secrets) assert.equal(all.includes(secret), false, `the log holds ${secret.slice(0, 12)}…`);
    assert.doesNotMatch(all, /authorization|bearer/i);
    assert.doesNotMatch(all, /\?[^"\s]*=/, "no query string");
    assert.doesNotMatch(all, /refused record/, "no driver message");
  } finally {
    await server.stop();
    await workspace.remove();
  }
});

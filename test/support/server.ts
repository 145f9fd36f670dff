import crypto from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { FastifyInstance } from "fastify";
import { readConfig } from "../../src/config.js";
import type { Context } from "../../src/domain/context.js";
import { buildApp } from "../../src/http/app.js";
import { openContext } from "../../src/open-context.js";
import { freshDatabaseUrl, testFileLabel } from "./database.js";
import { call, type CallOptions, type Reply } from "./http.js";

export interface TestServer {
  readonly url: string;
  readonly dir: string;
  readonly ctx: Context;
  readonly adminToken: string;
  /** The DATABASE_URL the server runs on. */
  readonly databaseUrl: string;
  /** The Fastify instance, for what only it can tell (its routes). */
  readonly app: FastifyInstance;
  /** A request as `token` (the admin's unless given). */
  call(method: string, path: string, options?: CallOptions): Promise<Reply>;
  close(): Promise<void>;
}

/**
 * The real service on an ephemeral port over a fresh database of the engine under test
 * (see database.ts) and a temporary folder for files, configured through the same
 * environment reader as `npm start`.
 */
export async function startServer(env: Record<string, string> = {}): Promise<TestServer> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "bloc-test-"));
  const database = await freshDatabaseUrl(dir, testFileLabel());
  const adminToken = `test-admin-${crypto.randomBytes(16).toString("hex")}`;
  let ctx: Context | undefined;
  try {
    const config = readConfig({
      DATABASE_URL: database.url,
      BLOC_FILES_DIR: path.join(dir, "files"),
      BLOC_ADMIN_TOKEN: adminToken,
      BLOC_LOG_LEVEL: "silent",
      // The suite counts values from a handful of records on (package.json), so that small blocs exercise the value counters.
      ...(process.env.BLOC_COUNTED_ABOVE ? { BLOC_COUNTED_ABOVE: process.env.BLOC_COUNTED_ABOVE } : {}),
      // Tests seed whole blocs in one transaction; on a loaded two-core machine running both
      // engines' suites, such a seed has outlasted the 5 s production deadline. The tests of
      // the deadline (store-outage.test.ts) set their own.
      BLOC_STORE_TIMEOUT_MS: "30000",
      ...env,
    });
    ctx = await openContext(config);
    const opened = ctx;
    const app: FastifyInstance = await buildApp(opened, config);
    const url = await app.listen({ port: 0, host: "127.0.0.1" });
    return {
      url, dir, ctx: opened, adminToken, app, databaseUrl: database.url,
      call: (method, p, options = {}) => call(url, method, p, { token: adminToken, ...options }),
      async close() {
        await app.close();
        await opened.store.close();
        await database.drop();
        await fs.rm(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    // A server that failed to start leaves nothing behind: a PostgreSQL database would outlive the run.
    await ctx?.store.close();
    await database.drop();
    await fs.rm(dir, { recursive: true, force: true });
    throw error;
  }
}

export interface Member {
  readonly id: string;
  readonly token: string;
}

/** A member user with a token and, when given, a grant on a bloc, made through the admin API. */
export async function addMember(
  server: TestServer, grant?: { blocId: string; read?: boolean; add?: boolean; update?: boolean; delete?: boolean },
): Promise<Member> {
  const user = await server.call("POST", "/api/admin/users", { json: { name: "member", role: "member" } });
  if (user.status !== 201) throw new Error(`creating a user answered ${user.status} ${user.text}`);
  const token = await server.call("POST", `/api/admin/users/${user.json.id}/tokens`, { json: {} });
  if (token.status !== 201) throw new Error(`creating a token answered ${token.status} ${token.text}`);
  if (grant) {
    const { blocId, ...rights } = grant;
    const put = await server.call("PUT", `/api/admin/blocs/${blocId}/access/${user.json.id}`, { json: rights });
    if (put.status !== 200) throw new Error(`granting answered ${put.status} ${put.text}`);
  }
  return { id: user.json.id as string, token: token.json.token as string };
}

/** A bloc made through the admin API; fields get the default slugs field_1, field_2, … */
export async function addBloc(server: TestServer, name: string, fieldNames: readonly string[], id?: string): Promise<string> {
  const reply = await server.call("POST", "/api/admin/blocs", {
    json: { name, fields: fieldNames.map((n) => ({ name: n })), ...(id === undefined ? {} : { id }) },
  });
  if (reply.status !== 201) throw new Error(`creating a bloc answered ${reply.status} ${reply.text}`);
  return reply.json.id as string;
}

/** Adds a record as `token` and returns its ID. */
export async function addRecord(server: TestServer, blocId: string, values: Record<string, unknown>, token?: string): Promise<number> {
  const reply = await server.call("POST", "/api/add-data", {
    json: { scanStationID: blocId, dataToAdd: JSON.stringify(values) },
    ...(token === undefined ? {} : { token }),
  });
  if (reply.status !== 200) throw new Error(`add-data answered ${reply.status} ${reply.text}`);
  return reply.json.returnedStationID as number;
}

import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import crypto from "node:crypto";
import { makeClock } from "../src/domain/clock.js";
import type { Context } from "../src/domain/context.js";
import { SignInLockedError, UnauthenticatedError } from "../src/domain/errors.js";
import { SIGN_IN_ATTEMPTS, SIGN_IN_WINDOW_MS, signIn } from "../src/domain/sign-in.js";
import { authenticate } from "../src/domain/tokens.js";
import { testEngine } from "./support/database.js";
import { call, type Reply } from "./support/http.js";
import { CLI_ENTRY, freshWorkspace, runToEnd, startProcess } from "./support/process.js";
import { addBloc, addMember, startServer, type TestServer } from "./support/server.js";
import { SseClient } from "./support/sse.js";

/**
 * Issue 21, accounts: password sign-in (POST /api/authenticate), its lockout, disabled
 * users, passwords set by an admin and changed by their user. Time-dependent rules (the
 * lockout window, a session's expiry) are checked through the domain with a clock moved
 * by the test, over the same store the HTTP server uses.
 */

let server: TestServer;
let counter = 0;

before(async () => {
  server = await startServer({ BLOC_SESSION_HOURS: "3", BLOC_TIMEZONE: "UTC" });
});

after(async () => {
  await server?.close();
});

/** A fresh email and password, so that each test has its own lockout count. */
function account(): { email: string; password: string } {
  counter += 1;
  return { email: `user${counter}-${crypto.randomBytes(4).toString("hex")}@example.com`, password: `pw-${crypto.randomBytes(12).toString("hex")}` };
}

async function createUser(json: Record<string, unknown>): Promise<Reply> {
  return server.call("POST", "/api/admin/users", { json: { role: "member", ...json } });
}

async function userWithPassword(name = "Ann"): Promise<{ id: string; email: string; password: string }> {
  const { email, password } = account();
  const user = await createUser({ name, email, password });
  assert.equal(user.status, 201, user.text);
  return { id: user.json.id as string, email, password };
}

function authenticateCall(json: unknown, url = server.url): Promise<Reply> {
  return call(url, "POST", "/api/authenticate", { json });
}

/** The server's context with its clock stopped at `ms`. */
function at(ms: number): Context {
  return { ...server.ctx, now: makeClock("UTC", () => new Date(ms)) };
}

async function refusedWith<E extends Error>(promise: Promise<unknown>, kind: new (...args: never[]) => E): Promise<E> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof kind, `expected ${kind.name}, got ${String(error)}`);
    return error;
  }
  assert.fail(`expected ${kind.name}, but it succeeded`);
}

test(`the right email and password sign in: a token of that user, listed and revocable (${testEngine()})`, async () => {
  const ann = await userWithPassword("Ann");
  // The email is case-insensitive and trimmed.
  const reply = await authenticateCall({ email: `  ${ann.email.toUpperCase()} `, password: ann.password });
  assert.equal(reply.status, 200, reply.text);
  assert.deepEqual(Object.keys(reply.json).sort(), ["expiresAt", "token", "user"]);
  assert.deepEqual(reply.json.user, { id: ann.id, name: "Ann", role: "member" });
  assert.match(reply.json.expiresAt, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);

  const me = await call(server.url, "GET", "/api/me", { token: reply.json.token });
  assert.equal(me.status, 200, me.text);
  assert.equal(me.json.user.id, ann.id);
  assert.equal(me.json.user.email, ann.email);
  assert.equal(me.json.user.disabled, false);

  const tokens = await server.call("GET", `/api/admin/users/${ann.id}/tokens`);
  assert.equal(tokens.status, 200, tokens.text);
  assert.equal(tokens.json.tokens.length, 1);
  const [listed] = tokens.json.tokens;
  assert.equal(listed.name, "sign-in");
  assert.equal(listed.expiresAt, reply.json.expiresAt);
  assert.deepEqual(listed.scope, { permissions: null, blocs: null });

  assert.equal((await server.call("DELETE", `/api/admin/tokens/${listed.id}`)).status, 204);
  assert.equal((await call(server.url, "GET", "/api/me", { token: reply.json.token })).status, 401, "a revoked sign-in token is refused");
});

test("a wrong email and a wrong password get the same 401 and body", async () => {
  const ann = await userWithPassword();
  const wrongPassword = await authenticateCall({ email: ann.email, password: `${ann.password}x` });
  const wrongEmail = await authenticateCall({ email: `nobody-${ann.email}`, password: ann.password });
  const noPassword = await createUser({ name: "No password", email: account().email });
  assert.equal(noPassword.status, 201, noPassword.text);
  const withoutPassword = await authenticateCall({ email: noPassword.json.email, password: "anything-at-all" });
  for (const reply of [wrongPassword, wrongEmail, withoutPassword]) {
    assert.equal(reply.status, 401, reply.text);
    assert.deepEqual(reply.json, { error: "Wrong email or password" });
  }
  const missing = await authenticateCall({ email: ann.email });
  assert.equal(missing.status, 400, missing.text);
  assert.equal(typeof missing.json.error, "string");
});

test("a wrong email costs about what a wrong password costs (both check a hash)", async () => {
  const ann = await userWithPassword();
  const time = async (json: unknown): Promise<number> => {
    const started = process.hrtime.bigint();
    assert.equal((await authenticateCall(json)).status, 401);
    return Number(process.hrtime.bigint() - started) / 1e6;
  };
  // Separate emails for the unknown ones so that neither side reaches the lockout.
  const known: number[] = [];
  const unknown: number[] = [];
  for (let i = 0; i < 3; i += 1) {
    known.push(await time({ email: ann.email, password: `wrong-password-${i}` }));
    unknown.push(await time({ email: `nobody${i}-${ann.email}`, password: `wrong-password-${i}` }));
  }
  const median = (values: number[]): number => [...values].sort((a, b) => a - b)[1]!;
  // scrypt takes tens of milliseconds: an unknown email answered without it would take a few.
  assert.ok(median(unknown) > median(known) / 3, `unknown email ${median(unknown)} ms, wrong password ${median(known)} ms`);
});

test("after 5 failures for one email, 429 with Retry-After, even with the right password; other emails are not affected", async () => {
  const ann = await userWithPassword();
  const bob = await userWithPassword("Bob");
  for (let i = 0; i < SIGN_IN_ATTEMPTS; i += 1) {
    const reply = await authenticateCall({ email: ann.email, password: `wrong-${i}-password` });
    assert.equal(reply.status, 401, `attempt ${i + 1}: ${reply.text}`);
  }
  const locked = await authenticateCall({ email: ann.email.toUpperCase(), password: ann.password });
  assert.equal(locked.status, 429, locked.text);
  assert.equal(typeof locked.json.error, "string");
  assert.doesNotMatch(locked.text, new RegExp(ann.password));
  const retryAfter = Number(locked.headers["retry-after"]);
  assert.ok(retryAfter > 14 * 60 && retryAfter <= 15 * 60, `Retry-After ${locked.headers["retry-after"]}`);
  // An email that does not exist locks the same way: a 429 tells nothing about who exists.
  const nobody = `nobody-${ann.email}`;
  for (let i = 0; i < SIGN_IN_ATTEMPTS; i += 1) assert.equal((await authenticateCall({ email: nobody, password: "wrong-password" })).status, 401);
  assert.equal((await authenticateCall({ email: nobody, password: "wrong-password" })).status, 429);

  assert.equal((await authenticateCall({ email: bob.email, password: bob.password })).status, 200, "another email signs in");
});

test("the lockout ends when its 15-minute window passes; a success forgets earlier failures", async () => {
  const ann = await userWithPassword();
  const start = Date.now() + 60 * 60 * 1000;
  for (let i = 0; i < SIGN_IN_ATTEMPTS; i += 1) {
    await refusedWith(signIn(at(start + i * 1000), ann.email, "wrong-password", 3), UnauthenticatedError);
  }
  const locked = await refusedWith(signIn(at(start + 10 * 60 * 1000), ann.email, ann.password, 3), SignInLockedError);
  assert.equal(locked.retryAfterSeconds, 5 * 60, "until the window that began at the first failure passes");
  await refusedWith(signIn(at(start + SIGN_IN_WINDOW_MS - 1000), ann.email, ann.password, 3), SignInLockedError);
  const signedIn = await signIn(at(start + SIGN_IN_WINDOW_MS), ann.email, ann.password, 3);
  assert.equal(signedIn.user.id, ann.id);

  // Four failures, then a success: the count starts again, so four more failures do not lock.
  const later = start + 2 * SIGN_IN_WINDOW_MS;
  for (let i = 0; i < SIGN_IN_ATTEMPTS - 1; i += 1) await refusedWith(signIn(at(later), ann.email, "wrong-password", 3), UnauthenticatedError);
  await signIn(at(later), ann.email, ann.password, 3);
  for (let i = 0; i < SIGN_IN_ATTEMPTS - 1; i += 1) await refusedWith(signIn(at(later), ann.email, "wrong-password", 3), UnauthenticatedError);
  await signIn(at(later), ann.email, ann.password, 3);
});

test("a sign-in token expires after BLOC_SESSION_HOURS", async () => {
  const ann = await userWithPassword();
  const reply = await authenticateCall({ email: ann.email, password: ann.password });
  assert.equal(reply.status, 200, reply.text);
  const expiresMs = server.ctx.now.reaches(reply.json.expiresAt as string);
  assert.ok(Math.abs(expiresMs - (Date.now() + 3 * 60 * 60 * 1000)) < 5_000, `three hours from now (BLOC_SESSION_HOURS=3): ${reply.json.expiresAt}`);
  const principal = await authenticate(at(expiresMs - 1000), reply.json.token);
  assert.equal(principal.user.id, ann.id, "still valid just before");
  await refusedWith(authenticate(at(expiresMs), reply.json.token), UnauthenticatedError);
});

test("a disabled user's tokens and sign-in get 401 at once; enabling them again restores both", async () => {
  const ann = await userWithPassword();
  const signedIn = await authenticateCall({ email: ann.email, password: ann.password });
  const issued = await server.call("POST", `/api/admin/users/${ann.id}/tokens`, { json: {} });
  const tokens = [signedIn.json.token as string, issued.json.token as string];
  for (const token of tokens) assert.equal((await call(server.url, "GET", "/api/me", { token })).status, 200);

  const disabled = await server.call("PATCH", `/api/admin/users/${ann.id}`, { json: { disabled: true } });
  assert.equal(disabled.status, 200, disabled.text);
  assert.equal(disabled.json.disabled, true);
  for (const token of tokens) {
    const refused = await call(server.url, "GET", "/api/me", { token });
    assert.equal(refused.status, 401, refused.text);
    assert.equal(typeof refused.json.error, "string");
  }
  const again = await authenticateCall({ email: ann.email, password: ann.password });
  assert.equal(again.status, 401, again.text);
  assert.deepEqual(again.json, { error: "Wrong email or password" }, "refused as a wrong password is");
  const listed = await server.call("GET", "/api/admin/users");
  assert.equal(listed.json.users.find((u: { id: string }) => u.id === ann.id).disabled, true);

  const enabled = await server.call("PATCH", `/api/admin/users/${ann.id}`, { json: { disabled: false } });
  assert.equal(enabled.status, 200, enabled.text);
  assert.equal(enabled.json.disabled, false);
  for (const token of tokens) assert.equal((await call(server.url, "GET", "/api/me", { token })).status, 200);
  assert.equal((await authenticateCall({ email: ann.email, password: ann.password })).status, 200);

  const self = await server.call("GET", "/api/me");
  const selfDisable = await server.call("PATCH", `/api/admin/users/${self.json.user.id}`, { json: { disabled: true } });
  assert.equal(selfDisable.status, 400, "an admin cannot disable themselves");
  assert.equal((await server.call("GET", "/api/me")).status, 200);
});

test("a disabled user's live event stream ends within seconds, though no event comes", async () => {
  const blocId = await addBloc(server, "Streamed", ["Part"]);
  const member = await addMember(server, { blocId, read: true });
  const stream = await SseClient.open(server.url, `/api/events?blocId=${blocId}`, member.token);
  try {
    assert.equal(stream.status, 200);
    await stream.until(() => stream.events.some((e) => e.event === "ready"), "the ready event");
    const disabledAt = Date.now();
    assert.equal((await server.call("PATCH", `/api/admin/users/${member.id}`, { json: { disabled: true } })).status, 200);
    await stream.until(() => stream.ended, "the disabled user's stream ends", 6_000);
    assert.ok(Date.now() - disabledAt < 6_000);
    assert.equal(stream.of("error").length, 1, "it ends with an error event");
  } finally {
    stream.close();
  }
});

test("PATCH changes name and email; emails are unique whatever their case; an email can be removed", async () => {
  const ann = await userWithPassword("Ann");
  const bob = await userWithPassword("Bob");
  const renamed = await server.call("PATCH", `/api/admin/users/${ann.id}`, { json: { name: " Ann B " } });
  assert.equal(renamed.status, 200, renamed.text);
  assert.equal(renamed.json.name, "Ann B");
  assert.equal(renamed.json.email, ann.email);

  const taken = await server.call("PATCH", `/api/admin/users/${bob.id}`, { json: { email: ann.email.toUpperCase() } });
  assert.equal(taken.status, 409, taken.text);
  assert.equal(typeof taken.json.error, "string");
  const takenOnCreate = await createUser({ name: "Copy", email: ` ${ann.email.toUpperCase()}` });
  assert.equal(takenOnCreate.status, 409, takenOnCreate.text);
  assert.equal((await server.call("GET", "/api/admin/users")).json.users.filter((u: { name: string }) => u.name === "Copy").length, 0,
    "the refused create made no user");
  assert.equal((await server.call("GET", `/api/admin/users/${bob.id}`)).json.email, bob.email, "the refused change changed nothing");

  const mixed = `Carol.${crypto.randomBytes(4).toString("hex")}@Example.COM`;
  const changed = await server.call("PATCH", `/api/admin/users/${bob.id}`, { json: { email: mixed } });
  assert.equal(changed.status, 200, changed.text);
  assert.equal(changed.json.email, mixed.toLowerCase(), "stored lower-cased");
  assert.equal((await authenticateCall({ email: mixed, password: bob.password })).status, 200);
  assert.equal((await authenticateCall({ email: bob.email, password: bob.password })).status, 401, "the old email no longer signs in");

  const removed = await server.call("PATCH", `/api/admin/users/${bob.id}`, { json: { email: null } });
  assert.equal(removed.status, 200, removed.text);
  assert.equal(removed.json.email, null);
  assert.equal((await authenticateCall({ email: mixed, password: bob.password })).status, 401);

  for (const json of [{ email: "not an email" }, { email: "" }, { name: "" }, { disabled: "yes" }, { role: "admin" }]) {
    const refused = await server.call("PATCH", `/api/admin/users/${bob.id}`, { json });
    assert.equal(refused.status, 400, `${JSON.stringify(json)}: ${refused.text}`);
  }
  assert.equal((await server.call("PATCH", "/api/admin/users/99999", { json: { name: "x" } })).status, 404);
  const member = await call(server.url, "PATCH", `/api/admin/users/${bob.id}`, {
    token: (await authenticateCall({ email: ann.email, password: ann.password })).json.token, json: { disabled: true },
  });
  assert.equal(member.status, 403, "a member may not use it");
});

test("an admin sets a password; a user changes their own, proving the current one", async () => {
  const created = await createUser({ name: "Dee", email: account().email });
  const id = created.json.id as string;
  const email = created.json.email as string;
  const first = "first-password-1";
  assert.equal((await server.call("PUT", `/api/admin/users/${id}/password`, { json: { password: "short" } })).status, 400);
  const set = await server.call("PUT", `/api/admin/users/${id}/password`, { json: { password: first } });
  assert.equal(set.status, 204, set.text);
  assert.equal(set.text, "");
  assert.equal((await server.call("PUT", "/api/admin/users/99999/password", { json: { password: first } })).status, 404);
  const signedIn = await authenticateCall({ email, password: first });
  assert.equal(signedIn.status, 200, signedIn.text);
  const token = signedIn.json.token as string;

  const change = (json: unknown, as = token): Promise<Reply> => call(server.url, "POST", "/api/me/password", { token: as, json });
  const wrong = await change({ currentPassword: "not-the-password", newPassword: "second-password-2" });
  assert.equal(wrong.status, 400, wrong.text);
  assert.equal(typeof wrong.json.error, "string");
  const short = await change({ currentPassword: first, newPassword: "2short" });
  assert.equal(short.status, 400, short.text);
  assert.equal((await authenticateCall({ email, password: first })).status, 200, "refused changes changed nothing");

  const changed = await change({ currentPassword: first, newPassword: "second-password-2" });
  assert.equal(changed.status, 204, changed.text);
  assert.equal((await authenticateCall({ email, password: first })).status, 401);
  assert.equal((await authenticateCall({ email, password: "second-password-2" })).status, 200);

  const scoped = await server.call("POST", `/api/admin/users/${id}/tokens`, { json: { permissions: ["read"] } });
  const refused = await change({ currentPassword: "second-password-2", newPassword: "third-password-3" }, scoped.json.token);
  assert.equal(refused.status, 403, `a scoped token cannot change the password: ${refused.text}`);
  assert.equal((await change({ currentPassword: "x", newPassword: "third-password-3" }, "bds_unknown")).status, 401);
});

test("bloc-data login signs in with BLOC_PASSWORD and prints the token; a wrong password exits 1", async () => {
  const ann = await userWithPassword();
  const ok = await runToEnd(CLI_ENTRY, ["login", "--email", ann.email, "--url", server.url], { BLOC_PASSWORD: ann.password }, server.dir);
  assert.equal(ok.code, 0, ok.stderr);
  const printed = JSON.parse(ok.stdout) as { token: string; user: { id: string } };
  assert.equal(printed.user.id, ann.id);
  assert.equal((await call(server.url, "GET", "/api/me", { token: printed.token })).status, 200);
  const wrong = await runToEnd(CLI_ENTRY, ["login", "--email", ann.email, "--url", server.url], { BLOC_PASSWORD: "wrong-password" }, server.dir);
  assert.equal(wrong.code, 1, wrong.stdout);
  assert.match(wrong.stderr, /401/);
  assert.equal(wrong.stderr.includes("wrong-password"), false);
  const missing = await runToEnd(CLI_ENTRY, ["login", "--url", server.url], { BLOC_PASSWORD: ann.password }, server.dir);
  assert.equal(missing.code, 2, "no --email is a usage mistake");
});

test(`no answer ever holds a password or its hash (${testEngine()})`, async () => {
  const { email, password } = account();
  const answers: Reply[] = [];
  const created = await createUser({ name: "Eve", email, password });
  answers.push(created);
  const id = created.json.id as string;
  answers.push(await server.call("GET", `/api/admin/users/${id}`));
  answers.push(await server.call("GET", "/api/admin/users"));
  answers.push(await server.call("PATCH", `/api/admin/users/${id}`, { json: { name: "Eve 2" } }));
  const signedIn = await authenticateCall({ email, password });
  answers.push(signedIn);
  answers.push(await call(server.url, "GET", "/api/me", { token: signedIn.json.token }));
  // Refusals that name the password parameter must not quote it.
  answers.push(await server.call("PUT", `/api/admin/users/${id}/password`, { json: { password: "tiny-pw" } }));
  answers.push(await server.call("PUT", `/api/admin/users/${id}/password`, { json: { password: 1234567890123 } }));
  answers.push(await createUser({ name: "Short", password: "tiny-pw" }));
  answers.push(await call(server.url, "POST", "/api/me/password", {
    token: signedIn.json.token, json: { currentPassword: "wrong-current-pw", newPassword: "tiny-pw" },
  }));
  answers.push(await call(server.url, "POST", "/api/me/password", {
    token: signedIn.json.token, json: { currentPassword: "wrong-current-pw", newPassword: "long-enough-new-pw" },
  }));
  const stored = await server.ctx.store.accounts.passwordOf(id);
  assert.match(String(stored), /^scrypt\$32768\$8\$1\$/, "the store keeps an scrypt hash with its parameters");
  const salt = String(stored).split("$")[4]!;
  for (const reply of answers) {
    for (const secret of [password, "tiny-pw", "1234567890123", "wrong-current-pw", "long-enough-new-pw", salt, "scrypt$"]) {
      assert.equal(reply.text.includes(secret), false, `an answer (${reply.status}) holds a secret: ${reply.text.slice(0, 200)}`);
    }
  }
  const row = (await server.ctx.store.maintenance.exportRows("users", undefined, 1000)).find((r) => String(r.id) === id);
  assert.equal(row?.password_hash, stored, "a backup keeps the hash (never the password), so that restored users still sign in");
});

test(`in two processes on one store: a disabled user is refused by both at once, failures are counted together, and no log line holds a password (${testEngine()})`, { timeout: 120_000 }, async () => {
  const workspace = await freshWorkspace("sign-in");
  const admin = `sign-in-admin-${crypto.randomBytes(8).toString("hex")}`;
  const env = { DATABASE_URL: workspace.databaseUrl, BLOC_ADMIN_TOKEN: admin, BLOC_LOG_LEVEL: "info" };
  const first = await startProcess(env, workspace.cwd).catch(async (error: unknown) => { await workspace.remove(); throw error; });
  let second: Awaited<ReturnType<typeof startProcess>> | undefined;
  try {
    second = await startProcess(env, workspace.cwd);
    const [a, b] = [first.url, second.url];
    const { email, password } = account();
    const user = await call(a, "POST", "/api/admin/users", { token: admin, json: { name: "Fay", email, password } });
    assert.equal(user.status, 201, user.text);
    const signedIn = await authenticateCall({ email, password }, b);
    assert.equal(signedIn.status, 200, signedIn.text);
    const token = signedIn.json.token as string;
    // Both processes have the token cached now.
    assert.equal((await call(a, "GET", "/api/me", { token })).status, 200);
    assert.equal((await call(b, "GET", "/api/me", { token })).status, 200);
    assert.equal((await call(a, "PATCH", `/api/admin/users/${user.json.id}`, { token: admin, json: { disabled: true } })).status, 200);
    assert.equal((await call(b, "GET", "/api/me", { token })).status, 401, "the other process refuses at once");
    assert.equal((await call(a, "GET", "/api/me", { token })).status, 401);
    assert.equal((await call(a, "PATCH", `/api/admin/users/${user.json.id}`, { token: admin, json: { disabled: false } })).status, 200);
    assert.equal((await call(b, "GET", "/api/me", { token })).status, 200);

    const wrong = `wrong-${crypto.randomBytes(6).toString("hex")}`;
    for (let i = 0; i < SIGN_IN_ATTEMPTS; i += 1) {
      assert.equal((await authenticateCall({ email, password: wrong }, i % 2 === 0 ? a : b)).status, 401);
    }
    assert.equal((await authenticateCall({ email, password }, a)).status, 429, "failures on either process count");
    assert.equal((await authenticateCall({ email, password }, b)).status, 429);

    await new Promise((resolve) => setTimeout(resolve, 300));
    const output = first.output() + second.output();
    assert.match(output, /"statusCode":429/, "the requests were logged");
    for (const secret of [password, wrong, token]) assert.equal(output.includes(secret), false, "a log line holds a secret");
  } finally {
    await second?.stop();
    await first.stop();
    await workspace.remove();
  }
});

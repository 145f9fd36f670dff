import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { makeClock } from "../src/domain/clock.js";
import type { Context } from "../src/domain/context.js";
import { InvalidInputError, UnauthenticatedError } from "../src/domain/errors.js";
import { authenticate, issueToken } from "../src/domain/tokens.js";
import { stampIn } from "./support/expired-token.js";
import { startServer, type TestServer } from "./support/server.js";

/**
 * A token's expiresAt is wall-clock text in BLOC_TIMEZONE, but it expires at an instant:
 * the first time the service's clock reads it. In Europe/Dublin the clocks go back at
 * 02:00 IST on 2026-10-25 to 01:00 GMT, so 01:00–02:00 is read twice (00:00–01:00Z,
 * then 01:00–02:00Z); a token expiring at 01:30 must stay expired through the second
 * reading. Tokens are issued and checked by the domain on the real store, with the
 * clock set; the HTTP tests check what an API client sees with the real clock.
 */
const ZONE = "Europe/Dublin";
const EXPIRES = "2026-10-25 01:30:00";

let server: TestServer;
let userId: string;

before(async () => {
  server = await startServer({ BLOC_TIMEZONE: ZONE });
  const user = await server.call("POST", "/api/admin/users", { json: { name: "expiring", role: "member" } });
  assert.equal(user.status, 201, user.text);
  userId = user.json.id as string;
});

after(async () => {
  await server?.close();
});

/** The server's context with its clock stopped at `iso`. */
function at(iso: string): Context {
  return { ...server.ctx, now: makeClock(ZONE, () => new Date(iso)) };
}

async function accepted(ctx: Context, secret: string): Promise<boolean> {
  try {
    await authenticate(ctx, secret);
    return true;
  } catch (error) {
    if (error instanceof UnauthenticatedError) return false;
    throw error;
  }
}

test("the clock reaches a stamp of the repeated hour at its first reading, and one skipped by the spring jump at the jump", () => {
  const clock = makeClock(ZONE, () => new Date("2026-10-25T00:00:00Z"));
  assert.equal(clock.reaches("2026-10-25 01:30:00"), Date.parse("2026-10-25T00:30:00Z"));
  assert.equal(clock.reaches("2026-10-25 02:30:00"), Date.parse("2026-10-25T02:30:00Z"));
  assert.equal(clock.reaches("2026-07-01 12:00:00"), Date.parse("2026-07-01T11:00:00Z"));
  assert.equal(clock.reaches("2026-01-01 12:00:00"), Date.parse("2026-01-01T12:00:00Z"));
  // 2026-03-29 01:00 GMT jumps to 02:00 IST: 01:30 is never read; the clock passes it at 01:00Z.
  assert.equal(clock.reaches("2026-03-29 01:30:00"), Date.parse("2026-03-29T01:00:00Z"));
  assert.equal(makeClock("UTC").reaches("2026-10-25 01:30:00"), Date.parse("2026-10-25T01:30:00Z"));
});

test("a token expiring in the repeated hour of a clock-back stays refused when the hour is read again", async () => {
  const { token } = await issueToken(at("2026-10-25T00:00:00Z"), userId, { expiresAt: EXPIRES });
  assert.equal(await accepted(at("2026-10-25T00:29:59Z"), token), true, "01:29:59 IST, before the expiry");
  assert.equal(await accepted(at("2026-10-25T00:30:00Z"), token), false, "01:30:00 IST, the expiry");
  assert.equal(await accepted(at("2026-10-25T00:59:59Z"), token), false, "01:59:59 IST");
  // The wall clock reads 01:00:00 again, now GMT: as text, before the expiry.
  assert.equal(await accepted(at("2026-10-25T01:00:00Z"), token), false, "01:00:00 GMT, the hour read again");
  assert.equal(await accepted(at("2026-10-25T01:29:59Z"), token), false, "01:29:59 GMT");
  assert.equal(await accepted(at("2026-10-25T03:00:00Z"), token), false, "later");
});

test("an expiresAt of the repeated hour is refused once its first reading has passed, even while the clock reads earlier text", async () => {
  await assert.rejects(issueToken(at("2026-10-25T01:10:00Z"), userId, { expiresAt: EXPIRES }),
    (error: unknown) => error instanceof InvalidInputError && /expiresAt 2026-10-25 01:30:00 is not in the future/.test(error.message));
});

test("the API refuses a token whose expiresAt has passed, and one already past is not issued", async () => {
  const issued = await server.call("POST", `/api/admin/users/${userId}/tokens`, { json: { expiresAt: stampIn(2, ZONE) } });
  assert.equal(issued.status, 201, issued.text);
  const token = issued.json.token as string;
  assert.equal((await server.call("GET", "/api/me", { token })).status, 200, "before its expiry");
  await sleep(3000);
  const refused = await server.call("GET", "/api/me", { token });
  assert.equal(refused.status, 401, refused.text);
  assert.match(refused.json.error, /expired/);

  for (const expiresAt of [stampIn(-1, ZONE), stampIn(0, ZONE), "2001-01-01", "2001-01-01 00:00:00"]) {
    const past = await server.call("POST", `/api/admin/users/${userId}/tokens`, { json: { expiresAt } });
    assert.equal(past.status, 400, `${expiresAt}: ${past.text}`);
    assert.deepEqual(Object.keys(past.json), ["error"]);
    assert.match(past.json.error, /^expiresAt .* is not in the future: it is \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} now/);
  }
});

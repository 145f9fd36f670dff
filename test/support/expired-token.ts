import { setTimeout as sleep } from "node:timers/promises";
import { makeClock } from "../../src/domain/clock.js";
import { call } from "./http.js";

/** The server's wall-clock text `seconds` from now, in its zone (BLOC_TIMEZONE; the tests' servers run in UTC). */
export function stampIn(seconds: number, timeZone = "UTC"): string {
  return makeClock(timeZone, () => new Date(Date.now() + seconds * 1000))();
}

/**
 * A token that has expired, made through the API alone: the API refuses an expiresAt
 * already past, so it is issued to expire two seconds from now and waited out until the
 * service refuses it.
 */
export async function expiredTokenThroughApi(
  url: string, adminToken: string, userId: string,
): Promise<{ id: string; token: string }> {
  const issued = await call(url, "POST", `/api/admin/users/${userId}/tokens`, { token: adminToken, json: { expiresAt: stampIn(2) } });
  if (issued.status !== 201) throw new Error(`creating an expiring token answered ${issued.status} ${issued.text}`);
  const token = issued.json.token as string;
  for (const started = Date.now(); Date.now() - started < 10_000; await sleep(200)) {
    if ((await call(url, "GET", "/api/me", { token })).status === 401) return { id: issued.json.id as string, token };
  }
  throw new Error("a token issued to expire in a second was still accepted ten seconds later");
}

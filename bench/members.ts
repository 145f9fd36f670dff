import type { Context } from "../src/domain/context.js";
import { grantOf, setGrant, setProfile, setRestriction } from "../src/domain/access.js";
import { issueToken } from "../src/domain/tokens.js";
import { createUser } from "../src/domain/users.js";
import type { Load } from "./measure.js";
import type { Figure } from "./results.js";
import { COMMENT, randomFrom, recordValues } from "./seed.js";

/**
 * add-data as a site's scanners send it: every request a record never sent before (its
 * own serial, order ref and comment, so that the value counters take new rows and the
 * field indexes new keys as they do in use, where one fixed record only increments the
 * same counter rows), each from one of several members of the bloc in turn, rather than
 * the admin sending it. The members are checked as members are: a grant, a profile
 * (every site, so that the profile-filtered Site field passes whatever it holds), and for
 * one of them an `own` restriction.
 */

export interface Members {
  readonly blocId: string;
  readonly users: readonly string[];
  readonly tokens: readonly string[];
}

/** `count` users granted add and read on the bloc, each with `sites` as profile, the first restricted to `own` there. */
export async function makeMembers(ctx: Context, blocId: string, count: number, sites: readonly string[]): Promise<Members> {
  const users: string[] = [];
  const tokens: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const user = (await createUser(ctx, `member ${i + 1}`)).id;
    await setGrant(ctx, blocId, user, grantOf({ add: true, read: true }));
    await setProfile(ctx, user, sites);
    if (i === 0) await setRestriction(ctx, blocId, user, "own");
    users.push(user);
    tokens.push((await issueToken(ctx, user, {})).token);
  }
  return { blocId, users, tokens };
}

/**
 * add-data bodies, a new record at each call, with the members' tokens round robin.
 * One stream for all connections and for the warm-up too, so that no serial is sent twice.
 */
export function memberAdds(members: Members): () => { body: unknown; token: string } {
  const next = randomFrom(0x5eed);
  let sent = 0;
  return () => {
    const i = sent;
    sent += 1;
    const values = recordValues(i, next);
    // Half of recordValues' comments repeat (a few words from a short list): numbered, none does.
    values[COMMENT] = `${values[COMMENT]} (scan ${i + 1})`;
    return {
      body: { scanStationID: members.blocId, dataToAdd: JSON.stringify(values) },
      token: members.tokens[i % members.tokens.length]!,
    };
  };
}

/** The row: throughput against the engine's reference (SQLite: the bare Fastify route; PostgreSQL: the driver loop). */
export function memberAddFigure(add: Load, members: number, connections: number, route: Load, driver: Load | undefined): Figure {
  const reference = driver ?? route;
  const ratio = add.rps / reference.rps;
  const floor = driver ? 0.4 : 0.25;
  const of = driver ? "the driver loop" : "the bare route";
  return {
    name: `add-data, a new serial, order ref and comment each time, ${members} members, ${connections} connections (durable)`,
    value: `${Math.round(add.rps).toLocaleString("en")} req/s; ${ratio.toFixed(2)} of ${of}` +
      (driver ? ` (${(add.rps / route.rps).toFixed(2)} of the bare route)` : "") +
      (add.failures > 0 ? ` (${add.failures} of ${add.requests} requests failed)` : ""),
    target: `≥ ${floor.toFixed(2)} of ${of}`,
    met: add.failures === 0 && ratio >= floor,
  };
}

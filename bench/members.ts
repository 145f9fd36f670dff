import os from "node:os";
import type { Context } from "../src/domain/context.js";
import type { NewRecord } from "../src/domain/ports/store.js";
import { grantOf, setGrant, setProfile, setRestriction } from "../src/domain/access.js";
import { issueToken } from "../src/domain/tokens.js";
import { createUser } from "../src/domain/users.js";
import { cpuBoundRps, describeCpu, type CpuPerRequest } from "./cpu-budget.js";
import type { Load } from "./measure.js";
import type { Figure } from "./results.js";
import { bulkImportRecords } from "../src/domain/bulk-import.js";
import { COMMENT, ORDER_REF, SERIAL, randomFrom, record, recordValues } from "./seed.js";

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

const DAY_MS = 86_400_000;
/** Records a day in a bloc in use (prefill): enough for its days to count their values (keys.ts: BLOC_COUNTED_ABOVE). */
export const IN_USE_PER_DAY = 5000;

/**
 * Fills the members' bloc with `count` records of the bench's shape from the members,
 * IN_USE_PER_DAY a day up to now (bulk-imported): a bloc in use, whose scopes count their
 * values, rather than a new one, whose first 2,000 records count none. Their serials and
 * order refs are their own, so memberAdds never repeats one.
 */
export async function prefill(ctx: Context, members: Members, count: number): Promise<void> {
  await bulkImportRecords(ctx.store, members.blocId, prefillRecords(members, count));
}

/** The records prefill loads (bench/fold-sharing.ts counts them without a database). */
export function prefillRecords(members: Members, count: number): NewRecord[] {
  const days = count / IN_USE_PER_DAY;
  const span = { start: Date.now() - days * DAY_MS, ms: days * DAY_MS - 60_000 };
  const next = randomFrom(0xf111);
  return Array.from({ length: count }, (_, i) => {
    const made = record(members.blocId, i, count, members.users, next, span);
    return { ...made, values: { ...made.values, [SERIAL]: `SN-P${i}`, [ORDER_REF]: `P-${i}` } };
  });
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
export function memberAddFigure(add: Load, members: number, connections: number, route: Load, driver: Load | undefined, holding = 0,
  cpu?: CpuPerRequest): Figure {
  const reference = driver ?? route;
  const ratio = add.rps / reference.rps;
  const floor = driver ? 0.4 : 0.25;
  const of = driver ? "the driver loop" : "the bare route";
  // The same work with every add side by side: how far concurrency alone could take it.
  const bound = cpu && cpuBoundRps(cpu);
  return {
    name: `add-data, a new serial, order ref and comment each time, ${members} members, ${connections} connections (durable)` +
      (holding > 0 ? `, into a bloc in use (${holding.toLocaleString("en")} records, ${IN_USE_PER_DAY.toLocaleString("en")} a day)` : ", into a new bloc"),
    value: `${Math.round(add.rps).toLocaleString("en")} req/s; ${ratio.toFixed(2)} of ${of}` +
      (driver ? ` (${(add.rps / route.rps).toFixed(2)} of the bare route)` : "") +
      (add.failures > 0 ? ` (${add.failures} of ${add.requests} requests failed)` : "") +
      (cpu && bound ? `; CPU ${describeCpu(cpu, "add")}: at that cost ${os.availableParallelism()} cores answer at most ` +
        `${Math.round(bound).toLocaleString("en")} req/s, ${(bound / reference.rps).toFixed(2)} of ${of}, with every add side by side` : ""),
    target: `≥ ${floor.toFixed(2)} of ${of}`,
    met: add.failures === 0 && ratio >= floor,
  };
}

import { RECORD_ID_KEY, STATUS_KEY, type MatchCondition, type RecordFilter } from "../domain/model.js";
import { EVERYONE, ownerSegment } from "../domain/counting/keys.js";

/*
 * Which value index, if any, a record query is driven by (both engines; each counts with
 * its own counters: sqlite/value-driver.ts, postgres/value-driver.ts). SQLite keeps no
 * statistics here (no ANALYZE), so left alone its planner takes the first indexed term it sees:
 * a search by Status and Order ref would walk every "ok" record, an ordered page or a
 * date window would walk the bloc in time order looking for one order ref. The counters
 * know how many records hold each value, and how many records each day and owner has,
 * so the choice is made from them: the condition matching fewest records (M) drives the
 * query through its value index (sql.ts writes it in the index's form and every other
 * term so that no index serves it), or no value index does and the query walks the
 * records in time order (of the bloc, or of the owner under `own`) within its window,
 * N records:
 * - unordered (counts, updates): values drive when M < N;
 * - an ordered page: driven by values, it reads all M matches and sorts them; in time
 *   order it reads about (offset + limit) × N / M records to find its rows. So values
 *   drive when M² < (offset + limit) × N (a report's pages through a large match then
 *   cost what pages cost without a filter).
 *
 * PostgreSQL has statistics, but none for a list of values sent as one array parameter
 * (it guesses the same share of the bloc for every field), so it too would walk every
 * "ok" record, or every record of a profile-filtered user's site, to find one order ref.
 *
 * The choice only decides speed, never the answer: every condition is in the query.
 */

/** A condition a value index can serve: a field's non-empty values ("" also matches records without the field). */
function indexable(condition: MatchCondition): boolean {
  return condition.key !== RECORD_ID_KEY && condition.key !== STATUS_KEY
    && condition.values.length > 0 && !condition.values.includes("");
}

/** The conditions of a filter (visibility's included) that a value index could serve. */
export function candidates(filter: RecordFilter): MatchCondition[] {
  return [...(filter.visibility?.match ?? []), ...(filter.match ?? [])].filter(indexable);
}

/**
 * Whether M matching records are better found through their value index than by a walk
 * in time order over N records; `rows` is how far into the matches an ordered read goes
 * (offset + limit), absent when unordered.
 */
export function valuesDrive(m: number, n: number, rows?: number): boolean {
  return rows === undefined ? m < n : m * m < rows * n;
}

/** The segment and days a walk in time order covers (the owner's records under `own`), for the day counters. */
export function walkedSegment(filter: RecordFilter): { segment: string; fromDay: string | undefined; toDay: string | undefined } {
  const owner = filter.visibility?.ownerId;
  return { segment: owner === undefined ? EVERYONE.key : ownerSegment(owner).key, fromDay: filter.from?.slice(0, 10), toDay: filter.to?.slice(0, 10) };
}

import { RECORD_ID_KEY, STATUS_KEY, type MatchCondition, type RecordFilter } from "../../domain/model.js";
import { IN_LIST, jsonList, type Statements } from "./statements.js";

/*
 * Which value index, if any, a record query is driven by. SQLite keeps no statistics
 * here (no ANALYZE), so left alone its planner takes the first indexed term it sees:
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
 * The choice only decides speed, never the answer: every condition is in the query.
 */

/** A condition a value index can serve: a field's non-empty values ("" also matches records without the field). */
function indexable(condition: MatchCondition): boolean {
  return condition.key !== RECORD_ID_KEY && condition.key !== STATUS_KEY
    && condition.values.length > 0 && !condition.values.includes("");
}

/** Records of the bloc holding one of the values, from the counters (all records' segment). */
function matches(sql: Statements, blocId: string, condition: MatchCondition): number {
  return (sql.get(`SELECT COALESCE(SUM(n), 0) AS n FROM value_totals WHERE bloc_id = ? AND segment = '' AND slug = ? AND value ${IN_LIST}`)
    .get(blocId, condition.key, jsonList(condition.values)) as { n: number }).n;
}

/** Records a walk in time order would cover: the bloc's (or the owner's) within the window's days, from the counters. */
function walked(sql: Statements, filter: RecordFilter): number {
  const owner = filter.visibility?.ownerId;
  return (sql.get(`SELECT COALESCE(SUM(n), 0) AS n FROM day_counts WHERE bloc_id = ? AND segment = ? AND day >= ? AND day <= ?`)
    .get(filter.blocId, owner === undefined ? "" : `u:${owner}`, filter.from?.slice(0, 10) ?? "", filter.to?.slice(0, 10) ?? "\uffff") as { n: number }).n;
}

/**
 * The field whose value index is to drive the query, or undefined for none. `rows` is
 * how far into the matches an ordered read goes (offset + limit); absent when unordered.
 */
export function drivingField(sql: Statements, filter: RecordFilter, rows?: number): string | undefined {
  const candidates = [...(filter.visibility?.match ?? []), ...(filter.match ?? [])].filter(indexable);
  if (candidates.length === 0) return undefined;
  let best: { key: string; n: number } | undefined;
  for (const condition of candidates) {
    const n = matches(sql, filter.blocId, condition);
    if (!best || n < best.n) best = { key: condition.key, n };
  }
  const m = best!.n;
  const n = walked(sql, filter);
  return (rows === undefined ? m < n : m * m < rows * n) ? best!.key : undefined;
}

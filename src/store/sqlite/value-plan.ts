import { RECORD_ID_KEY, STATUS_KEY, type MatchCondition, type RecordFilter } from "../../domain/model.js";
import { IN_LIST, jsonList, type Statements } from "./statements.js";

/*
 * Which value index, if any, a record query is driven by. SQLite keeps no statistics
 * here (no ANALYZE), so left alone its planner takes the first indexed term it sees:
 * a search by Status and Order ref would walk every "ok" record, and an ordered page
 * would walk the bloc in time order looking for one order ref. The counters know how
 * many records hold each value exactly, so the choice is made from them: the condition
 * matching fewest records drives the query through its value index (sql.ts writes it in
 * the index's form), the others are checked on the rows it finds.
 *
 * For an ordered page the index is worth it only for a small match: driven by values,
 * a page reads all M matches and sorts them; in time order it reads about
 * (offset + limit) × N / M records of the bloc's N to find its rows. So values drive
 * when M² < (offset + limit) × N, and the bloc is walked in time order otherwise (a
 * report's pages then cost what pages cost without a filter).
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

function blocSize(sql: Statements, blocId: string): number {
  return (sql.get("SELECT COALESCE(SUM(n), 0) AS n FROM day_counts WHERE bloc_id = ? AND segment = ''").get(blocId) as { n: number }).n;
}

/**
 * The field whose value index is to drive the query, or undefined for none. `rows` is
 * how far into the matches an ordered read goes (offset + limit); absent when unordered.
 */
export function drivingField(sql: Statements, filter: RecordFilter, rows?: number): string | undefined {
  const candidates = [...(filter.visibility?.match ?? []), ...(filter.match ?? [])].filter(indexable);
  if (candidates.length === 0) return undefined;
  if (candidates.length === 1 && rows === undefined) return candidates[0]!.key;
  let best: { key: string; n: number } | undefined;
  for (const condition of candidates) {
    const n = matches(sql, filter.blocId, condition);
    if (!best || n < best.n) best = { key: condition.key, n };
  }
  if (rows !== undefined && best!.n * best!.n >= rows * blocSize(sql, filter.blocId)) return undefined;
  return best!.key;
}

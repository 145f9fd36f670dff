/*
 * What value_counts_top orders a scope's counted values by: value_counts.rank (added by a
 * migration in schema.ts), a column of its own rather than the count, so that most changes
 * of a count leave the index as it was and the update is HOT. The migration stores it with
 * rankSql and counters.ts reads the top values with EXACT_RANKS in mind: changing either
 * takes a migration that computes the column again.
 */

/**
 * Counts below this are ranked by themselves in value_counts_top; above it, one rank holds
 * the counts within a sixteenth of each other (a ratio of e^(1/16.5)), so that a count
 * above it moves to the next rank once in 64 or more increments. At most one
 * value in EXACT_RANKS of a scope's records can be ranked above it, which bounds what a read
 * of the top values takes from the rank it stops in.
 */
export const EXACT_RANKS = 1024;

/** SQL for the rank of a count `n` (an SQL expression): n below EXACT_RANKS, steps of a sixteenth above; smallint up to n = 2^31. */
export function rankSql(n: string): string {
  return `CASE WHEN ${n} < ${EXACT_RANKS} THEN ${n} ELSE ${EXACT_RANKS} + floor(ln(${n}::float8 / ${EXACT_RANKS}) * 16.5)::integer END`;
}

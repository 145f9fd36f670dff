/*
 * What counting needs from an engine: rows of two tables, read and written by the keys
 * given (counting/keys.ts), and nothing decided there. `counter_scopes` holds one row per scope
 * (bloc, segment, period) with its record count and whether its values are counted;
 * `value_counts` holds, per counted scope and field, the records holding each value that
 * more than one record of the bloc holds, and under the value "" the records holding none
 * (no row for a field every record fills in).
 */

/**
 * One value of a field and the number of records holding it. A value longer than
 * LISTED_VALUE_MAX characters (domain/field-counts.ts) comes back as null: its text is
 * neither read into memory nor listed.
 */
export type ValueCount = readonly [value: string | null, n: number];

export interface ScopeKey {
  readonly segment: string;
  readonly period: string;
}

export interface Scope extends ScopeKey {
  readonly id: number;
  /** Records in the scope. */
  readonly n: number;
  /** Whether `value_counts` counts its values. */
  readonly counted: boolean;
}

export interface ScopeCountChange extends ScopeKey {
  readonly n: number;
}

export interface ValueCountChange {
  readonly scope: number;
  readonly slug: string;
  readonly value: string;
  readonly n: number;
}

/** The counter tables as every reader sees them: outside a transaction, in a snapshot or in a unit (Store.counters, Tx.counters). */
export interface CounterReads {
  /** The scopes of a bloc among `keys` that exist (hold or held records). */
  scopes(blocId: string, keys: readonly ScopeKey[]): Promise<Scope[]>;
  /**
   * Records per period between two periods (inclusive, by key order: of one tier, or from
   * "a" to "z" for every period), summed over the segments; periods without records are absent.
   */
  periodCounts(blocId: string, segments: readonly string[], fromPeriod: string, toPeriod: string): Promise<{ period: string; n: number }[]>;
  /**
   * The values of a field whose counts summed over the scopes reach 2, most first, then by
   * value in code-point order; at most `limit` (all when 0). Long values as null.
   */
  repeatedValues(scopes: readonly number[], slug: string, limit: number): Promise<ValueCount[]>;
  /** The counts of just these values (non-null, any order), summed over the scopes; values without a count are absent. */
  countsOf(scopes: readonly number[], slug: string, values: readonly string[]): Promise<[string, number][]>;
  /** The counts of these (field, value) pairs in one scope; pairs without a count are absent. */
  countsOfPairs(scope: number, pairs: readonly { readonly slug: string; readonly value: string }[]): Promise<[string, string, number][]>;
  /**
   * Values of a field that two or more records of a bloc hold, with their counts, in
   * code-point order after `after` (from the first when null), at most `limit`: counted
   * from the records (the value index), for recounting.
   */
  valuesHeldTwice(blocId: string, slug: string, after: string | null, limit: number): Promise<[string, number][]>;
  /** Blocs that hold records but have no scope with this key (an upgrade leaves blocs without counters). */
  blocsWithoutScope(key: ScopeKey): Promise<string[]>;
  /** For each (field, value), how many records of the bloc hold it, up to `cap`. */
  holderCounts(blocId: string, keys: readonly { readonly slug: string; readonly value: string }[], cap: number): Promise<number[]>;
}

/** Changes to the counter tables, inside a unit of work only (Tx.counters); domain/counting/settle.ts decides them. */
export interface CounterWrites {
  /**
   * Adds to scopes' record counts (creating the scopes), removing those left with none
   * (and their value counts); returns the scopes as changed, removed ones with n 0.
   */
  changeScopes(blocId: string, changes: readonly ScopeCountChange[]): Promise<Scope[]>;
  /** Marks scopes as counting their values. */
  markCounted(scopes: readonly number[]): Promise<void>;
  /** Adds to value counts (creating rows), removing rows left at zero or below. */
  changeValues(changes: readonly ValueCountChange[]): Promise<void>;
  /** Removes a value's counts from scopes. */
  removeValue(scopes: readonly number[], slug: string, value: string): Promise<void>;
  /** Removes every counter of a bloc (before they are counted again). */
  clearCounters(blocId: string): Promise<void>;
}

/** The counters of one transaction: read and written on its connection. */
export interface CounterStore extends CounterReads, CounterWrites {}

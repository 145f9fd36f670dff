/*
 * How a client text is keyed in an index (schema.ts says why none is a raw btree key): as
 * a (head, tail) pair, its first characters and, only when it is longer, its SHA-256. A
 * module of its own so that the query builders (filters.ts, field-indexes.ts) need not
 * import schema.ts, which imports them for its migrations.
 */

/** Characters of a long key text kept in its head, where the key has one such text. */
export const COUNTER_HEAD = 200;
/** Characters of a field's value in the head its index keys it on (field-indexes.ts). */
export const FIELD_HEAD = 200;
/** Sequences' keys hold three client texts: shorter heads keep the entry within bounds. */
export const SEQUENCE_HEAD = 100;

/** SQL for the (head, tail) pair a key text is stored under; `text` is an SQL expression. */
export function headTail(text: string, head: number): [string, string] {
  return [`left(${text}, ${head})`, `bloc_key_tail(${text}, ${head})`];
}

import { TABLE_SHAPES } from "../tables.js";
import { TABLES, type Row, type TableName } from "../../domain/ports/store.js";
import type { Param, Statements } from "./statements.js";
import { ensureValueIndex } from "./value-indexes.js";

/* Rows in the canonical shape of src/store/tables.ts: SQLite's columns are that shape already. */

export function exportRows(sql: Statements, table: TableName, after: Row | undefined, limit: number): Row[] {
  const { key, columns } = TABLE_SHAPES[table];
  const where = after ? `WHERE (${key.join(", ")}) > (${key.map(() => "?").join(", ")})` : "";
  const params: Param[] = after ? key.map((k) => after[k] ?? null) : [];
  return sql.get(`SELECT ${columns.join(", ")} FROM ${table} ${where} ORDER BY ${key.join(", ")} LIMIT ?`)
    .all(...params, limit) as Row[];
}

/** Inserts rows as they are; AUTOINCREMENT keys move past the IDs given. */
export function importRows(sql: Statements, table: TableName, rows: readonly Row[]): void {
  const { columns } = TABLE_SHAPES[table];
  const insert = sql.get(`INSERT INTO ${table} (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`);
  for (const row of rows) insert.run(...columns.map((c) => row[c] ?? null));
  if (table === "deleted_records" && rows.length > 0) {
    // A deleted record keeps its ID for its restore: no new record may take it (AUTOINCREMENT's high mark).
    const high = Math.max(...rows.map((row) => Number(row.id)));
    sql.get(`INSERT INTO sqlite_sequence (name, seq) SELECT 'records', 0
      WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'records')`).run();
    sql.get("UPDATE sqlite_sequence SET seq = MAX(seq, ?) WHERE name = 'records'").run(high);
  }
  // Every field's slug needs its value index on the new instance too (one per slug, shared).
  if (table === "fields") for (const slug of new Set(rows.map((row) => String(row.slug)))) ensureValueIndex(sql.db, slug);
}

export function tableSizes(sql: Statements): Record<TableName, number> {
  return Object.fromEntries(TABLES.map((table) =>
    [table, (sql.get(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n])) as Record<TableName, number>;
}

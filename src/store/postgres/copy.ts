import { TABLES, type Row, type TableName } from "../../domain/ports/store.js";
import { TABLE_SHAPES } from "../tables.js";
import type { Db, Param } from "./driver.js";
import { ensureFieldIndex } from "./field-indexes.js";
import { COUNTER_HEAD, SEQUENCE_HEAD, headTail } from "./key-heads.js";

/*
 * Whole tables in the canonical row shape (store/tables.ts), for copying an instance
 * between engines: integers as numbers, flags 0/1, JSON columns as JSON text.
 */

type PgType = "text" | "bigint" | "integer" | "jsonb";

/** Each canonical column's type here; unlisted columns are text. */
const TYPES: Readonly<Record<string, PgType>> = {
  id: "bigint", user_id: "bigint", role_id: "bigint", module_id: "bigint", record_id: "bigint",
  position: "bigint", max_length: "bigint", scan_limit: "bigint", size: "bigint", last: "bigint", n: "bigint", created_ms: "bigint",
  open_to_all: "integer", accepting_data: "integer", require_job: "integer", apply_profile_filter: "integer",
  required: "integer", unique_values: "integer", indexed: "integer", can_read: "integer", can_add: "integer",
  can_update: "integer", can_delete: "integer", see_hidden: "integer", submitted_status: "integer", scope_id: "bigint", counted: "integer",
  last_seq: "bigint", seq: "bigint", delivered_seq: "bigint", first_failed_ms: "bigint", next_attempt_ms: "bigint",
  lease_until_ms: "bigint", duration_ms: "bigint", attempts: "integer", attempt: "integer", status_code: "integer",
};

function typeOf(table: TableName, column: string): PgType {
  // IDs that are text: tokens' and blocs' own, and the user_id of records, their history
  // and idempotency keys (a user ID as written).
  if (column === "id" && (table === "tokens" || table === "blocs" || table === "events" || table === "webhooks")) return "text";
  if (column === "user_id" && (table === "records" || table === "deleted_records" || table === "record_history" ||
    table === "idempotency_keys")) return "text";
  // An event's data stays the JSON text it was written as: its bytes are what is signed.
  if (column === "data") return table === "records" || table === "deleted_records" ? "jsonb" : "text";
  return TYPES[column] ?? "text";
}

/** Key columns that hold client text, keyed on (head, tail) (schema.ts), with their head length. */
const LONG_KEYS: Partial<Record<TableName, Readonly<Record<string, number>>>> = {
  sequences: { grp: SEQUENCE_HEAD, prefix: SEQUENCE_HEAD, suffix: SEQUENCE_HEAD },
  value_counts: { value: COUNTER_HEAD },
};

interface Statements {
  readonly first: string;
  readonly after: string;
  readonly insert: string;
}

/**
 * Rows in key order; a key column holding client text orders by its (head, tail),
 * which is the text's own order except between long texts sharing their whole head.
 */
function statements(table: TableName): Statements {
  const { key, columns } = TABLE_SHAPES[table];
  const long = LONG_KEYS[table] ?? {};
  const order: string[] = [];
  const after: string[] = [];
  key.forEach((column, i) => {
    const head = long[column];
    if (head === undefined) {
      order.push(column);
      after.push(`$${i + 2}::${typeOf(table, column)}`);
    } else {
      order.push(...headTail(column, head));
      after.push(...headTail(`$${i + 2}::text`, head));
    }
  });
  const select = `SELECT ${columns.join(", ")} FROM ${table}`;
  const ordered = `ORDER BY ${order.join(", ")} LIMIT $1::bigint`;
  // JSONB arrives as JSON text in a text column of the record set, then is parsed.
  const recordSet = columns.map((c) => `${c} ${typeOf(table, c) === "jsonb" ? "text" : typeOf(table, c)}`).join(", ");
  const values = columns.map((c) => (typeOf(table, c) === "jsonb" ? `x.${c}::jsonb` : `x.${c}`)).join(", ");
  return {
    first: `${select} ${ordered}`,
    after: `${select} WHERE (${order.join(", ")}) > (${after.join(", ")}) ${ordered}`,
    insert: `INSERT INTO ${table} (${columns.join(", ")}) SELECT ${values} FROM json_to_recordset($1::json) AS x(${recordSet})`,
  };
}

const STATEMENTS = Object.fromEntries(TABLES.map((table) => [table, statements(table)])) as Record<TableName, Statements>;

/** Tables whose key is an identity: after an import, their next IDs must come after the imported ones. */
const IDENTITIES: readonly TableName[] = ["users", "roles", "modules", "records", "record_history", "webhook_deliveries", "counter_scopes"];

export async function exportRows(db: Db, table: TableName, after: Row | undefined, limit: number): Promise<Row[]> {
  const { key } = TABLE_SHAPES[table];
  const rows = after === undefined
    ? await db.run<Row>(STATEMENTS[table].first, [limit])
    : await db.run<Row>(STATEMENTS[table].after, [limit, ...key.map((column) => after[column] ?? null)]);
  if (table !== "records" && table !== "deleted_records") return rows;
  // The driver parsed the JSONB; the canonical row carries JSON text.
  return rows.map((row) => ({ ...row, data: JSON.stringify(row.data) }));
}

/** Inserts rows as they are, in one statement (a JSON record set); call inside a transaction. */
export async function importRows(db: Db, table: TableName, rows: readonly Row[]): Promise<void> {
  if (rows.length === 0) return;
  await db.run(STATEMENTS[table].insert, [rows as unknown as Param]);
  if (IDENTITIES.includes(table)) {
    await db.run(`SELECT setval(pg_get_serial_sequence('${table}', 'id'), COALESCE(MAX(id), 0) + 1, false) FROM ${table}`);
  }
  if (table === "deleted_records") {
    // A deleted record keeps its ID for its restore: no new record may take it.
    await db.run(`SELECT setval(pg_get_serial_sequence('records', 'id'),
      GREATEST((SELECT MAX(id) FROM deleted_records), (SELECT MAX(id) FROM records), 0) + 1, false)`);
  }
  if (table === "fields") {
    // Every field's slug needs its value index on the new instance too: one per slug.
    const slugs = new Map(rows.map((row) => [String(row.slug), String(row.bloc_id)]));
    for (const [slug, blocId] of slugs) await ensureFieldIndex(db, blocId, { slug });
  }
}

export async function tableSizes(db: Db): Promise<Record<TableName, number>> {
  const [row] = await db.run<Record<TableName, number>>(
    `SELECT ${TABLES.map((table) => `(SELECT count(*) FROM ${table}) AS ${table}`).join(", ")}`);
  return row!;
}

import type { Row, TableName } from "../domain/ports/store.js";

/**
 * The canonical shape of each table's rows, as `exportRows` yields and `importRows`
 * takes them, whatever the engine: columns in this order, the key first.
 */
export const TABLE_SHAPES: { readonly [T in TableName]: { readonly key: readonly string[]; readonly columns: readonly string[] } } = {
  users: { key: ["id"], columns: ["id", "name", "role", "created_at", "profile", "email", "password_hash", "disabled_at"] },
  roles: { key: ["id"], columns: ["id", "name", "created_at"] },
  user_roles: { key: ["user_id", "role_id"], columns: ["user_id", "role_id"] },
  modules: { key: ["id"], columns: ["id", "name", "created_at"] },
  blocs: {
    key: ["id"],
    columns: ["id", "name", "created_at", "open_to_all", "accepting_data", "restriction", "module_id", "require_job",
      "scan_limit", "scan_limit_period"],
  },
  fields: {
    key: ["bloc_id", "slug"],
    columns: ["bloc_id", "slug", "name", "position", "apply_profile_filter", "type", "options", "required",
      "unique_values", "max_length", "pattern", "format", "indexed", "retired_at"],
  },
  tokens: {
    key: ["id"],
    columns: ["id", "user_id", "name", "hash", "expires_at", "revoked_at", "created_at", "scope_permissions", "scope_blocs",
      "last_used_at"],
  },
  grants: {
    key: ["bloc_id", "user_id"], columns: ["bloc_id", "user_id", "can_read", "can_add", "can_update", "see_hidden", "can_delete"],
  },
  role_grants: {
    key: ["bloc_id", "role_id"], columns: ["bloc_id", "role_id", "can_read", "can_add", "can_update", "see_hidden", "can_delete"],
  },
  restrictions: { key: ["bloc_id", "user_id"], columns: ["bloc_id", "user_id", "mode"] },
  records: { key: ["id"], columns: ["id", "bloc_id", "created_at", "user_id", "submitted_status", "job_id", "data"] },
  deleted_records: {
    key: ["id"],
    columns: ["id", "bloc_id", "created_at", "user_id", "submitted_status", "job_id", "data", "deleted_at", "deleted_by"],
  },
  sequences: { key: ["bloc_id", "slug", "grp", "prefix", "suffix"], columns: ["bloc_id", "slug", "grp", "prefix", "suffix", "last"] },
  files: { key: ["ref"], columns: ["ref", "bloc_id", "record_id", "slug", "sha256", "name", "type", "size", "created_at"] },
  counter_scopes: { key: ["id"], columns: ["id", "bloc_id", "segment", "period", "n", "counted"] },
  value_counts: { key: ["scope_id", "slug", "value"], columns: ["scope_id", "slug", "value", "n"] },
  record_history: {
    key: ["id"], columns: ["id", "bloc_id", "record_id", "changed_at", "user_id", "token_id", "changes", "action"],
  },
  idempotency_keys: {
    key: ["user_id", "key_hash"],
    columns: ["user_id", "key_hash", "request_hash", "record_id", "replacements", "created_ms"],
  },
  event_sequences: { key: ["bloc_id"], columns: ["bloc_id", "last_seq"] },
  events: { key: ["bloc_id", "seq"], columns: ["bloc_id", "seq", "id", "type", "created_at", "created_ms", "record_id", "data"] },
  webhooks: { key: ["id"], columns: ["id", "url", "blocs", "events", "secret", "created_at"] },
  webhook_lanes: {
    key: ["webhook_id", "bloc_id"],
    columns: ["webhook_id", "bloc_id", "delivered_seq", "attempts", "first_failed_ms", "next_attempt_ms", "lease_owner",
      "lease_until_ms"],
  },
  webhook_deliveries: {
    key: ["id"],
    columns: ["id", "webhook_id", "bloc_id", "seq", "event_id", "type", "attempt", "at", "status_code", "error",
      "duration_ms", "outcome"],
  },
};

/**
 * Columns added after backups were first made, with what a row of an older backup holds
 * there: a grant without `delete`, a history entry that is an update.
 */
const ADDED_COLUMNS: Partial<Record<TableName, Row>> = {
  grants: { can_delete: 0 },
  role_grants: { can_delete: 0 },
  record_history: { action: "updated" },
};

/** A row as `importRows` takes it: columns an older backup lacks get their default. */
export function withAddedColumns(table: TableName, row: Row): Row {
  const added = ADDED_COLUMNS[table];
  if (!added) return row;
  const filled: Row = { ...row };
  for (const [column, value] of Object.entries(added)) if (filled[column] === undefined) filled[column] = value;
  return filled;
}

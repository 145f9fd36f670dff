/**
 * Every row that belongs to a bloc, as the DELETE conditions that remove them, children
 * before parents (the foreign keys point at records and blocs). `:bloc` stands for the
 * bloc's ID; each engine writes its own placeholder. A table added later that holds rows
 * of a bloc joins this list, or deleting a bloc would leave them behind (test/removals.test.ts).
 */
const OF_BLOC_RECORDS = "record_id IN (SELECT id FROM records WHERE bloc_id = :bloc)";
const OF_BLOC_DELETED_RECORDS = "record_id IN (SELECT id FROM deleted_records WHERE bloc_id = :bloc)";

export const BLOC_ROWS: readonly { readonly table: string; readonly where: string }[] = [
  { table: "idempotency_keys", where: OF_BLOC_RECORDS },
  { table: "idempotency_keys", where: OF_BLOC_DELETED_RECORDS },
  { table: "deleted_records", where: "bloc_id = :bloc" },
  { table: "record_history", where: "bloc_id = :bloc" },
  { table: "files", where: "bloc_id = :bloc" },
  { table: "records", where: "bloc_id = :bloc" },
  { table: "sequences", where: "bloc_id = :bloc" },
  { table: "value_counts", where: "scope_id IN (SELECT id FROM counter_scopes WHERE bloc_id = :bloc)" },
  { table: "counter_scopes", where: "bloc_id = :bloc" },
  { table: "webhook_deliveries", where: "bloc_id = :bloc" },
  { table: "webhook_lanes", where: "bloc_id = :bloc" },
  { table: "events", where: "bloc_id = :bloc" },
  { table: "event_sequences", where: "bloc_id = :bloc" },
  { table: "grants", where: "bloc_id = :bloc" },
  { table: "role_grants", where: "bloc_id = :bloc" },
  { table: "restrictions", where: "bloc_id = :bloc" },
  { table: "fields", where: "bloc_id = :bloc" },
  { table: "blocs", where: "id = :bloc" },
];

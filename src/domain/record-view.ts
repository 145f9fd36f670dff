import type { Bloc, StoredRecord } from "./model.js";
import { ownValue } from "./values.js";

/** The spec's record names; get-data returns these beside every field of the bloc. */
export type RecordView = Record<string, string | number>;

export function recordView(bloc: Bloc, record: StoredRecord): RecordView {
  const view: RecordView = {
    created_at: record.createdAt,
    submitted_status: record.submittedStatus,
    user_id: record.userId,
    service_entry_row_id: record.id,
  };
  for (const field of bloc.fields) view[field.slug] = ownValue(record.values, field.slug) ?? "";
  return view;
}

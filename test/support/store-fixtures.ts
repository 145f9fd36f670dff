import type { Bloc, Field } from "../../src/domain/model.js";
import type { NewRecord } from "../../src/domain/ports/store.js";

/** What store-level tests build blocs and records from, without going through HTTP. */

/** A plain text field, without its slug and name. */
export const TEXT: Omit<Field, "slug" | "name"> = {
  type: "text", options: null, required: false, unique: false, maxLength: null, pattern: null, format: null,
  indexed: false, applyProfileFilter: false,
};

/** A bloc whose fields are text fields field_1, field_2, … with what each entry changes. */
export function bloc(id: string, fields: Partial<Field>[]): Bloc {
  return {
    id, name: `Bloc ${id}`, openToAllUsers: false, acceptingData: true, restriction: "none", moduleId: null,
    requireJob: false, scanLimit: null, scanLimitPeriod: null,
    fields: fields.map((f, i) => ({ ...TEXT, slug: `field_${i + 1}`, name: `Field ${i + 1}`, ...f })),
  };
}

export function record(blocId: string, createdAt: string, values: Record<string, string>, userId = "1"): NewRecord {
  return { blocId, createdAt, userId, submittedStatus: 1, jobId: null, values };
}

import { Type, type TSchema } from "@sinclair/typebox";

/**
 * Request and response schemas of the spec's four endpoints. Fastify validates requests
 * against them (GET bodies too) and the OpenAPI document is generated from them. Each
 * property's `description` is also the text of its refusal (schema-errors.ts:
 * "<name> must be <description>, got <value>"), so it is written to follow "must be".
 *
 * They describe what is accepted today and no less: IDs as strings or whole numbers,
 * JSON-encoded strings or the objects themselves, numbers and flags as strings (they come
 * that way in a query string), null for an optional parameter left out. What a schema
 * cannot say (the content of a JSON-encoded string, a date's calendar) the route checks.
 */

const Nullable = <T extends TSchema>(schema: T): TSchema => Type.Union([schema, Type.Null()], { description: schema.description });

const ID_TEXT = "a string or a whole number";

/** A bloc or module ID (at most 128 characters once trimmed). */
export const IdParam = (what: string): TSchema => Type.Union([Type.String(), Type.Integer()], {
  description: ID_TEXT, title: what,
});

/** A "JSON-encoded string" parameter: the spec's form, a string holding JSON; the object itself is accepted too. */
export const JsonObjectParam = (what: string, object: TSchema = Type.Object({}, { additionalProperties: true })): TSchema =>
  Type.Union([Type.String({ description: `a JSON-encoded object: ${what}`, contentMediaType: "application/json" }), object], {
    description: "a JSON-encoded object (a string holding JSON), or that object itself",
    title: what,
  });

/** A whole number in a range, or its decimal string (as a query string sends it). */
export const WholeNumber = (min: number, max: number, title: string): TSchema =>
  Type.Union([Type.Integer({ minimum: min, maximum: max }), Type.String({ pattern: "^\\s*-?\\d+\\s*$" })], {
    description: `a whole number from ${min} to ${max}`, title,
  });

export const Flag = (title: string): TSchema => Type.Union([
  Type.Boolean(), Type.Literal(0), Type.Literal(1),
  Type.Literal("true"), Type.Literal("false"), Type.Literal("0"), Type.Literal("1"),
], { description: "true or false", title });

export const DateTime = (title: string): TSchema =>
  Type.String({ description: "a date-time YYYY-MM-DD HH:MM:SS or a date YYYY-MM-DD", title });

const FieldValue = Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()], {
  description: "a string, number, boolean or null",
});

// ---- add-data ----

export const ADD_DATA_PARAMS = {
  scanStationID: IdParam("the bloc ID to add the record to"),
  jobID: Type.Optional(Nullable(IdParam("the module (job) ID the bloc belongs to; may be required by the bloc"))),
  dataToAdd: JsonObjectParam("field slug → value", Type.Object({}, { additionalProperties: FieldValue })),
  submittedStatus: Type.Optional(Nullable(Type.Union([Type.Literal(0), Type.Literal(1), Type.Literal("0"), Type.Literal("1")], {
    description: "0 (draft) or 1 (submitted, the default)",
  }))),
};

export const AddDataBody = Type.Object(ADD_DATA_PARAMS, { additionalProperties: true });

/**
 * The multipart form: the same parameters as text parts (scanStationID before any file
 * part), plus one file part per file field, named by the field's slug. Its parts are
 * read as they stream, after Fastify's validation, so they are checked against
 * AddDataBody once read (add-data.ts), required ones included; here none is required.
 */
export const AddDataMultipart = Type.Object({
  scanStationID: Type.Optional(Type.String({ description: "the bloc ID (required); a text part that must come before the file parts" })),
  jobID: Type.Optional(Type.String({ description: "the module (job) ID, as a text part" })),
  dataToAdd: Type.Optional(Type.String({ description: "the JSON-encoded object of field slug → value (required), as a text part (not a file part)" })),
  submittedStatus: Type.Optional(Type.String({ description: "0 (draft) or 1 (submitted, the default)" })),
}, {
  additionalProperties: Type.String({ contentMediaType: "application/octet-stream", description: "a file part, named by the slug of a file field" }),
  description: "scanStationID and dataToAdd are required text parts; files are parts named by their field's slug",
});

export const AddDataAnswer = Type.Object({
  returnedStationID: Type.Integer({ description: "the ID of the record added" }),
  autogenerateReplacements: Type.Array(Type.Object({
    field: Type.String(), sent: Type.String(), value: Type.String(),
  }), { description: "the values autogenerate fields took instead of what was sent; empty when none" }),
});

// ---- get-data ----

export const getDataParams = (maxResultLimit: number) => ({
  blocId: IdParam("the bloc ID"),
  resultLimit: Type.Optional(Nullable(WholeNumber(1, maxResultLimit, "records per page (default 10)"))),
  currentPage: Type.Optional(Nullable(WholeNumber(1, 1_000_000_000, "1-based page number"))),
  reverse: Type.Optional(Nullable(Flag("false (default): newest first; true: oldest first"))),
  fromDate: Type.Optional(Nullable(DateTime("only records created at or after this time"))),
  toDate: Type.Optional(Nullable(DateTime("only records created at or before this time (a date alone: to its end)"))),
});

/** One record as get-data answers it: the system fields, then every field slug with its value ("" when never set). */
export const RecordView = Type.Object({
  created_at: Type.String({ description: "YYYY-MM-DD HH:MM:SS" }),
  submitted_status: Type.Integer(),
  user_id: Type.String(),
  service_entry_row_id: Type.Integer(),
}, { additionalProperties: Type.String(), description: "system fields, then field slug → value" });

const Counts = Type.Record(Type.String(), Type.Record(Type.String(), Type.Integer()), {
  description: "field slug → (value → number of matching records holding it)",
});

export const CountLimitInfo = Type.Object({
  scan_limit: Type.Union([Type.Integer(), Type.Null()]),
  scan_limit_time_logged: Type.Union([Type.String(), Type.Null()]),
  scans_counted: Type.Integer(),
  limit_reached: Type.Union([Type.Literal(0), Type.Literal(1)]),
});

export const GetDataAnswer = Type.Object({
  data: Type.Object({
    count: Type.Integer({ description: "every matching record, not only this page's" }),
    fieldCounts: Counts,
    fieldCountsPartial: Type.Optional(Type.Array(Type.String(), { description: "fields whose fieldCounts leave values out (docs/endpoints.md, Answer sizes); absent when none" })),
    countLimitInfo: CountLimitInfo,
    fieldNames: Type.Record(Type.String(), Type.String(), { description: "field slug → display name" }),
  }, {
    patternProperties: { "^[0-9]+$": RecordView },
    additionalProperties: false,
    description: 'the page\'s records under "0", "1", … (in the requested order), beside the aggregates',
  }),
});

// ---- get-data-report ----

const FieldsToReport = Type.Union([
  Type.Literal("all"),
  Type.String({ description: 'a JSON-encoded object of field slug → true, e.g. {"field_1": true}', contentMediaType: "application/json" }),
  Type.Object({}, { additionalProperties: Type.Boolean({ description: "true or false" }) }),
], {
  description: '"all" (in lower case), or a JSON-encoded object of field slug → true for each field to include',
  title: "the fields to report",
});

export const DataFilteringData = Type.Object({
  stationID: Type.Optional(Nullable(IdParam("the bloc ID again; must equal stationID"))),
  filterDataToQuery: Type.Optional(Type.Object({}, {
    additionalProperties: Type.Array(FieldValue, {
      description: "an array of accepted values",
    }),
    description: "field slug → an array of accepted values (a record must hold one of them in every field listed)",
  })),
  currentPage: Type.Optional(Nullable(WholeNumber(1, 1_000_000_000, "1-based page number; without it, every matching record"))),
  resultLimit: Type.Optional(Nullable(Type.Union([Type.Integer(), Type.String()], {
    description: "a whole number: rows per page with currentPage (default 1000, at most BLOC_MAX_REPORT_PAGE)",
  }))),
  reverse: Type.Optional(Nullable(Flag("false (default): oldest first; true: newest first"))),
}, { additionalProperties: true });

export const REPORT_PARAMS = {
  stationID: IdParam("the bloc ID"),
  fieldsToReport: FieldsToReport,
  responseType: Type.Optional(Nullable(Type.String({ description: '"blob" (for .xlsx), "csv" or "json"' }))),
  requestedReportData: Type.Optional(Nullable(JsonObjectParam("reportFromDate and reportToDate, each YYYY-MM-DD HH:MM:SS", Type.Object({
    reportFromDate: Type.Optional(Nullable(DateTime("the first time to report"))),
    reportToDate: Type.Optional(Nullable(DateTime("the last time to report"))),
  }, { additionalProperties: true })))),
  dataFilteringData: Type.Optional(Nullable(JsonObjectParam("filter and paging options (stationID, filterDataToQuery, currentPage, resultLimit, reverse)", DataFilteringData))),
};

export const ReportRow = Type.Object({
  created_at: Type.Optional(Type.String()),
  user_id: Type.Optional(Type.String()),
  time_stamp: Type.Optional(Type.String({ description: 'HH:MM:SS; with fieldsToReport "all"' })),
  date_stamp: Type.Optional(Type.String({ description: 'YYYY-MM-DD; with fieldsToReport "all"' })),
}, { additionalProperties: Type.String(), description: "the requested fields of one record" });

export const ReportAnswer = Type.Object({ data: Type.Array(ReportRow, { description: "oldest first unless reversed" }) });

export const XLSX_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";

// ---- update-records-by-matching-values ----

const Values = (what: string): TSchema => JsonObjectParam(what, Type.Object({}, { additionalProperties: FieldValue }));

export const UPDATE_PARAMS = {
  blocId: IdParam("the bloc ID"),
  fieldsToUpdate: Values("field slug (or submitted_status) → new value"),
  searchItems: Values("field slug (or service_entry_row_id, submitted_status) → the exact value a record must hold"),
};

export const UpdateBody = Type.Object(UPDATE_PARAMS, { additionalProperties: true });

export const UpdateAnswer = Type.Object({
  updated_record_ids: Type.Array(Type.Integer(), { description: "the IDs of the records updated, ascending; empty when none matched" }),
});

/** The same parameters as a query string: every value a string, objects JSON-encoded. */
export function asQueryString(params: Record<string, TSchema>): TSchema {
  return Type.Object(Object.fromEntries(Object.entries(params).map(([name, schema]) => [
    name, Type.Optional(Type.String({ description: `${schema.title ?? name}; in a query string, as text (objects JSON-encoded)` })),
  ])), { additionalProperties: true });
}

import type { Outgoing } from "./transport.js";
import type { AddDataInput, DataRecord, DeleteInput, GetDataResult, ReportFormat, ReportQuery, UpdateInput } from "./types.js";

/**
 * The request and answer shapes of the spec's endpoints, shared by the Node client
 * (client.ts) and the fetch client (fetch-client.ts) so that both send exactly the same
 * parameters. Nothing here does I/O or imports a runtime's module.
 */

export const CONTENT_TYPES: Readonly<Record<ReportFormat, string>> = {
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  csv: "text/csv",
};

/** The spec's report body: each object parameter JSON-encoded into a string. */
export function reportBody(query: ReportQuery, responseType?: "blob" | "csv"): Record<string, unknown> {
  const fields = query.fieldsToReport;
  const body: Record<string, unknown> = {
    stationID: query.stationID,
    fieldsToReport: fields === "all" ? "all"
      : JSON.stringify(Array.isArray(fields) ? Object.fromEntries((fields as readonly string[]).map((f) => [f, true])) : fields),
  };
  if (responseType) body.responseType = responseType;
  if (query.requestedReportData) body.requestedReportData = JSON.stringify(query.requestedReportData);
  if (query.dataFilteringData) body.dataFilteringData = JSON.stringify({ stationID: query.stationID, ...query.dataFilteringData });
  return body;
}

/** add-data's text parameters: `dataToAdd` JSON-encoded, as the spec asks. */
export function addDataFields(input: AddDataInput): Record<string, string> {
  const fields: Record<string, string> = { scanStationID: String(input.scanStationID) };
  if (input.jobID !== undefined) fields.jobID = String(input.jobID);
  fields.dataToAdd = JSON.stringify(input.dataToAdd);
  return fields;
}

/** update-records-by-matching-values' request: only the spec's three parameters. */
export function updateRequest(input: UpdateInput): Outgoing {
  return {
    method: "POST", path: "/api/update-records-by-matching-values",
    json: { blocId: input.blocId, fieldsToUpdate: input.fieldsToUpdate, searchItems: input.searchItems },
  };
}

/** delete-records-by-matching-values' request. */
export function deleteRequest(input: DeleteInput): Outgoing {
  return { method: "POST", path: "/api/delete-records-by-matching-values", json: { blocId: input.blocId, searchItems: input.searchItems } };
}

/** get-data's `data`, with records under "0", "1", … beside the aggregates, as typed fields. */
export function getDataResult<F extends string>(data: Record<string, unknown>): GetDataResult<F> {
  const records = Object.keys(data).filter((key) => /^\d+$/.test(key)).sort((a, b) => Number(a) - Number(b))
    .map((key) => data[key] as DataRecord<F>);
  const partial = data.fieldCountsPartial;
  return {
    records,
    count: data.count as number,
    fieldCounts: (data.fieldCounts ?? {}) as GetDataResult<F>["fieldCounts"],
    countLimitInfo: data.countLimitInfo as GetDataResult<F>["countLimitInfo"],
    fieldNames: (data.fieldNames ?? {}) as GetDataResult<F>["fieldNames"],
    // Only this service sends it, and only when a listing leaves values out.
    ...(Array.isArray(partial) ? { fieldCountsPartial: partial as string[] } : {}),
  };
}

/** The file name a Content-Disposition header gives (the RFC 5987 form first), if any. */
export function dispositionName(header: string | null | undefined): string | undefined {
  if (!header) return undefined;
  const extended = /filename\*\s*=\s*UTF-8''([^;]+)/i.exec(header);
  if (extended) {
    try { return decodeURIComponent(extended[1]!.trim()); } catch { /* fall back to the plain form */ }
  }
  return /filename\s*=\s*"([^"]*)"/i.exec(header)?.[1] ?? /filename\s*=\s*([^;\s]+)/i.exec(header)?.[1];
}

/**
 * A name that is safe as the last part of a path on any system, and shows what it is:
 * controls and format characters (Unicode Cf, such as the bidirectional override that
 * makes `evil\u202Egpj.exe` show as `evilexe.jpg`) are replaced like reserved ones.
 */
export function safeName(name: string, fallback = "report"): string {
  const cleaned = name.replace(/[\p{Cc}\p{Cf}/\\:*?"<>|]/gu, "_").replace(/^\.+/, "_");
  return cleaned === "" ? fallback : cleaned;
}

import type { ReportQuery } from "../../../src/client/types.js";

/** Field slug → the values a record's field must equal one of (a report's filterDataToQuery). */
export type Filters = Readonly<Record<string, readonly string[]>>;

/** What the data view shows: one page of the records a date range and value filters select. */
export interface ViewQuery {
  readonly page: number;
  readonly size: number;
  readonly order: "newest" | "oldest";
  /** YYYY-MM-DD, or "" for no bound. */
  readonly from: string;
  readonly to: string;
  readonly filters: Filters;
}

export const PAGE_SIZES = [10, 25, 50, 100] as const;

export const FIRST_VIEW: ViewQuery = { page: 1, size: 10, order: "newest", from: "", to: "", filters: {} };

export function hasFilters(filters: Filters): boolean {
  return Object.values(filters).some((values) => values.length > 0);
}

/** The filters with values, in the report's form. */
export function activeFilters(filters: Filters): Record<string, readonly string[]> {
  return Object.fromEntries(Object.entries(filters).filter(([, values]) => values.length > 0));
}

export function toggled(filters: Filters, slug: string, value: string): Filters {
  const values = filters[slug] ?? [];
  const next = values.includes(value) ? values.filter((v) => v !== value) : [...values, value];
  return { ...filters, [slug]: next };
}

/** The date range in get-data's terms (a date-only `to` ends at 23:59:59 there). */
export function dataWindow(query: Pick<ViewQuery, "from" | "to">): { fromDate?: string; toDate?: string } {
  return { ...(query.from ? { fromDate: query.from } : {}), ...(query.to ? { toDate: query.to } : {}) };
}

/** The same range in the report's terms. */
export function reportWindow(query: Pick<ViewQuery, "from" | "to">): ReportQuery["requestedReportData"] {
  if (!query.from && !query.to) return undefined;
  return { ...(query.from ? { reportFromDate: query.from } : {}), ...(query.to ? { reportToDate: query.to } : {}) };
}

/** The whole view — range, filters and order, every page — as a report (for downloads). */
export function viewReport(blocId: string, query: ViewQuery): ReportQuery {
  const window = reportWindow(query);
  return {
    stationID: blocId,
    fieldsToReport: "all",
    ...(window ? { requestedReportData: window } : {}),
    dataFilteringData: { filterDataToQuery: activeFilters(query.filters), reverse: query.order === "newest" },
  };
}

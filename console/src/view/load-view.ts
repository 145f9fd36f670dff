import type { FetchBlocClient } from "../api.js";
import type { GetDataResult } from "../../../src/client/types.js";
import { countByReport, countFromFieldCounts, type Counted } from "./count-matching.js";
import { activeFilters, dataWindow, hasFilters, reportWindow, type ViewQuery } from "./view-query.js";

/** A row of the table: created_at, user_id and one value per field slug. */
export type Row = Readonly<Record<string, string | number>>;

export interface ViewData {
  /** The query these rows answer: while the next one loads, the page still describes what it shows. */
  readonly query: ViewQuery;
  readonly rows: readonly Row[];
  readonly total: Counted;
  /** Value counts of the date range (with value filters: before them; see below). */
  readonly fieldCounts: GetDataResult["fieldCounts"];
  readonly fieldCountsPartial: readonly string[];
  /** Field slug → display name, in the bloc's order. */
  readonly fieldNames: Readonly<Record<string, string>>;
}

/** Past this many matching records, a filtered view's total reads "more than 100,000". */
export const VIEW_COUNT_CAP = 100_000;

/** What a filtered view counts: its date range's get-data counts, and the records the filters match. */
interface FilteredCounts {
  readonly counts: GetDataResult;
  readonly total: Counted;
}

/**
 * The records value filters match in a date range, as the token reads them: exact from
 * get-data's counts when the filters name one field, else counted from a one-column
 * report up to VIEW_COUNT_CAP. The data view and the update preview both count this way.
 */
export async function countMatching(client: FetchBlocClient, blocId: string, query: Pick<ViewQuery, "from" | "to" | "filters">,
  signal?: AbortSignal): Promise<FilteredCounts> {
  const filters = activeFilters(query.filters);
  const counts = await client.getData({ blocId, resultLimit: 1, ...dataWindow(query) });
  const summed = countFromFieldCounts(filters, counts);
  const total = summed !== undefined ? { count: summed, exact: true }
    : await countByReport(client, blocId, filters, reportWindow(query), VIEW_COUNT_CAP, signal);
  return { counts, total };
}

/**
 * The counts of the filtered view on screen, kept while only its page, size or order
 * change: counting several fields' matches streams up to VIEW_COUNT_CAP report rows, which
 * paging should not pay again. A new range or new filters (or leaving the view) aborts a
 * count still running and starts afresh.
 */
export class FilteredCountsCache {
  private key = "";
  private entry: Promise<FilteredCounts> | undefined;
  private controller = new AbortController();

  get(client: FetchBlocClient, blocId: string, query: ViewQuery): Promise<FilteredCounts> {
    const key = JSON.stringify([blocId, query.from, query.to, activeFilters(query.filters)]);
    if (key === this.key && this.entry) return this.entry;
    this.close();
    this.controller = new AbortController();
    this.key = key;
    const entry = countMatching(client, blocId, query, this.controller.signal);
    // A failed count is asked again by the next screen rather than kept.
    entry.catch(() => { if (this.entry === entry) this.entry = undefined; });
    this.entry = entry;
    return entry;
  }

  close(): void {
    this.controller.abort();
  }
}

/**
 * One screen of the data view, loading only a page and counts whatever the bloc's size.
 *
 * Without value filters it is one get-data call: the page (get-data's deep pages are
 * served from counters), the count and every field's value counts, all in one snapshot.
 *
 * get-data takes no value filter, so with filters the page comes from the report (its
 * filterDataToQuery, one page of `size` rows) and the counts from get-data over the date
 * range (a one-record page), kept in `cache` while the user pages. The total is then exact
 * from those counts when the filters name one field; otherwise it is counted from a
 * one-column report, up to VIEW_COUNT_CAP. The charts keep showing the range's counts,
 * with the chosen values marked.
 */
export async function loadView(client: FetchBlocClient, blocId: string, query: ViewQuery, cache: FilteredCountsCache): Promise<ViewData> {
  if (!hasFilters(query.filters)) {
    const page = await client.getData({ blocId, resultLimit: query.size, currentPage: query.page, reverse: query.order === "oldest", ...dataWindow(query) });
    return {
      query, rows: page.records, total: { count: page.count, exact: true },
      fieldCounts: page.fieldCounts, fieldCountsPartial: page.fieldCountsPartial ?? [], fieldNames: page.fieldNames,
    };
  }
  const range = reportWindow(query);
  const [{ counts, total }, rows] = await Promise.all([
    cache.get(client, blocId, query),
    client.getDataReport({
      stationID: blocId, fieldsToReport: "all",
      ...(range ? { requestedReportData: range } : {}),
      dataFilteringData: { filterDataToQuery: activeFilters(query.filters), currentPage: query.page, resultLimit: query.size, reverse: query.order === "newest" },
    }),
  ]);
  return {
    query, rows, total,
    fieldCounts: counts.fieldCounts, fieldCountsPartial: counts.fieldCountsPartial ?? [], fieldNames: counts.fieldNames,
  };
}

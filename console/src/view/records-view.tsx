import { useEffect, useState } from "preact/hooks";
import type { Session } from "../session.js";
import { isAdmin } from "../api.js";
import { shown, useAsync } from "../use-async.js";
import { Failure } from "../ui/notice.js";
import type { Counted } from "./count-matching.js";
import { ExportButtons } from "./export-buttons.js";
import { FieldCharts } from "./field-charts.js";
import { FilterBar } from "./filter-bar.js";
import { FilteredCountsCache, loadView } from "./load-view.js";
import { Pager } from "./pager.js";
import { RecordsTable } from "./records-table.js";
import { ViewControls } from "./view-controls.js";
import { activeFilters, hasFilters, toggled, type ViewQuery } from "./view-query.js";
import { loadTimeline } from "./timeline.js";
import { TimelineChart } from "./timeline-chart.js";
import { useUrlQuery } from "./url-state.js";

/**
 * The data view: a page of records, the total, a chart of records over time and a chart
 * per field whose values repeat, with the controls that choose them. The window, filters,
 * order and page are in the URL (url-state.ts). Any change but paging goes back to page 1.
 */
export function RecordsView({ session, blocId }: { session: Session; blocId: string }) {
  const [query, setQuery] = useUrlQuery();
  const change = (next: Partial<ViewQuery>): void => setQuery((q) => ({ ...q, page: 1, ...next }));
  const [chartOpen, setChartOpen] = useState(true);
  // The time chart depends on the window and filters only: paging and ordering do not count it again.
  const windowKey = JSON.stringify([query.from, query.to, activeFilters(query.filters)]);
  const [timeline] = useAsync(() => loadTimeline(session.client, blocId, query), [blocId, windowKey]);
  const [counts] = useState(() => new FilteredCountsCache());
  useEffect(() => () => counts.close(), [counts]);
  const [result] = useAsync(() => loadView(session.client, blocId, query, counts), [blocId, JSON.stringify(query)]);
  // File fields are known to admins; for members, records-table asks the service which values are files.
  const [bloc] = useAsync(async () => isAdmin(session.me) ? session.client.admin.getBloc(blocId) : null, [blocId]);
  const fileFields = new Set((shown(bloc)?.fields ?? []).filter((f) => f.type === "file").map((f) => f.slug));
  const view = shown(result);
  // What is on screen is described by the query it answers (`view.query`), which lags `query` while loading.
  const pages = view ? Math.max(1, Math.ceil(view.total.count / view.query.size)) : 1;
  const filtered = view ? hasFilters(view.query.filters) : false;
  const one = view !== undefined && view.total.exact && view.total.count === 1;

  return (
    <div class="data-view" aria-busy={result.state === "loading" || timeline.state === "loading" ? "true" : "false"}>
      <div class="toolbar">
        <ViewControls query={query} onChange={change} />
        <FilterBar filters={query.filters} fieldNames={view?.fieldNames ?? {}} fieldCounts={view?.fieldCounts ?? {}}
          onChange={(filters) => change({ filters })} />
      </div>
      <p class="total" role="status" aria-live="polite" id="view-total">
        {result.state === "failed" ? "" : !view ? "Loading records…" : (
          <>
            <strong>{view.total.exact ? view.total.count.toLocaleString("en") : `More than ${view.total.count.toLocaleString("en")}`}</strong>
            {one ? " record" : " records"}
            {filtered ? (one ? " matches the filters" : " match the filters") : ""}{view.query.from || view.query.to ? " in the date range" : ""}
            {result.state === "loading" ? " (updating…)" : ""}
          </>
        )}
      </p>
      {result.state === "failed" ? <Failure error={result.error} prefix="The records could not be loaded" /> : null}
      <TimelineChart result={timeline} open={chartOpen} onToggle={() => setChartOpen(!chartOpen)} />
      {view ? (
        <div class="split">
          <section class="records-panel" aria-labelledby="records-heading">
            <h2 id="records-heading" class="sr-only">Records</h2>
            <RecordsTable session={session} blocId={blocId} rows={view.rows} fieldNames={view.fieldNames} fileFields={fileFields}
              typesKnown={isAdmin(session.me)} caption={captionOf(view.query, view.rows.length, view.total)} />
            <Pager page={view.query.page} pages={pages} exact={view.total.exact} lastPageFull={view.rows.length === view.query.size}
              onStep={(step) => setQuery((q) => ({ ...q, page: Math.max(1, q.page + step) }))} onPage={(page) => setQuery((q) => ({ ...q, page }))} />
            <ExportButtons session={session} blocId={blocId} query={query} />
          </section>
          <FieldCharts fieldCounts={view.fieldCounts} fieldNames={view.fieldNames} partial={view.fieldCountsPartial}
            skip={fileFields} filters={view.query.filters} filtered={filtered}
            onToggle={(slug, value) => change({ filters: toggled(query.filters, slug, value) })} />
        </div>
      ) : null}
    </div>
  );
}

function captionOf(query: ViewQuery, shownRows: number, total: Counted): string {
  if (shownRows === 0) return "No record to show";
  const first = (query.page - 1) * query.size + 1;
  const order = query.order === "newest" ? "newest first" : "oldest first";
  const of = `${total.exact ? "" : "more than "}${total.count.toLocaleString("en")}`;
  return `Records ${first.toLocaleString("en")}–${(first + shownRows - 1).toLocaleString("en")} of ${of}, ${order}`;
}

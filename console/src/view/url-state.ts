import { useEffect, useState } from "preact/hooks";
import { FIRST_VIEW, PAGE_SIZES, type ViewQuery } from "./view-query.js";

/*
 * The data view's query lives in the URL's fragment, after the route
 * (#/bloc/scans?from=2026-03-03&to=2026-03-03&page=2&f.field_2=Line%202), so that a reload
 * or a link shared with a colleague opens the same view. The fragment never leaves the
 * browser (no request, Referer or server log carries it); the token is never in it.
 * Defaults are left out, so the plain view keeps its plain address.
 */

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const FILTER = "f.";

/** The query the fragment's `?…` part describes; anything unreadable falls back to the default. */
function queryOfHash(hash: string): ViewQuery {
  const at = hash.indexOf("?");
  if (at === -1) return FIRST_VIEW;
  const params = new URLSearchParams(hash.slice(at + 1));
  const page = Number(params.get("page"));
  const size = Number(params.get("size"));
  const from = params.get("from") ?? "";
  const to = params.get("to") ?? "";
  const filters: Record<string, string[]> = {};
  for (const [key, value] of params) {
    if (!key.startsWith(FILTER) || key.length === FILTER.length) continue;
    const slug = key.slice(FILTER.length);
    const values = filters[slug] ?? (filters[slug] = []);
    if (!values.includes(value)) values.push(value);
  }
  return {
    page: Number.isSafeInteger(page) && page >= 1 ? page : FIRST_VIEW.page,
    size: (PAGE_SIZES as readonly number[]).includes(size) ? size : FIRST_VIEW.size,
    order: params.get("order") === "oldest" ? "oldest" : "newest",
    from: DATE.test(from) ? from : "",
    to: DATE.test(to) ? to : "",
    filters,
  };
}

/** The fragment for `route` (its path, "#/bloc/scans") with the query's non-default parts. */
function hashWithQuery(path: string, query: ViewQuery): string {
  const params = new URLSearchParams();
  if (query.from) params.set("from", query.from);
  if (query.to) params.set("to", query.to);
  if (query.order !== FIRST_VIEW.order) params.set("order", query.order);
  if (query.size !== FIRST_VIEW.size) params.set("size", String(query.size));
  for (const [slug, values] of Object.entries(query.filters)) {
    for (const value of values) params.append(`${FILTER}${slug}`, value);
  }
  if (query.page !== FIRST_VIEW.page) params.set("page", String(query.page));
  const text = params.toString();
  return text === "" ? path : `${path}?${text}`;
}

function pathOf(hash: string): string {
  const at = hash.indexOf("?");
  return at === -1 ? hash : hash.slice(0, at);
}

/**
 * The view's query, read from the URL and written back to it. A change replaces the
 * history entry rather than adding one (paging through 40 pages should not take 40 presses
 * of Back); a link pasted into the address bar, or Back to another view, is read again.
 */
export function useUrlQuery(): [ViewQuery, (change: (query: ViewQuery) => ViewQuery) => void] {
  const [query, setQuery] = useState(() => queryOfHash(window.location.hash));
  useEffect(() => {
    const read = (): void => setQuery(queryOfHash(window.location.hash));
    window.addEventListener("hashchange", read);
    return () => window.removeEventListener("hashchange", read);
  }, []);
  const update = (change: (query: ViewQuery) => ViewQuery): void => {
    setQuery((current) => {
      const next = change(current);
      const hash = hashWithQuery(pathOf(window.location.hash) || "#/", next);
      if (hash !== window.location.hash) window.history.replaceState(window.history.state, "", hash);
      return next;
    });
  };
  return [query, update];
}

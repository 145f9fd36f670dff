import { useId, useState } from "preact/hooks";

/**
 * Previous, next, and a page to go to (a bloc of a million records has 100,000 pages of
 * ten). When the total is only known to be "more than N", the last page is unknown: Next
 * stays available while pages come back full. A step counts from the page last asked
 * for, so two quick clicks move two pages even before the first loads.
 */
export function Pager({ page, pages, exact, lastPageFull, onStep, onPage }: {
  page: number; pages: number; exact: boolean; lastPageFull: boolean;
  onStep: (step: 1 | -1) => void; onPage: (page: number) => void;
}) {
  const id = useId();
  const [target, setTarget] = useState("");
  const hasNext = exact ? page < pages : lastPageFull;
  const wanted = Number(target);
  const valid = Number.isInteger(wanted) && wanted >= 1 && (!exact || wanted <= pages);
  return (
    <nav class="pager" aria-label="Pages">
      <button type="button" disabled={page <= 1} onClick={() => onStep(-1)}>Previous page</button>
      <span aria-live="polite">Page {page.toLocaleString("en")} of {exact ? pages.toLocaleString("en") : `more than ${pages.toLocaleString("en")}`}</span>
      <button type="button" disabled={!hasNext} onClick={() => onStep(1)}>Next page</button>
      <form class="go-to" onSubmit={(e) => { e.preventDefault(); if (valid) { onPage(wanted); setTarget(""); } }}>
        <label for={id}>Go to page</label>
        <input id={id} inputMode="numeric" size={7} value={target} onInput={(e) => setTarget(e.currentTarget.value.trim())} />
        <button type="submit" disabled={!valid}>Go</button>
      </form>
    </nav>
  );
}

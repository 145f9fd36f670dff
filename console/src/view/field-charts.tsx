import { useState } from "preact/hooks";
import type { GetDataResult } from "../../../src/client/types.js";
import type { Filters } from "./view-query.js";
import { byCount, repeats } from "./value-order.js";

const FIRST_BARS = 8;

/**
 * A bar chart per field whose values repeat, from get-data's `fieldCounts`: its most
 * frequent values, longest bar first, equal ones in the values' own order. Each bar is a button (so it is reached and pressed from the keyboard) that
 * adds its value to the filters, or removes it when pressed again (aria-pressed).
 */
export function FieldCharts({ fieldCounts, fieldNames, partial, skip, filters, filtered, onToggle }: {
  fieldCounts: GetDataResult["fieldCounts"]; fieldNames: Readonly<Record<string, string>>; partial: readonly string[];
  skip: ReadonlySet<string>; filters: Filters; filtered: boolean; onToggle: (slug: string, value: string) => void;
}) {
  const fields = Object.keys(fieldNames).filter((slug) => !skip.has(slug));
  const slugs = fields.filter((slug) => repeats(fieldCounts[slug] ?? {}));
  const unrepeated = fields.filter((slug) => !slugs.includes(slug)).map((slug) => fieldNames[slug] ?? slug);
  return (
    <section class="charts" aria-labelledby="charts-heading">
      <h2 id="charts-heading">Counts by field</h2>
      <p class="hint">
        {filtered
          ? "Counts over the date range, before value filters (the service counts values per field, not per filter); chosen values are marked."
          : "Counts over every record shown. Click a bar to show only records with that value."}
      </p>
      {unrepeated.length > 0 ? (
        <p class="hint" id="not-charted">Not charted, as no value repeats: {unrepeated.join(", ")}.</p>
      ) : null}
      {slugs.map((slug) => (
        <FieldChart key={slug} slug={slug} name={fieldNames[slug] ?? slug} counts={fieldCounts[slug] ?? {}}
          partial={partial.includes(slug)} chosen={filters[slug] ?? []} onToggle={(value) => onToggle(slug, value)} />
      ))}
    </section>
  );
}

function FieldChart({ slug, name, counts, partial, chosen, onToggle }: {
  slug: string; name: string; counts: Readonly<Record<string, number>>; partial: boolean; chosen: readonly string[];
  onToggle: (value: string) => void;
}) {
  const [all, setAll] = useState(false);
  // Sorted here: JSON objects put integer-like keys first whatever order the service sent.
  const bars = byCount(counts);
  const most = bars[0]?.[1] ?? 0;
  const visible = all ? bars : bars.slice(0, FIRST_BARS);
  const headingId = `chart-${slug}`;
  return (
    <figure class="chart" aria-labelledby={headingId}>
      <figcaption><h3 id={headingId}>{name}</h3></figcaption>
      {bars.length === 0 ? <p class="hint">No values.</p> : (
        <ul class="bars" aria-label={`Values of ${name}`}>
          {visible.map(([value, count]) => {
            const pressed = chosen.includes(value);
            return (
              <li key={value}>
                {/* Named by its text, "Line 2 15 records" (the last word for screen readers only); a grid ignores the spaces. */}
                <button type="button" class="bar" aria-pressed={pressed} onClick={() => onToggle(value)}>
                  <span class="bar-label">{value}</span>{" "}
                  <span class="bar-track" aria-hidden="true"><span class="bar-fill" style={{ width: `${Math.max(1, (count / most) * 100)}%` }} /></span>{" "}
                  <span class="bar-count">{count.toLocaleString("en")}<span class="sr-only"> {count === 1 ? "record" : "records"}</span></span>
                </button>
              </li>
            );
          })}
        </ul>
      )}
      {bars.length > FIRST_BARS ? (
        <button type="button" class="quiet" aria-expanded={all} onClick={() => setAll(!all)}>
          {all ? "Show fewer values" : `Show all ${bars.length.toLocaleString("en")} values`}
        </button>
      ) : null}
      {partial ? <p class="hint">Only the most frequent values are listed.</p> : null}
    </figure>
  );
}

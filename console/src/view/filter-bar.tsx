import { useId, useState } from "preact/hooks";
import type { GetDataResult } from "../../../src/client/types.js";
import { Select } from "../ui/controls.js";
import { hasFilters, type Filters } from "./view-query.js";
import { compareValues } from "./value-order.js";

/**
 * The value filters in force, each removable, and a form to add one. A record is shown
 * when, for every filtered field, its value equals one of that field's chosen values
 * (the report's filterDataToQuery). Suggestions come from the field's value counts.
 */
export function FilterBar({ filters, fieldNames, fieldCounts, onChange }: {
  filters: Filters; fieldNames: Readonly<Record<string, string>>; fieldCounts: GetDataResult["fieldCounts"];
  onChange: (filters: Filters) => void;
}) {
  const slugs = Object.keys(fieldNames);
  const [slug, setSlug] = useState("");
  const [value, setValue] = useState("");
  const valueId = useId();
  const field = slug || slugs[0] || "";
  const add = (event: Event): void => {
    event.preventDefault();
    if (!field) return;
    const values = filters[field] ?? [];
    if (!values.includes(value)) onChange({ ...filters, [field]: [...values, value] });
    setValue("");
  };
  const active = Object.entries(filters).flatMap(([s, values]) => values.map((v) => ({ slug: s, value: v })));
  return (
    <section class="filters" aria-labelledby="filters-heading">
      <h2 id="filters-heading" class="sr-only">Value filters</h2>
      <form class="add-filter" onSubmit={add}>
        <Select label="Field" value={field} onValue={setSlug} options={slugs.map((s) => ({ value: s, label: fieldNames[s] ?? s }))} />
        <div class="control">
          <label for={valueId}>Value</label>
          <input id={valueId} value={value} list={`${valueId}-values`} onInput={(e) => setValue(e.currentTarget.value)} />
          <datalist id={`${valueId}-values`}>
            {Object.keys(fieldCounts[field] ?? {}).sort(compareValues).slice(0, 200).map((v) => <option key={v} value={v} />)}
          </datalist>
        </div>
        <button type="submit" disabled={!field}>Add filter</button>
      </form>
      {hasFilters(filters) ? (
        <ul class="chips" aria-label="Filters in force">
          {active.map(({ slug: s, value: v }) => {
            const words = `${fieldNames[s] ?? s} is ${v === "" ? "empty" : `“${v}”`}`;
            return (
              <li key={`${s}\u0000${v}`} class="chip">
                <span>{words}</span>
                <button type="button" aria-label={`Remove the filter ${words}`}
                  onClick={() => onChange({ ...filters, [s]: (filters[s] ?? []).filter((x) => x !== v) })}>×</button>
              </li>
            );
          })}
          <li><button type="button" class="quiet" onClick={() => onChange({})}>Clear all filters</button></li>
        </ul>
      ) : null}
    </section>
  );
}

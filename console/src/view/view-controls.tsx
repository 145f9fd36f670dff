import { Select, TextInput } from "../ui/controls.js";
import { PAGE_SIZES, type ViewQuery } from "./view-query.js";

/** Order, date range and page size. Dates are whole days: a `to` date includes its whole day. */
export function ViewControls({ query, onChange }: { query: ViewQuery; onChange: (change: Partial<ViewQuery>) => void }) {
  const badRange = query.from !== "" && query.to !== "" && query.from > query.to;
  return (
    <form class="controls" aria-label="View" onSubmit={(e) => e.preventDefault()}>
      <Select label="Order" value={query.order} onValue={(order) => onChange({ order: order === "oldest" ? "oldest" : "newest" })}
        options={[{ value: "newest", label: "Newest first" }, { value: "oldest", label: "Oldest first" }]} />
      <TextInput label="From date" type="date" value={query.from} onValue={(from) => onChange({ from })} />
      <TextInput label="To date" type="date" value={query.to} onValue={(to) => onChange({ to })}
        error={badRange ? "The To date is before the From date." : undefined} />
      <Select label="Per page" value={String(query.size)} onValue={(size) => onChange({ size: Number(size) })}
        options={PAGE_SIZES.map((n) => ({ value: String(n), label: String(n) }))} />
      {query.from || query.to ? <button type="button" onClick={() => onChange({ from: "", to: "" })}>Clear dates</button> : null}
    </form>
  );
}

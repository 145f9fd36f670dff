import { useId } from "preact/hooks";
import type { FieldInfo } from "../view/bloc-fields.js";

export interface Pair {
  readonly slug: string;
  readonly value: string;
}

/** Rows of "field — value" in a fieldset: the update's search items, or its new values. */
export function PairRows({ legend, fields, pairs, onChange, valueLabel, addLabel }: {
  legend: string; fields: readonly FieldInfo[]; pairs: readonly Pair[]; onChange: (pairs: Pair[]) => void;
  valueLabel: string; addLabel: string;
}) {
  const id = useId();
  const put = (index: number, pair: Pair): void => onChange(pairs.map((p, i) => (i === index ? pair : p)));
  return (
    <fieldset class="pairs">
      <legend>{legend}</legend>
      {pairs.map((pair, index) => (
        <div class="pair" key={index}>
          <div class="control">
            <label for={`${id}-f${index}`}>Field {pairs.length > 1 ? index + 1 : ""}</label>
            <select id={`${id}-f${index}`} value={pair.slug} onChange={(e) => put(index, { ...pair, slug: e.currentTarget.value })}>
              {fields.map((f) => <option key={f.slug} value={f.slug}>{f.name}</option>)}
            </select>
          </div>
          <div class="control">
            <label for={`${id}-v${index}`}>{valueLabel}{pairs.length > 1 ? ` ${index + 1}` : ""}</label>
            <input id={`${id}-v${index}`} value={pair.value} onInput={(e) => put(index, { ...pair, value: e.currentTarget.value })} />
          </div>
          {pairs.length > 1 ? (
            <button type="button" class="quiet" aria-label={`Remove row ${index + 1}`} onClick={() => onChange(pairs.filter((_, i) => i !== index))}>Remove</button>
          ) : null}
        </div>
      ))}
      <button type="button" onClick={() => onChange([...pairs, { slug: fields.find((f) => !pairs.some((p) => p.slug === f.slug))?.slug ?? fields[0]?.slug ?? "", value: "" }])}>
        {addLabel}
      </button>
    </fieldset>
  );
}

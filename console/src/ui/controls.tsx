import type { ComponentChildren, InputHTMLAttributes, LooseInputHTMLAttributes } from "preact";
import { useId } from "preact/hooks";

/**
 * Labelled form controls: every input has a visible <label> tied to it, and an error or
 * hint is tied with aria-describedby, so that assistive technology reads them together.
 */

interface Described {
  readonly label: ComponentChildren;
  readonly hint?: ComponentChildren;
  readonly error?: string | undefined;
}

function describedBy(id: string, hint: unknown, error: unknown): string | undefined {
  const ids = [hint ? `${id}-hint` : "", error ? `${id}-error` : ""].filter((x) => x !== "");
  return ids.length > 0 ? ids.join(" ") : undefined;
}

function Notes({ id, hint, error }: { id: string; hint?: ComponentChildren; error?: string | undefined }) {
  return (
    <>
      {hint ? <span class="hint" id={`${id}-hint`}>{hint}</span> : null}
      {error ? <span class="field-error" id={`${id}-error`}>{error}</span> : null}
    </>
  );
}

/** The input attributes the console uses, spelled out (Preact's own input type is a union that Omit<> breaks). */
type InputProps = Described & {
  readonly value: string;
  readonly onValue: (value: string) => void;
  readonly type?: "text" | "password" | "email" | "date" | "datetime-local" | "url" | "search";
  readonly inputMode?: "text" | "decimal" | "numeric";
  readonly autocomplete?: string;
  readonly spellcheck?: boolean;
  readonly step?: number;
  readonly name?: string;
  readonly "aria-required"?: boolean | undefined;
};

export function TextInput({ label, hint, error, value, onValue, ...rest }: InputProps) {
  const id = useId();
  const attributes: LooseInputHTMLAttributes<HTMLInputElement> = {
    id, value, ...rest, "aria-invalid": error ? true : undefined, "aria-describedby": describedBy(id, hint, error),
    onInput: (e) => onValue(e.currentTarget.value),
  };
  return (
    <div class={error ? "control invalid" : "control"}>
      <label for={id}>{label}</label>
      {/* Preact types <input> as a union keyed by a literal `type`; ours is chosen at run time. */}
      <input {...(attributes as InputHTMLAttributes<HTMLInputElement>)} />
      <Notes id={id} hint={hint} error={error} />
    </div>
  );
}

export function TextArea({ label, hint, error, value, onValue, rows = 3 }: Described & {
  readonly value: string; readonly onValue: (value: string) => void; readonly rows?: number;
}) {
  const id = useId();
  return (
    <div class={error ? "control invalid" : "control"}>
      <label for={id}>{label}</label>
      <textarea id={id} value={value} rows={rows} onInput={(e) => onValue(e.currentTarget.value)}
        aria-invalid={error ? true : undefined} aria-describedby={describedBy(id, hint, error)} />
      <Notes id={id} hint={hint} error={error} />
    </div>
  );
}

export interface Option { readonly value: string; readonly label: string }

export function Select({ label, hint, error, value, onValue, options, disabled, name }: Described & {
  readonly value: string; readonly onValue: (value: string) => void; readonly options: readonly Option[];
  readonly disabled?: boolean; readonly name?: string;
}) {
  const id = useId();
  return (
    <div class={error ? "control invalid" : "control"}>
      <label for={id}>{label}</label>
      <select id={id} name={name} value={value} disabled={disabled} onChange={(e) => onValue(e.currentTarget.value)}
        aria-invalid={error ? true : undefined} aria-describedby={describedBy(id, hint, error)}>
        {options.map((o) => <option key={o.value} value={o.value}>{o.label}</option>)}
      </select>
      <Notes id={id} hint={hint} error={error} />
    </div>
  );
}

export function Checkbox({ label, checked, onChecked, hint }: {
  readonly label: ComponentChildren; readonly checked: boolean; readonly onChecked: (checked: boolean) => void; readonly hint?: ComponentChildren;
}) {
  const id = useId();
  return (
    <div class="control check">
      <input type="checkbox" id={id} checked={checked} onChange={(e) => onChecked(e.currentTarget.checked)}
        aria-describedby={hint ? `${id}-hint` : undefined} />
      <label for={id}>{label}</label>
      {hint ? <span class="hint" id={`${id}-hint`}>{hint}</span> : null}
    </div>
  );
}

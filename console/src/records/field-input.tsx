import { useId } from "preact/hooks";
import { Select, TextInput } from "../ui/controls.js";
import type { FieldInfo } from "../view/bloc-fields.js";

/** What a field's rules say, beside its input (the service checks them; this only tells). */
function hintOf(field: FieldInfo): string {
  const parts: string[] = [];
  if (field.type === "number") parts.push("A number, such as 12 or 3.5.");
  if (field.type === "autogenerate") parts.push(`Left empty, the service fills it${field.format ? ` (${field.format})` : ""}.`);
  if (field.maxLength !== null) parts.push(`At most ${field.maxLength} characters.`);
  if (field.pattern !== null) parts.push(`Must match ${field.pattern}.`);
  return parts.join(" ");
}

/** `datetime-local` gives 2026-11-23T09:00(:00); the service takes 2026-11-23 09:00:00. */
function fromDateTimeLocal(value: string): string {
  if (value === "") return "";
  const [date, time = ""] = value.split("T");
  return `${date} ${time.length === 5 ? `${time}:00` : time}`;
}

/** One field of the add form, as its type asks; untyped fields (a member's view) are text boxes. */
export function FieldInput({ field, value, onValue, onFile, error }: {
  field: FieldInfo; value: string; onValue: (value: string) => void; onFile: (file: File | undefined) => void; error: string | undefined;
}) {
  const fileId = useId();
  const label = `${field.name}${field.required ? " (required)" : ""}`;
  const hint = hintOf(field) || undefined;
  const common = { label, hint, error, value, onValue, name: field.slug, "aria-required": field.required ? true : undefined } as const;
  switch (field.type) {
    case "select":
      return <Select label={label} hint={hint} error={error} value={value} onValue={onValue} name={field.slug}
        options={[{ value: "", label: "(none)" }, ...(field.options ?? []).map((o) => ({ value: o, label: o }))]} />;
    case "date":
      return <TextInput {...common} type="date" />;
    case "datetime":
      return <TextInput {...common} type="datetime-local" step={1} value={value.replace(" ", "T")} onValue={(v) => onValue(fromDateTimeLocal(v))} />;
    case "number":
      return <TextInput {...common} inputMode="decimal" autocomplete="off" />;
    case "file":
      return (
        <div class={error ? "control invalid" : "control"}>
          <label for={fileId}>{label}</label>
          <input type="file" id={fileId} name={field.slug} onChange={(e) => onFile(e.currentTarget.files?.[0])}
            aria-invalid={error ? true : undefined} aria-describedby={error ? `${fileId}-error` : undefined} />
          {error ? <span class="field-error" id={`${fileId}-error`}>{error}</span> : null}
        </div>
      );
    default:
      return <TextInput {...common} autocomplete="off" />;
  }
}

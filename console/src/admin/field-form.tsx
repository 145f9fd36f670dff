import { useState } from "preact/hooks";
import { errorMessage } from "../api.js";
import { Checkbox, Select, TextArea, TextInput } from "../ui/controls.js";
import type { Field, FieldInput, FieldType } from "../../../src/client/types.js";

export const FIELD_TYPES: readonly { readonly value: FieldType; readonly label: string }[] = [
  { value: "text", label: "Text" }, { value: "number", label: "Number" }, { value: "date", label: "Date" },
  { value: "datetime", label: "Date and time" }, { value: "select", label: "Choice (select)" },
  { value: "file", label: "File" }, { value: "autogenerate", label: "Auto-generated" },
];

const lines = (text: string): string[] => text.split("\n").map((l) => l.trim()).filter((l) => l !== "");

/**
 * A field's name, type and rules, to add a field or change one. Rules that do not apply
 * to the type are sent as null, so changing a type clears them rather than being refused.
 */
export function FieldForm({ field, submitLabel, onSave, onCancel }: {
  field?: Field; submitLabel: string; onSave: (input: FieldInput) => Promise<void>; onCancel?: () => void;
}) {
  const [name, setName] = useState(field?.name ?? "");
  const [slug, setSlug] = useState("");
  const [type, setType] = useState<FieldType>(field?.type ?? "text");
  const [options, setOptions] = useState((field?.options ?? []).join("\n"));
  const [format, setFormat] = useState(field?.format ?? "");
  const [required, setRequired] = useState(field?.required ?? false);
  const [unique, setUnique] = useState(field?.unique ?? false);
  const [maxLength, setMaxLength] = useState(field?.maxLength === null || field?.maxLength === undefined ? "" : String(field.maxLength));
  const [pattern, setPattern] = useState(field?.pattern ?? "");
  const [profile, setProfile] = useState(field?.applyProfileFilter ?? false);
  const [failure, setFailure] = useState("");
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event): Promise<void> => {
    event.preventDefault();
    setFailure("");
    const length = maxLength.trim() === "" ? null : Number(maxLength);
    if (length !== null && !Number.isInteger(length)) { setFailure("Maximum length must be a whole number."); return; }
    setBusy(true);
    try {
      await onSave({
        name, type, required, unique, applyProfileFilter: profile,
        ...(field === undefined && slug.trim() !== "" ? { slug: slug.trim() } : {}),
        options: type === "select" ? lines(options) : null,
        format: type === "autogenerate" ? format : null,
        maxLength: length,
        pattern: pattern === "" ? null : pattern,
      });
    } catch (error) {
      setFailure(errorMessage(error));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="field-form" onSubmit={(e) => void submit(e)} noValidate>
      <div class="row">
        <TextInput label="Field name" value={name} onValue={setName} />
        {field === undefined ? <TextInput label="Slug (optional)" value={slug} onValue={setSlug} hint="Letters, digits or _; field_N by default." /> : null}
        <Select label="Type" value={type} onValue={(t) => setType(t as FieldType)} options={FIELD_TYPES} />
      </div>
      {type === "select" ? <TextArea label="Choices, one per line" value={options} onValue={setOptions} /> : null}
      {type === "autogenerate" ? (
        <TextInput label="Format" value={format} onValue={setFormat}
          hint="Text, {YYYY} {YY} {MM} {DD}, and one counter: {seq:5}, or {seq:4 by field_2} per value of another field." />
      ) : null}
      <div class="row">
        <TextInput label="Maximum length" inputMode="numeric" value={maxLength} onValue={setMaxLength} hint="Characters; empty for none." />
        <TextInput label="Pattern" value={pattern} onValue={setPattern} hint="A regular expression the whole value must match." />
      </div>
      <div class="row checks">
        <Checkbox label="Required" checked={required} onChecked={setRequired} />
        <Checkbox label="Unique in the bloc" checked={unique} onChecked={setUnique} />
        <Checkbox label="Profile filter" checked={profile} onChecked={setProfile}
          hint="Members see only records whose value here is one of their profile values." />
      </div>
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>{submitLabel}</button>
        {onCancel ? <button type="button" onClick={onCancel}>Cancel</button> : null}
      </div>
      {failure ? <p class="alert" role="alert">{failure}</p> : null}
    </form>
  );
}

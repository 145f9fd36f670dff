import { useState } from "preact/hooks";
import type { Session } from "../app.js";
import { errorMessage } from "../api.js";
import { useAsync } from "../use-async.js";
import { Failure, Loading, Status } from "../ui/notice.js";
import { TextInput } from "../ui/controls.js";
import { BlocApiError } from "../../../src/client/errors.js";
import type { AddDataResult } from "../../../src/client/types.js";
import { fieldOfMessage, loadFields, type BlocFields } from "../view/bloc-fields.js";
import { FieldInput } from "./field-input.js";

/** The add-data form, built from the bloc's fields. */
export function AddRecord({ session, blocId }: { session: Session; blocId: string }) {
  const [fields] = useAsync(() => loadFields(session, blocId), [blocId]);
  if (fields.state === "loading") return <Loading what="the bloc's fields" />;
  if (fields.state === "failed") return <Failure error={fields.error} prefix="The form cannot be built" />;
  return <AddForm session={session} blocId={blocId} described={fields.value} />;
}

function AddForm({ session, blocId, described }: { session: Session; blocId: string; described: BlocFields }) {
  const { bloc, named } = described;
  // Without `read` the fields cannot be listed: the user adds each field they fill by its slug.
  const [typed, setTyped] = useState<BlocFields["fields"]>([]);
  const fields = named ? described.fields : typed;
  const [values, setValues] = useState<Record<string, string>>({});
  const [files, setFiles] = useState<Record<string, File>>({});
  const [job, setJob] = useState("");
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const [failure, setFailure] = useState("");
  const [added, setAdded] = useState<AddDataResult | null>(null);
  const [busy, setBusy] = useState(false);
  const [round, setRound] = useState(0);
  // Members do not learn whether the bloc takes a job ID; admins see it in the bloc's settings.
  const askJob = bloc === null || bloc.requireJob || bloc.moduleId !== null;

  const submit = async (event: Event): Promise<void> => {
    event.preventDefault();
    setBusy(true);
    setFieldErrors({});
    setFailure("");
    setAdded(null);
    try {
      // Empty values are left out: a field never set reads "" anyway, and an empty autogenerate field is filled.
      const dataToAdd = Object.fromEntries(Object.entries(values).filter(([, v]) => v !== ""));
      const result = await session.client.addData({ scanStationID: blocId, dataToAdd, ...(job ? { jobID: job } : {}) }, files);
      setAdded(result);
      setValues({});
      setFiles({});
      setJob("");
      setRound((n) => n + 1);
    } catch (error) {
      const text = error instanceof BlocApiError ? error.text : errorMessage(error);
      const slug = fieldOfMessage(text, fields);
      if (slug !== undefined) {
        setFieldErrors({ [slug]: text });
        // The first invalid field takes the focus, so the message beside it is read out.
        window.setTimeout(() => (document.querySelector(`[name="${CSS.escape(slug)}"]`) as HTMLElement | null)?.focus(), 0);
      }
      setFailure(`The record was not added: ${errorMessage(error)}`);
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
    {!named ? (
      <SlugPicker taken={fields.map((f) => f.slug)} onAdd={(slug) => setTyped((t) => [...t, {
        slug, name: slug, type: null, options: null, required: false, maxLength: null, pattern: null, format: null,
      }])} />
    ) : null}
    <form class="record-form" onSubmit={(e) => void submit(e)} noValidate key={round}>
      {bloc === null ? (
        <p class="hint">Field types are shown to admins only (the API describes a bloc's fields through the admin API);
          every field is a text box here and the service says what a value must be.</p>
      ) : null}
      {fields.map((field) => (
        <FieldInput key={field.slug} field={field} value={values[field.slug] ?? ""} error={fieldErrors[field.slug]}
          onValue={(value) => setValues((v) => ({ ...v, [field.slug]: value }))}
          onFile={(file) => setFiles((f) => {
            const { [field.slug]: _dropped, ...rest } = f;
            return file ? { ...rest, [field.slug]: file } : rest;
          })} />
      ))}
      {askJob ? <TextInput label={`Job (module) ID${bloc?.requireJob ? " (required)" : ""}`} value={job} onValue={setJob} name="jobID" /> : null}
      <button type="submit" class="primary" disabled={busy}>{busy ? "Adding…" : "Add record"}</button>
    </form>
    {/* Outside the form, which is rebuilt after each add: a live region must outlive its messages. */}
    {failure ? <p class="alert" role="alert">{failure}</p> : null}
    <Status>
      {added ? `Record ${added.returnedStationID} added.` : ""}
      {added && added.autogenerateReplacements.length > 0 ? ` ${replacements(added)}` : ""}
    </Status>
    </>
  );
}

/**
 * For a token that may add but not read: fields are added to the form by slug (field_1,
 * field_2, …, as the bloc's admin gives them), since nothing this token may call lists them.
 */
function SlugPicker({ taken, onAdd }: { taken: readonly string[]; onAdd: (slug: string) => void }) {
  const [slug, setSlug] = useState("");
  const add = (event: Event): void => {
    event.preventDefault();
    const trimmed = slug.trim();
    if (trimmed === "" || taken.includes(trimmed)) return;
    onAdd(trimmed);
    setSlug("");
  };
  return (
    <form class="row" onSubmit={add} noValidate>
      <TextInput label="Field ID to fill (e.g. field_1)" value={slug} onValue={setSlug}
        hint="This token may add records but not read them, so the bloc's fields cannot be listed here: add each field you fill by its ID." />
      <button type="submit">Add the field</button>
    </form>
  );
}

function replacements(added: AddDataResult): string {
  return (added.autogenerateReplacements as { field?: string; sent?: string; value?: string }[])
    .map((r) => `${r.field ?? "?"} was taken, so it got ${r.value ?? "?"} instead of ${r.sent ?? "?"}.`).join(" ");
}

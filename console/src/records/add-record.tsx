import { useRef, useState } from "preact/hooks";
import type { Session } from "../session.js";
import { errorMessage, isAdmin } from "../api.js";
import type { BlocForm } from "../calls.js";
import { useAsync } from "../use-async.js";
import { Failure, Loading, Status } from "../ui/notice.js";
import { BlocApiError } from "../../../src/client/errors.js";
import type { AddDataResult } from "../../../src/client/types.js";
import { fieldOfMessage } from "../view/bloc-fields.js";
import { JobInput, jobAsked } from "./job-input.js";
import { FieldInput, keepable } from "./field-input.js";

/** The add-data form, built from what GET /api/blocs/:blocId/fields says of the bloc's fields. */
export function AddRecord({ session, blocId }: { session: Session; blocId: string }) {
  const [form] = useAsync(() => session.client.blocFields(blocId), [blocId]);
  if (form.state === "loading") return <Loading what="the bloc's fields" />;
  if (form.state === "failed") return <Failure error={form.error} prefix="The form cannot be built" />;
  return <AddForm session={session} blocId={blocId} form={form.value} />;
}

/** Focuses the first field of the form, or the first one that is invalid. */
function focusIn(form: HTMLFormElement | null, slugs: readonly string[]): void {
  for (const slug of slugs) {
    const input = form?.querySelector<HTMLElement>(`[name="${CSS.escape(slug)}"]`);
    if (input) { input.focus(); return; }
  }
}

/**
 * Made for a station scanning part after part: Enter submits (a scanner types the code,
 * then sends Enter), a field's "keep for the next record" carries its value on while the
 * others clear, and after each add the focus is back on the first field. A refusal marks
 * every failing field at once, each with its message beside it.
 */
function AddForm({ session, blocId, form }: { session: Session; blocId: string; form: BlocForm }) {
  const { fields } = form;
  const [values, setValues] = useState<Record<string, string>>({});
  const [files, setFiles] = useState<Record<string, File>>({});
  const [kept, setKept] = useState<Record<string, boolean>>({});
  const [job, setJob] = useState(form.requireJob && form.modules.length === 1 ? form.modules[0]!.id : "");
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const [failure, setFailure] = useState("");
  const [added, setAdded] = useState<AddDataResult | null>(null);
  const [busy, setBusy] = useState(false);
  // File inputs cannot be emptied by state: the form's file inputs are rebuilt after each add.
  const [round, setRound] = useState(0);
  const running = useRef(false);
  const formRef = useRef<HTMLFormElement>(null);
  const order = fields.map((f) => f.slug);

  const submit = async (event: Event): Promise<void> => {
    event.preventDefault();
    // A scanner's Enter while the last add is on its way would send the same line twice.
    if (running.current) return;
    running.current = true;
    setBusy(true);
    setFieldErrors({});
    setFailure("");
    setAdded(null);
    try {
      // Empty values are left out: a field never set reads "" anyway, and an empty autogenerate field is filled.
      const dataToAdd = Object.fromEntries(Object.entries(values).filter(([slug, v]) => v !== "" && order.includes(slug)));
      const result = await session.client.addData({ scanStationID: blocId, dataToAdd, ...(job ? { jobID: job } : {}) }, files);
      setAdded(result);
      setValues((all) => Object.fromEntries(Object.entries(all).filter(([slug]) => kept[slug] === true)));
      setFiles({});
      setRound((n) => n + 1);
      window.setTimeout(() => focusIn(formRef.current, order), 0);
    } catch (error) {
      const text = error instanceof BlocApiError ? error.text : errorMessage(error);
      const listed = (error instanceof BlocApiError ? error.fields : undefined) ?? {};
      const single = fieldOfMessage(text, fields);
      const marked = Object.keys(listed).length > 0 ? listed : single !== undefined ? { [single]: text } : {};
      setFieldErrors(marked);
      setFailure(`The record was not added: ${errorMessage(error)}`);
      // The first invalid field takes the focus, so the message beside it is read out.
      window.setTimeout(() => focusIn(formRef.current, order.filter((slug) => slug in marked)), 0);
    } finally {
      running.current = false;
      setBusy(false);
    }
  };

  const closed = !form.acceptingData;
  const keptCount = fields.filter((f) => kept[f.slug] && keepable(f)).length;
  return (
    <>
      {closed ? (
        <p class="notice">{isAdmin(session.me) ? "This bloc is not accepting data: only admins may add to it now." : "This bloc is not accepting data at the moment."}</p>
      ) : null}
      <form class="record-form" onSubmit={(e) => void submit(e)} noValidate ref={formRef} aria-describedby="add-form-note">
        <p class="hint" id="add-form-note">
          Fields marked (required) must be filled. Press Enter in any box to add the record
          {keptCount > 0 ? `; ${keptCount === 1 ? "1 value is" : `${keptCount} values are`} kept for the next one` : ""}.
        </p>
        {fields.map((field) => (
          <FieldInput key={`${field.slug}-${field.type === "file" ? round : 0}`} field={field} value={values[field.slug] ?? ""}
            error={fieldErrors[field.slug]}
            onValue={(value) => setValues((v) => ({ ...v, [field.slug]: value }))}
            onFile={(file) => setFiles((f) => {
              const { [field.slug]: _dropped, ...rest } = f;
              return file ? { ...rest, [field.slug]: file } : rest;
            })}
            keep={{ on: kept[field.slug] === true, onChange: (on) => setKept((k) => ({ ...k, [field.slug]: on })) }} />
        ))}
        {jobAsked(form) ? <JobInput form={form} value={job} onValue={setJob} /> : null}
        <button type="submit" class="primary wide" disabled={busy}>{busy ? "Adding…" : "Add record"}</button>
      </form>
      {failure ? <p class="alert" role="alert">{failure}</p> : null}
      <Status>
        {added ? `Record ${added.returnedStationID} added.` : ""}
        {added && added.autogenerateReplacements.length > 0 ? ` ${replacements(added)}` : ""}
      </Status>
    </>
  );
}

function replacements(added: AddDataResult): string {
  return (added.autogenerateReplacements as { field?: string; sent?: string; value?: string }[])
    .map((r) => `${r.field ?? "?"} was taken, so it got ${r.value ?? "?"} instead of ${r.sent ?? "?"}.`).join(" ");
}

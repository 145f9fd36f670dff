import { useEffect, useRef, useState } from "preact/hooks";
import type { Session } from "../session.js";
import { errorMessage, isAdmin } from "../api.js";
import { RECORD_ID, type BlocForm } from "../calls.js";
import { href } from "../route.js";
import { shown, useAsync } from "../use-async.js";
import { Failure, Loading, Status } from "../ui/notice.js";
import { PageHeading } from "../ui/page-heading.js";
import { BlocApiError } from "../../../src/client/errors.js";
import type { DataRecord, Me } from "../../../src/client/types.js";
import { fieldOfMessage } from "../view/bloc-fields.js";
import { FieldInput } from "./field-input.js";
import { findRecord } from "./find-record.js";
import { RecordHistory } from "./record-history.js";
import "../forms.css";

type Bloc = Me["blocs"][number];

/**
 * One record: its values, and — for those allowed, as the fields endpoint's `permissions`
 * say — its edit form, deletion (after a confirmation) and, for admins, its history and
 * restoring it once deleted.
 */
export function RecordPage({ session, bloc, recordId }: { session: Session; bloc: Bloc; recordId: string }) {
  const [form] = useAsync(() => session.client.blocFields(bloc.id), [bloc.id]);
  return (
    <>
      <PageHeading>Record {recordId} of {bloc.name}</PageHeading>
      <p><a href={href({ page: "records", blocId: bloc.id })}>Back to the records of {bloc.name}</a></p>
      {form.state === "loading" ? <Loading what="the bloc's fields" />
        : form.state === "failed" ? <Failure error={form.error} prefix="The record cannot be shown" />
          : <RecordBody session={session} form={form.value} recordId={recordId} />}
    </>
  );
}

function RecordBody({ session, form, recordId }: { session: Session; form: BlocForm; recordId: string }) {
  const blocId = form.blocId;
  const admin = isAdmin(session.me);
  const [record, reload] = useAsync(
    () => (form.permissions.read !== true ? Promise.resolve(null) : findRecord(session.client, blocId, recordId)), [],
  );
  const [historyRound, setHistoryRound] = useState(0);
  const [mode, setMode] = useState<"view" | "edit" | "confirm-delete">("view");
  const [message, setMessage] = useState("");
  const [problem, setProblem] = useState("");
  const changed = (text: string): void => { setMessage(text); setProblem(""); setMode("view"); reload(); setHistoryRound((n) => n + 1); };

  const restore = async (): Promise<void> => {
    setProblem("");
    try {
      await session.client.admin.restoreRecord(blocId, recordId);
      changed(`Record ${recordId} restored.`);
    } catch (error) {
      setProblem(`Not restored: ${errorMessage(error)}`);
    }
  };

  const current = shown(record);
  let body;
  if (form.permissions.read !== true) {
    body = <p>Reading a record needs read access to this bloc.</p>;
  } else if (record.state === "failed") {
    body = <Failure error={record.error} prefix="The record could not be read" />;
  } else if (current === undefined) {
    body = <Loading what="the record" />;
  } else if (current === null) {
    body = (
      <div class="panel">
        <p>Record {recordId} is not among the records you can see: it was deleted, or the link is wrong.</p>
        {admin ? <button type="button" onClick={() => void restore()}>Restore record {recordId}</button> : null}
      </div>
    );
  } else {
    body = (
      <>
        <RecordValues form={form} record={current} />
        {mode === "edit" ? (
          <EditRecord session={session} form={form} record={current} onCancel={() => setMode("view")}
            onSaved={(text) => changed(text)} />
        ) : mode === "confirm-delete" ? (
          <ConfirmDelete session={session} form={form} recordId={recordId} admin={admin} onCancel={() => setMode("view")}
            onDeleted={(text) => changed(text)} onFailed={setProblem} />
        ) : (
          <div class="actions record-actions">
            {form.permissions.update === true ? <button type="button" class="primary" onClick={() => { setMessage(""); setMode("edit"); }}>Edit record</button> : null}
            {form.permissions.delete === true ? <button type="button" class="danger" onClick={() => { setMessage(""); setMode("confirm-delete"); }}>Delete record</button> : null}
          </div>
        )}
      </>
    );
  }
  return (
    <div class="record-layout">
      <section aria-labelledby="values-heading" class="record-main">
        <h2 id="values-heading">Values</h2>
        {body}
        {problem ? <p class="alert" role="alert">{problem}</p> : null}
        <Status id="record-outcome">{message}</Status>
      </section>
      {admin ? <RecordHistory key={historyRound} session={session} form={form} recordId={recordId} /> : null}
    </div>
  );
}

function RecordValues({ form, record }: { form: BlocForm; record: DataRecord }) {
  return (
    <dl class="record-values">
      <div><dt>Created</dt><dd>{record.created_at}</dd></div>
      <div><dt>Added by (user ID)</dt><dd>{record.user_id}</dd></div>
      {form.fields.map((field) => {
        const value = String(record[field.slug] ?? "");
        return <div key={field.slug}><dt>{field.name}</dt><dd>{value === "" ? <span class="hint">(empty)</span> : value}</dd></div>;
      })}
    </dl>
  );
}

/**
 * Edits one record through update-records-by-matching-values, addressed by its ID
 * (searchItems {service_entry_row_id}); only the fields whose values changed are sent.
 */
function EditRecord({ session, form, record, onCancel, onSaved }: {
  session: Session; form: BlocForm; record: DataRecord; onCancel: () => void; onSaved: (message: string) => void;
}) {
  // Files are replaced by adding a record, not here: update-records takes text values.
  const editable = form.fields.filter((f) => f.type !== "file");
  const original = Object.fromEntries(editable.map((f) => [f.slug, String(record[f.slug] ?? "")]));
  const [values, setValues] = useState<Record<string, string>>(original);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [failure, setFailure] = useState("");
  const [busy, setBusy] = useState(false);
  const formRef = useRef<HTMLFormElement>(null);
  const id = String(record.service_entry_row_id);
  useEffect(() => { formRef.current?.querySelector<HTMLElement>("input, select")?.focus(); }, []);

  const save = async (event: Event): Promise<void> => {
    event.preventDefault();
    if (busy) return;
    const fieldsToUpdate = Object.fromEntries(Object.entries(values).filter(([slug, v]) => v !== original[slug]));
    if (Object.keys(fieldsToUpdate).length === 0) { setFailure("Nothing changed: edit a value, or cancel."); return; }
    setBusy(true);
    setFailure("");
    setErrors({});
    try {
      const ids = await session.client.updateRecordsByMatchingValues({ blocId: form.blocId, searchItems: { [RECORD_ID]: id }, fieldsToUpdate });
      if (ids.length === 0) setFailure("Not saved: the record is no longer among those you may change.");
      else onSaved(`Record ${id} saved.`);
    } catch (error) {
      const text = error instanceof BlocApiError ? error.text : errorMessage(error);
      const listed = (error instanceof BlocApiError ? error.fields : undefined) ?? {};
      const single = fieldOfMessage(text, editable);
      setErrors(Object.keys(listed).length > 0 ? listed : single !== undefined ? { [single]: text } : {});
      setFailure(`Not saved: ${errorMessage(error)}`);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="record-form panel" onSubmit={(e) => void save(e)} noValidate ref={formRef} aria-labelledby="edit-heading">
      <h3 id="edit-heading">Edit record {id}</h3>
      {editable.map((field) => (
        <FieldInput key={field.slug} field={field} value={values[field.slug] ?? ""} error={errors[field.slug]}
          onValue={(value) => setValues((v) => ({ ...v, [field.slug]: value }))} />
      ))}
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>{busy ? "Saving…" : "Save changes"}</button>
        <button type="button" onClick={onCancel}>Cancel</button>
      </div>
      {failure ? <p class="alert" role="alert">{failure}</p> : null}
    </form>
  );
}

function ConfirmDelete({ session, form, recordId, admin, onCancel, onDeleted, onFailed }: {
  session: Session; form: BlocForm; recordId: string; admin: boolean; onCancel: () => void; onDeleted: (message: string) => void;
  onFailed: (message: string) => void;
}) {
  const [busy, setBusy] = useState(false);
  const confirmRef = useRef<HTMLButtonElement>(null);
  // The confirmation takes the focus: Enter or Space confirms, Tab reaches Cancel.
  useEffect(() => { confirmRef.current?.focus(); }, []);
  const confirm = async (): Promise<void> => {
    if (busy) return;
    setBusy(true);
    try {
      const ids = await session.client.deleteRecordsByMatchingValues({ blocId: form.blocId, searchItems: { [RECORD_ID]: recordId } });
      if (ids.map(String).includes(recordId)) onDeleted(`Record ${recordId} deleted.${admin ? " It can be restored below." : ""}`);
      else onFailed("Not deleted: the record is no longer among those you may delete.");
    } catch (error) {
      onFailed(`Not deleted: ${errorMessage(error)}`);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="confirm" role="group" aria-labelledby="confirm-delete-text">
      <p id="confirm-delete-text">
        Delete record {recordId} of {form.name}? It leaves the bloc's records, counts and reports; its history keeps it
        {admin ? ", and an admin can restore it" : ", and an admin can restore it if asked"}.
      </p>
      <div class="actions">
        <button type="button" class="primary danger" ref={confirmRef} disabled={busy} onClick={() => void confirm()}>Confirm: delete record {recordId}</button>
        <button type="button" onClick={onCancel}>Cancel</button>
      </div>
    </div>
  );
}

import { useState } from "preact/hooks";
import type { Session } from "../session.js";
import { href } from "../route.js";
import { shown, useAsync } from "../use-async.js";
import { Failure, Loading, Status } from "../ui/notice.js";
import { PageHeading } from "../ui/page-heading.js";
import type { Bloc, Field } from "../../../src/client/types.js";
import { FieldForm } from "./field-form.js";
import { BlocSettingsForm } from "./bloc-settings.js";
import { BlocAccessList } from "./bloc-access-list.js";
import { DeleteBloc } from "./delete-bloc.js";
import { ConfirmAction } from "../ui/confirm-action.js";
import "../forms.css";

/** One bloc's settings and fields, editable. */
export function AdminBloc({ session, blocId }: { session: Session; blocId: string }) {
  const [result, reload] = useAsync(() => session.client.admin.getBloc(blocId), [blocId]);
  // After a save the bloc is read again with the editor kept, and its "saved" message with it.
  const bloc = shown(result);
  if (result.state === "failed") return <><PageHeading>Bloc {blocId}</PageHeading><Failure error={result.error} /></>;
  if (bloc === undefined) return <Loading what="the bloc" />;
  return <BlocEditor session={session} bloc={bloc} reload={reload} />;
}

function rulesOf(field: Field): string {
  const rules: string[] = [];
  if (field.required) rules.push("required");
  if (field.unique) rules.push("unique");
  if (field.maxLength !== null) rules.push(`at most ${field.maxLength} characters`);
  if (field.pattern !== null) rules.push(`matches ${field.pattern}`);
  if (field.options !== null) rules.push(`one of ${field.options.join(", ")}`);
  if (field.format !== null) rules.push(`format ${field.format}`);
  return rules.join("; ");
}

function BlocEditor({ session, bloc, reload }: { session: Session; bloc: Bloc; reload: () => void }) {
  const [editing, setEditing] = useState<string | null>(null);
  const [message, setMessage] = useState("");
  const admin = session.client.admin;
  return (
    <>
      <PageHeading>Bloc {bloc.name}</PageHeading>
      <p>ID <code>{bloc.id}</code>. <a href={href({ page: "records", blocId: bloc.id })}>Open its records</a>.</p>
      <BlocSettingsForm session={session} bloc={bloc} onSaved={() => { setMessage("Settings saved."); reload(); }} />
      <section aria-labelledby="fields-heading">
        <h2 id="fields-heading">Fields</h2>
        <div class="table-scroll" role="region" aria-label="Fields table" tabIndex={0}>
          <table>
            <caption>{bloc.fields.length} {bloc.fields.length === 1 ? "field" : "fields"}, in order</caption>
            <thead><tr><th scope="col">Name</th><th scope="col">Slug</th><th scope="col">Type</th><th scope="col">Rules</th><th scope="col">Profile filter</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
            <tbody>
              {bloc.fields.map((field) => (
                <tr key={field.slug}>
                  <td>{field.name}</td><td><code>{field.slug}</code></td><td>{field.type}</td><td>{rulesOf(field)}</td>
                  <td>{field.applyProfileFilter ? "yes" : "no"}</td>
                  <td><span class="actions">
                    <button type="button" aria-label={`Edit the field ${field.name}`} aria-expanded={editing === field.slug}
                      onClick={() => setEditing(editing === field.slug ? null : field.slug)}>Edit</button>
                    <ConfirmAction label="Retire" name={`Retire the field ${field.name}`} confirmLabel={`Confirm: retire ${field.name}`}
                      question="It leaves the forms, listings and reports and is no longer accepted; the values records hold stay in them and their history. Its slug is never given again."
                      onConfirm={async () => { await session.client.admin.retireField(bloc.id, field.slug); setMessage(`Field ${field.name} retired.`); reload(); }} />
                  </span></td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        {bloc.fields.filter((f) => f.slug === editing).map((field) => (
          <section key={field.slug} aria-labelledby="edit-field-heading" class="panel">
            <h3 id="edit-field-heading">Edit the field {field.name}</h3>
            <FieldForm field={field} submitLabel="Save field" onCancel={() => setEditing(null)} onSave={async (input) => {
              const { slug: _unchanged, ...changes } = input;
              await admin.updateField(bloc.id, field.slug, changes);
              setEditing(null);
              setMessage(`Field ${input.name} saved.`);
              reload();
            }} />
          </section>
        ))}
      </section>
      <section aria-labelledby="add-field-heading">
        <h2 id="add-field-heading">Add a field</h2>
        <FieldForm submitLabel="Add field" onSave={async (input) => {
          const field = await admin.addField(bloc.id, input);
          setMessage(`Field ${field.name} added (slug ${field.slug}).`);
          reload();
        }} />
      </section>
      <Status>{message}</Status>
      <BlocAccessList session={session} blocId={bloc.id} />
      <DeleteBloc session={session} bloc={bloc} />
    </>
  );
}

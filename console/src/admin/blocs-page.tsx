import { useState } from "preact/hooks";
import type { Session } from "../session.js";
import { byName } from "../api.js";
import { useSubmit } from "../use-submit.js";
import { href } from "../route.js";
import { useAsync } from "../use-async.js";
import { Checkbox, Select, TextInput } from "../ui/controls.js";
import { Failure, Loading, Status } from "../ui/notice.js";
import { PageHeading } from "../ui/page-heading.js";
import type { FieldInput, FieldType, RestrictionMode } from "../../../src/client/types.js";
import { FIELD_TYPES } from "./field-form.js";
import { RESTRICTIONS } from "./labels.js";
import { ModulesSection } from "./modules-section.js";

/** Every bloc, and a form to create one with its first fields (their rules are set on the bloc's page). */
export function AdminBlocs({ session }: { session: Session }) {
  const [blocs, reload] = useAsync(async () => byName(await session.client.admin.listBlocs()), []);
  const [created, setCreated] = useState<{ id: string; name: string } | null>(null);
  return (
    <>
      <PageHeading>Blocs and fields</PageHeading>
      <section aria-labelledby="blocs-heading">
        <h2 id="blocs-heading">Blocs</h2>
        {blocs.state === "loading" ? <Loading what="blocs" /> : blocs.state === "failed" ? <Failure error={blocs.error} /> : (
          <div class="table-scroll" role="region" aria-label="Blocs table" tabIndex={0}>
            <table>
              <caption>{blocs.value.length} {blocs.value.length === 1 ? "bloc" : "blocs"}</caption>
              <thead><tr><th scope="col">Name</th><th scope="col">ID</th><th scope="col">Fields</th><th scope="col">Restriction</th><th scope="col">Accepting data</th><th scope="col">Scan limit</th></tr></thead>
              <tbody>
                {blocs.value.map((bloc) => (
                  <tr key={bloc.id}>
                    <td><a href={href({ page: "admin-bloc", blocId: bloc.id })}>{bloc.name}</a></td>
                    <td><code>{bloc.id}</code></td>
                    <td>{bloc.fields.map((f) => f.name).join(", ")}</td>
                    <td>{bloc.restriction}</td>
                    <td>{bloc.acceptingData ? "yes" : "no"}</td>
                    <td>{bloc.scanLimit === null ? "none" : `${bloc.scanLimit} ${bloc.scanLimitPeriod ? `a ${bloc.scanLimitPeriod}` : "ever"}`}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      <CreateBloc session={session} onCreated={(bloc) => { setCreated(bloc); reload(); session.refresh(); }} />
      <Status>{created ? <>Bloc <a href={href({ page: "admin-bloc", blocId: created.id })}>{created.name}</a> created (ID {created.id}).</> : ""}</Status>
      <ModulesSection session={session} />
    </>
  );
}

interface Draft { readonly name: string; readonly type: FieldType; readonly required: boolean; readonly extra: string }

function CreateBloc({ session, onCreated }: { session: Session; onCreated: (bloc: { id: string; name: string }) => void }) {
  const [name, setName] = useState("");
  const [id, setId] = useState("");
  const [restriction, setRestriction] = useState<RestrictionMode>("none");
  const [open, setOpen] = useState(false);
  const [fields, setFields] = useState<Draft[]>([{ name: "", type: "text", required: false, extra: "" }]);
  const put = (index: number, change: Partial<Draft>): void => setFields((all) => all.map((f, i) => (i === index ? { ...f, ...change } : f)));

  const { submit, busy, failure } = useSubmit(async () => {
    const inputs: FieldInput[] = fields.filter((f) => f.name.trim() !== "").map((f) => ({
      name: f.name.trim(), type: f.type, required: f.required,
      ...(f.type === "select" ? { options: f.extra.split(",").map((o) => o.trim()).filter((o) => o !== "") } : {}),
      ...(f.type === "autogenerate" ? { format: f.extra } : {}),
    }));
    const bloc = await session.client.admin.createBloc({
      name: name.trim(), fields: inputs, restriction, openToAllUsers: open, ...(id.trim() ? { id: id.trim() } : {}),
    });
    onCreated(bloc);
    setName(""); setId(""); setRestriction("none"); setOpen(false);
    setFields([{ name: "", type: "text", required: false, extra: "" }]);
  });

  return (
    <section aria-labelledby="create-bloc-heading">
      <h2 id="create-bloc-heading">Create a bloc</h2>
      <form onSubmit={(e) => void submit(e)} noValidate>
        <div class="row">
          <TextInput label="Bloc name" value={name} onValue={setName} />
          <TextInput label="Bloc ID (optional)" value={id} onValue={setId} hint="Generated when empty." />
          <Select label="Default restriction" value={restriction} onValue={(r) => setRestriction(r as RestrictionMode)} options={RESTRICTIONS} />
        </div>
        <Checkbox label="Open to all users (every user may read and add)" checked={open} onChecked={setOpen} />
        <fieldset>
          <legend>Fields</legend>
          {fields.map((field, index) => (
            <div class="row" key={index}>
              <TextInput label={`Field ${index + 1} name`} value={field.name} onValue={(v) => put(index, { name: v })} />
              <Select label={`Field ${index + 1} type`} value={field.type} onValue={(t) => put(index, { type: t as FieldType })} options={FIELD_TYPES} />
              {field.type === "select" ? <TextInput label={`Field ${index + 1} choices`} hint="Comma-separated." value={field.extra} onValue={(v) => put(index, { extra: v })} /> : null}
              {field.type === "autogenerate" ? <TextInput label={`Field ${index + 1} format`} hint="e.g. INV-{seq:5}" value={field.extra} onValue={(v) => put(index, { extra: v })} /> : null}
              <Checkbox label={`Field ${index + 1} required`} checked={field.required} onChecked={(v) => put(index, { required: v })} />
            </div>
          ))}
          <button type="button" onClick={() => setFields((all) => [...all, { name: "", type: "text", required: false, extra: "" }])}>Add another field</button>
        </fieldset>
        <button type="submit" class="primary" disabled={busy}>Create bloc</button>
        {failure ? <p class="alert" role="alert">{failure}</p> : null}
      </form>
    </section>
  );
}

import { useState } from "preact/hooks";
import { useSubmit } from "../use-submit.js";
import { TextInput } from "./controls.js";
import { Status } from "./notice.js";

/**
 * A one-box form that creates a thing from its name (a role, a module), then says what it
 * made, or beside the form why not. The box is emptied only once the service accepted it.
 */
export function CreateByName<T extends { readonly name: string; readonly id: string | number }>({ what, create, onCreated, primary = false }: {
  readonly what: string; readonly create: (name: string) => Promise<T>; readonly onCreated: () => void; readonly primary?: boolean;
}) {
  const [name, setName] = useState("");
  const [message, setMessage] = useState("");
  const { submit, busy, failure } = useSubmit(async () => {
    const created = await create(name.trim());
    setMessage(`${what} ${created.name} created (ID ${created.id}).`);
    setName("");
    onCreated();
  });
  return (
    <>
      <form class="row" onSubmit={(e) => void submit(e)} noValidate>
        <TextInput label={`${what} name`} value={name} onValue={setName} />
        <button type="submit" class={primary ? "primary" : undefined} disabled={busy}>Create {what.toLowerCase()}</button>
      </form>
      {failure ? <p class="alert" role="alert">{failure}</p> : null}
      <Status>{message}</Status>
    </>
  );
}

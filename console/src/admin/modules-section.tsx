import { useState } from "preact/hooks";
import type { Session } from "../app.js";
import { errorMessage } from "../api.js";
import { useAsync } from "../use-async.js";
import { TextInput } from "../ui/controls.js";
import { Failure, Loading, Status } from "../ui/notice.js";

/** Modules (the spec's jobID): listed and created here, attached to a bloc on its page. */
export function ModulesSection({ session }: { session: Session }) {
  const [modules, reload] = useAsync(() => session.client.admin.listModules(), []);
  const [name, setName] = useState("");
  const [message, setMessage] = useState("");
  const [failure, setFailure] = useState("");
  const create = async (event: Event): Promise<void> => {
    event.preventDefault();
    setFailure("");
    try {
      const created = await session.client.admin.createModule(name.trim());
      setMessage(`Module ${created.name} created (ID ${created.id}).`);
      setName("");
      reload();
    } catch (error) {
      setFailure(errorMessage(error));
    }
  };
  return (
    <section aria-labelledby="modules-heading">
      <h2 id="modules-heading">Modules</h2>
      {modules.state === "loading" ? <Loading what="modules" /> : modules.state === "failed" ? <Failure error={modules.error} /> : (
        modules.value.length === 0 ? <p class="hint">No module yet.</p>
          : <ul>{modules.value.map((m) => <li key={m.id}>{m.name} <span class="hint">(ID {m.id})</span></li>)}</ul>
      )}
      <form class="row" onSubmit={(e) => void create(e)} noValidate>
        <TextInput label="Module name" value={name} onValue={setName} />
        <button type="submit">Create module</button>
      </form>
      {failure ? <p class="alert" role="alert">{failure}</p> : null}
      <Status>{message}</Status>
    </section>
  );
}

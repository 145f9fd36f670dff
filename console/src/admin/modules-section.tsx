import { useState } from "preact/hooks";
import type { Session } from "../session.js";
import { useAsync } from "../use-async.js";
import { CreateByName } from "../ui/create-by-name.js";
import { Failure, Loading, Status } from "../ui/notice.js";
import { ConfirmAction } from "../ui/confirm-action.js";

/** Modules (the spec's jobID): listed and created here, attached to a bloc on its page. */
export function ModulesSection({ session }: { session: Session }) {
  const [modules, reload] = useAsync(() => session.client.admin.listModules(), []);
  const [message, setMessage] = useState("");
  return (
    <section aria-labelledby="modules-heading">
      <h2 id="modules-heading">Modules</h2>
      {modules.state === "loading" ? <Loading what="modules" /> : modules.state === "failed" ? <Failure error={modules.error} /> : (
        modules.value.length === 0 ? <p class="hint">No module yet.</p>
          : (
            <ul class="module-list">{modules.value.map((m) => (
              <li key={m.id}>{m.name} <span class="hint">(ID {m.id})</span>{" "}
                <ConfirmAction label="Delete" name={`Delete the module ${m.name}`} confirmLabel={`Confirm: delete ${m.name}`}
                  question="Only a module no bloc belongs to can be deleted: give its blocs another module first."
                  onConfirm={async () => { await session.client.admin.deleteModule(m.id); setMessage(`Module ${m.name} deleted.`); reload(); }} />
              </li>
            ))}</ul>
          )
      )}
      <Status>{message}</Status>
      <CreateByName what="Module" create={(name) => session.client.admin.createModule(name)} onCreated={reload} />
    </section>
  );
}

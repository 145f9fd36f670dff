import type { Session } from "../app.js";
import { useAsync } from "../use-async.js";
import { CreateByName } from "../ui/create-by-name.js";
import { Failure, Loading } from "../ui/notice.js";

/** Modules (the spec's jobID): listed and created here, attached to a bloc on its page. */
export function ModulesSection({ session }: { session: Session }) {
  const [modules, reload] = useAsync(() => session.client.admin.listModules(), []);
  return (
    <section aria-labelledby="modules-heading">
      <h2 id="modules-heading">Modules</h2>
      {modules.state === "loading" ? <Loading what="modules" /> : modules.state === "failed" ? <Failure error={modules.error} /> : (
        modules.value.length === 0 ? <p class="hint">No module yet.</p>
          : <ul>{modules.value.map((m) => <li key={m.id}>{m.name} <span class="hint">(ID {m.id})</span></li>)}</ul>
      )}
      <CreateByName what="Module" create={(name) => session.client.admin.createModule(name)} onCreated={reload} />
    </section>
  );
}

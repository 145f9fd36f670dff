import { useState } from "preact/hooks";
import type { Session } from "../session.js";
import { errorMessage } from "../api.js";
import { href } from "../route.js";
import { useAsync } from "../use-async.js";
import { Checkbox } from "../ui/controls.js";
import type { Bloc } from "../../../src/client/types.js";

const plural = (n: number): string => `${n.toLocaleString("en")} ${n === 1 ? "record" : "records"}`;

/**
 * Deleting a bloc. The confirmation names how many records go with it, and a bloc that
 * holds records is deleted only with the box "and its N records" ticked (withRecords):
 * the service refuses otherwise, and so does this form.
 */
export function DeleteBloc({ session, bloc }: { session: Session; bloc: Bloc }) {
  const [count] = useAsync(async () => (await session.client.getData({ blocId: bloc.id, resultLimit: 1 })).count, [bloc.id]);
  const [asking, setAsking] = useState(false);
  const [withRecords, setWithRecords] = useState(false);
  const [failure, setFailure] = useState("");
  const [busy, setBusy] = useState(false);
  const held = count.state === "done" ? count.value : null;

  const remove = async (): Promise<void> => {
    setFailure("");
    if (held === null) return;
    if (held > 0 && !withRecords) return;
    setBusy(true);
    try {
      await session.client.admin.deleteBloc(bloc.id, { withRecords: held > 0 });
      session.refresh();
      window.location.hash = href({ page: "admin-blocs" });
    } catch (error) {
      setFailure(`Not deleted: ${errorMessage(error)}`);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="delete-bloc-heading" class="danger-zone">
      <h2 id="delete-bloc-heading">Delete this bloc</h2>
      <p id="delete-bloc-what">
        {held === null ? "Counting its records…" : held === 0 ? `${bloc.name} holds no record.` : `${bloc.name} holds ${plural(held)}.`}{" "}
        Deleting it removes the bloc with its fields, grants and restrictions{held ? ", and its records with their history and files" : ""}. This cannot be undone.
      </p>
      {!asking ? (
        <button type="button" class="danger" disabled={held === null} onClick={() => setAsking(true)}>Delete the bloc {bloc.name}…</button>
      ) : (
        <div class="confirm" role="group" aria-labelledby="delete-bloc-heading" aria-describedby="delete-bloc-what">
          {held !== null && held > 0 ? (
            <Checkbox label={`Delete ${bloc.name} and its ${plural(held)}`} checked={withRecords} onChecked={setWithRecords} />
          ) : null}
          <div class="actions">
            <button type="button" class="primary danger" disabled={busy || (held !== null && held > 0 && !withRecords)} onClick={() => void remove()}>
              {held ? `Confirm: delete ${bloc.name} and ${plural(held)}` : `Confirm: delete ${bloc.name}`}
            </button>
            <button type="button" onClick={() => { setAsking(false); setWithRecords(false); setFailure(""); }}>Keep it</button>
          </div>
        </div>
      )}
      {failure ? <p class="alert" role="alert">{failure}</p> : null}
    </section>
  );
}

import type { Session } from "../session.js";
import type { BlocForm } from "../calls.js";
import { useAsync } from "../use-async.js";
import { Failure, Loading } from "../ui/notice.js";
import type { HistoryItem } from "../../../src/client/types.js";

const KINDS: Readonly<Record<HistoryItem["action"], string>> = { updated: "Updated", deleted: "Deleted", restored: "Restored" };

/** A record's history from the admin API (admins only): who changed what, when, oldest first. */
export function RecordHistory({ session, form, recordId }: { session: Session; form: BlocForm; recordId: string }) {
  const [history] = useAsync(() => session.client.admin.recordHistory(form.blocId, recordId), []);
  const names: Record<string, string> = Object.fromEntries(form.fields.map((f) => [f.slug, f.name]));
  return (
    <section aria-labelledby="history-heading" class="record-history">
      <h2 id="history-heading">History</h2>
      {history.state === "loading" ? <Loading what="the record's history" />
        : history.state === "failed" ? <Failure error={history.error} prefix="The history could not be read" />
          : history.value.length === 0 ? <p class="hint">Not changed since it was added.</p> : (
            <ol class="history">
              {history.value.map((item, index) => {
                const changes = Object.entries(item.changes ?? {});
                return (
                  <li key={index}>
                    <p class="history-when"><strong>{KINDS[item.action]}</strong> {item.at}, by user {item.userId}</p>
                    {changes.length > 0 ? (
                      <table>
                        <caption class="sr-only">Changes at {item.at}</caption>
                        <thead><tr><th scope="col">Field</th><th scope="col">Was</th><th scope="col">Became</th></tr></thead>
                        <tbody>
                          {changes.map(([slug, change]) => (
                            <tr key={slug}><td>{names[slug] ?? slug}</td><td>{change.from}</td><td>{change.to}</td></tr>
                          ))}
                        </tbody>
                      </table>
                    ) : null}
                  </li>
                );
              })}
            </ol>
          )}
    </section>
  );
}

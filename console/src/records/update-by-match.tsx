import { useRef, useState } from "preact/hooks";
import type { Session } from "../session.js";
import { mayOn } from "../api.js";
import { useAsync } from "../use-async.js";
import { Failure, Loading, Status } from "../ui/notice.js";
import type { ReportRow } from "../../../src/client/types.js";
import { loadFields, type FieldInfo } from "../view/bloc-fields.js";
import type { Counted } from "../view/count-matching.js";
import { countMatching } from "../view/load-view.js";
import { PairRows, type Pair } from "./pair-rows.js";

const SAMPLE_ROWS = 5;

interface Preview {
  readonly search: Readonly<Record<string, string>>;
  readonly set: Readonly<Record<string, string>>;
  readonly matched: Counted;
  readonly sample: readonly ReportRow[];
}

/**
 * Update by matching values, previewed: before anything changes, the records the search
 * matches are counted through the report endpoint, as this user — the same visibility
 * and the same exact-equality matching ("" matching a field never set) that update-records
 * applies. Searches may name fields only: the report cannot filter by record ID or
 * submitted status, so those searches could not be previewed and are not offered.
 */
export function UpdateByMatch({ session, blocId }: { session: Session; blocId: string }) {
  const [fields] = useAsync(() => loadFields(session, blocId), [blocId]);
  if (!mayOn(session.me, blocId, "read")) {
    return <p>Updating from the console needs read access too: the preview counts the matching records by reading them.</p>;
  }
  if (fields.state === "loading") return <Loading what="the bloc's fields" />;
  if (fields.state === "failed") return <Failure error={fields.error} prefix="The form cannot be built" />;
  return <UpdateForm session={session} blocId={blocId} fields={fields.value.fields} />;
}

function toObject(pairs: readonly Pair[]): Record<string, string> {
  return Object.fromEntries(pairs.map((p) => [p.slug, p.value]));
}

function UpdateForm({ session, blocId, fields }: { session: Session; blocId: string; fields: readonly FieldInfo[] }) {
  const first = fields[0]?.slug ?? "";
  const [search, setSearch] = useState<Pair[]>([{ slug: first, value: "" }]);
  const [set, setSet] = useState<Pair[]>([{ slug: fields[1]?.slug ?? first, value: "" }]);
  const [preview, setPreview] = useState<Preview | null>(null);
  const [problem, setProblem] = useState<unknown>(null);
  const [outcome, setOutcome] = useState("");
  const [busy, setBusy] = useState(false);
  // Any edit makes the preview stale: it must be asked again before confirming, and one
  // still being counted when the form was edited is dropped when it arrives.
  const edits = useRef(0);
  const edit = <T,>(apply: (v: T) => void) => (v: T): void => { edits.current += 1; apply(v); setPreview(null); setOutcome(""); };

  const previewUpdate = async (event: Event): Promise<void> => {
    event.preventDefault();
    setProblem(null);
    setOutcome("");
    const duplicate = [search, set].find((pairs) => new Set(pairs.map((p) => p.slug)).size !== pairs.length);
    if (duplicate) { setProblem(new Error("Name each field once in the search, and once in the changes.")); return; }
    setBusy(true);
    const asked = edits.current;
    try {
      const searchItems = toObject(search);
      const filters = Object.fromEntries(search.map((p) => [p.slug, [p.value]]));
      const [{ total: matched }, sample] = await Promise.all([
        countMatching(session.client, blocId, { from: "", to: "", filters }),
        session.client.getDataReport({
          stationID: blocId, fieldsToReport: "all",
          dataFilteringData: { filterDataToQuery: filters, currentPage: 1, resultLimit: SAMPLE_ROWS },
        }),
      ]);
      if (edits.current === asked) setPreview({ search: searchItems, set: toObject(set), matched, sample });
    } catch (error) {
      setProblem(error);
    } finally {
      setBusy(false);
    }
  };

  const confirm = async (): Promise<void> => {
    if (!preview) return;
    setBusy(true);
    setProblem(null);
    try {
      const ids = await session.client.updateRecordsByMatchingValues({ blocId, searchItems: preview.search, fieldsToUpdate: preview.set });
      const differs = preview.matched.exact && ids.length !== preview.matched.count
        ? ` The preview counted ${preview.matched.count}: records changed in between.` : "";
      setOutcome(`Updated ${ids.length} ${ids.length === 1 ? "record" : "records"}${ids.length > 0 && ids.length <= 20 ? ` (IDs ${ids.join(", ")})` : ""}.${differs}`);
      setPreview(null);
    } catch (error) {
      setProblem(error);
    } finally {
      setBusy(false);
    }
  };

  const names = Object.fromEntries(fields.map((f) => [f.slug, f.name]));
  return (
    <div class="update">
      <form onSubmit={(e) => void previewUpdate(e)} noValidate>
        <PairRows legend="Records whose values equal all of these" fields={fields} pairs={search} onChange={edit(setSearch)}
          valueLabel="equals" addLabel="Add a condition" />
        <PairRows legend="Get these new values" fields={fields} pairs={set} onChange={edit(setSet)}
          valueLabel="becomes" addLabel="Add a change" />
        <button type="submit" class="primary" disabled={busy}>Preview the update</button>
      </form>
      <Failure error={problem} prefix="Not done" />
      <Status id="update-outcome">{outcome}</Status>
      {preview ? (
        <section class="preview" aria-labelledby="preview-heading">
          <h2 id="preview-heading">Preview</h2>
          <p id="preview-count" role="status">
            <strong>{preview.matched.exact ? preview.matched.count.toLocaleString("en") : `More than ${preview.matched.count.toLocaleString("en")}`}</strong>
            {preview.matched.count === 1 && preview.matched.exact ? " record matches" : " records match"} and will be updated:{" "}
            {Object.entries(preview.set).map(([slug, value]) => `${names[slug] ?? slug} becomes “${value}”`).join(", ")}.
          </p>
          {preview.sample.length > 0 ? <SampleTable rows={preview.sample} fields={fields} more={preview.matched.count > preview.sample.length} /> : null}
          <div class="actions">
            <button type="button" class="primary danger" disabled={busy || preview.matched.count === 0} onClick={() => void confirm()}>
              {preview.matched.count === 0 ? "Nothing to update" : `Update ${preview.matched.exact ? preview.matched.count.toLocaleString("en") : "the matching"} records`}
            </button>
            <button type="button" onClick={() => setPreview(null)}>Cancel</button>
          </div>
        </section>
      ) : null}
    </div>
  );
}

function SampleTable({ rows, fields, more }: { rows: readonly ReportRow[]; fields: readonly FieldInfo[]; more: boolean }) {
  return (
    <div class="table-scroll" role="region" aria-label="Matching records" tabIndex={0}>
      <table class="records">
        <caption>{more ? `The first ${rows.length} matching records` : "The matching records"}</caption>
        <thead><tr><th scope="col">Created</th>{fields.map((f) => <th scope="col" key={f.slug}>{f.name}</th>)}</tr></thead>
        <tbody>
          {rows.map((row, i) => <tr key={i}><td class="nowrap">{row.created_at}</td>{fields.map((f) => <td key={f.slug}>{row[f.slug]}</td>)}</tr>)}
        </tbody>
      </table>
    </div>
  );
}


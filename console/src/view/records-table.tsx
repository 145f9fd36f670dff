import { useState } from "preact/hooks";
import type { Session } from "../session.js";
import { errorMessage } from "../api.js";
import { saveDownload } from "../download.js";
import { useFileRefs } from "./file-refs.js";
import type { Row } from "./load-view.js";
import { href } from "../route.js";
import { useUserNames } from "./user-names.js";

/**
 * The page's records, each creator shown by name, each row's time a link to the record's
 * page. It scrolls sideways inside its own focusable region on a narrow
 * screen (a tablet in portrait), so the page itself never does.
 */
export function RecordsTable({ session, blocId, rows, fieldNames, fileFields, typesKnown, caption }: {
  session: Session; blocId: string; rows: readonly Row[]; fieldNames: Readonly<Record<string, string>>; fileFields: ReadonlySet<string>;
  typesKnown: boolean; caption: string;
}) {
  const slugs = Object.keys(fieldNames);
  const names = useUserNames(session.client, blocId, rows.map((row) => String(row.user_id ?? "")));
  const probed = useFileRefs(session.client, rows.flatMap((row) => slugs.map((slug) => String(row[slug] ?? ""))), !typesKnown);
  const [failure, setFailure] = useState("");
  const isFile = (slug: string, value: string): boolean => value !== "" && (fileFields.has(slug) || probed.has(value));
  const download = async (ref: string): Promise<void> => {
    setFailure("");
    try { saveDownload(await session.client.downloadFile(ref)); } catch (error) { setFailure(`The file could not be downloaded: ${errorMessage(error)}`); }
  };
  return (
    <>
      <div class="table-scroll" role="region" aria-label="Records table" tabIndex={0}>
        <table class="records">
          <caption>{caption}</caption>
          <thead>
            <tr>
              <th scope="col">Created</th>
              <th scope="col">User</th>
              {slugs.map((slug) => <th scope="col" key={slug}>{fieldNames[slug]}</th>)}
            </tr>
          </thead>
          <tbody>
            {rows.map((row, index) => (
              <tr key={`${String(row.created_at)}-${index}`}>
                <td class="nowrap">
                  {/* A record's page is addressed by its ID, which get-data's rows carry (a filtered view's report rows do not). */}
                  {row.service_entry_row_id === undefined ? String(row.created_at ?? "") : (
                    <a href={href({ page: "record", blocId, recordId: String(row.service_entry_row_id) })}
                      aria-label={`Record ${String(row.service_entry_row_id)}, created ${String(row.created_at ?? "")}`}>
                      {String(row.created_at ?? "")}
                    </a>
                  )}
                </td>
                <td>{names.get(String(row.user_id ?? "")) ?? String(row.user_id ?? "")}</td>
                {slugs.map((slug) => {
                  const value = String(row[slug] ?? "");
                  return (
                    <td key={slug}>
                      {isFile(slug, value)
                        ? (
                          <button type="button" class="link" onClick={() => void download(value)}>
                            Download file<span class="sr-only"> ({fieldNames[slug] ?? slug} of the record created {String(row.created_at ?? "")})</span>
                          </button>
                        )
                        : value}
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {failure ? <p class="alert" role="alert">{failure}</p> : null}
    </>
  );
}

import { useState } from "preact/hooks";
import type { Session } from "../session.js";
import { errorMessage } from "../api.js";
import { saveDownload } from "../download.js";
import type { ReportFormat } from "../../../src/client/types.js";
import { viewReport, type ViewQuery } from "./view-query.js";

/**
 * Downloads of the current view — its date range, value filters and order, every page
 * of it — as .xlsx or CSV, made by the service's report endpoint.
 */
export function ExportButtons({ session, blocId, query }: { session: Session; blocId: string; query: ViewQuery }) {
  const [message, setMessage] = useState("");
  const [busy, setBusy] = useState(false);
  const download = async (format: ReportFormat): Promise<void> => {
    setBusy(true);
    setMessage(`Preparing the ${format === "xlsx" ? ".xlsx" : "CSV"} file…`);
    try {
      const file = await session.client.downloadDataReport(viewReport(blocId, query), format);
      saveDownload(file);
      setMessage(`Downloaded ${file.filename}.`);
    } catch (error) {
      setMessage(`The download failed: ${errorMessage(error)}`);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="exports">
      <span class="hint">Download this view (every page):</span>
      <button type="button" disabled={busy} onClick={() => void download("xlsx")}>Download .xlsx</button>
      <button type="button" disabled={busy} onClick={() => void download("csv")}>Download CSV</button>
      <span role="status" aria-live="polite" class="hint">{message}</span>
    </div>
  );
}

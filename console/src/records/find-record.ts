import type { FetchBlocClient } from "../api.js";
import type { DataRecord } from "../../../src/client/types.js";

const PAGE = 100;
/** Records created within one second rarely fill more pages than this; past it the search gives up rather than read on. */
const MAX_PAGES = 10;

/**
 * One record, read as this user may read it: get-data selects records by time, not by
 * ID, so the record's creation second is read (both bounds are inclusive) and the record
 * picked out by its ID. null when it is not among them: deleted, hidden from this user,
 * or the link is wrong — which of these is not said, as a hidden record must not be told apart.
 */
export async function findRecord(client: FetchBlocClient, blocId: string, recordId: string, at: string): Promise<DataRecord | null> {
  for (let page = 1; page <= MAX_PAGES; page += 1) {
    const answer = await client.getData({ blocId, fromDate: at, toDate: at, resultLimit: PAGE, currentPage: page, reverse: true });
    const found = answer.records.find((r) => String(r.service_entry_row_id) === recordId);
    if (found) return found;
    if (page * PAGE >= answer.count) return null;
  }
  return null;
}

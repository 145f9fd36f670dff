import type { FetchBlocClient } from "../api.js";
import type { DataRecord } from "../../../src/client/types.js";

const PAGE = 100;

/**
 * One record, read as this user may read it. get-data pages records by time and has no
 * filter by ID, so the record is found by halving: pages are newest first, and a record
 * created later has a higher ID, so each page read says on which side the ID lies — a
 * few pages for a bloc of millions (log2 of its pages). null when it is not there: deleted,
 * hidden from this user, or the ID is wrong — which, is not said, as a hidden record must
 * not be told apart from a missing one. A record imported with a time out of its ID's order
 * may be missed; its bloc's table still lists it.
 */
export async function findRecord(client: FetchBlocClient, blocId: string, recordId: string): Promise<DataRecord | null> {
  const wanted = Number(recordId);
  if (!Number.isSafeInteger(wanted) || wanted < 1) return null;
  const read = async (page: number) => (await client.getData({ blocId, resultLimit: PAGE, currentPage: page })).records;
  const first = await client.getData({ blocId, resultLimit: PAGE, currentPage: 1 });
  let low = 1;
  let high = Math.max(1, Math.ceil(first.count / PAGE));
  let records = first.records;
  let page = 1;
  for (;;) {
    const found = records.find((r) => r.service_entry_row_id === wanted);
    if (found) return found;
    const newest = records[0]?.service_entry_row_id;
    const oldest = records[records.length - 1]?.service_entry_row_id;
    if (newest === undefined || oldest === undefined) return null;
    // Newer than this page's newest: an earlier page; older than its oldest: a later one; between: not there.
    if (wanted > newest) high = page - 1;
    else if (wanted < oldest) low = page + 1;
    else return null;
    if (low > high) return null;
    page = Math.floor((low + high) / 2);
    records = await read(page);
  }
}

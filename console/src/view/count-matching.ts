import type { FetchBlocClient } from "../api.js";
import type { GetDataResult } from "../../../src/client/types.js";
import type { Filters } from "./view-query.js";

/** A number of records; `exact: false` means "more than `count`" (counting stopped there). */
export interface Counted {
  readonly count: number;
  readonly exact: boolean;
}

/**
 * The count of records matching filters on ONE field, from get-data's `fieldCounts` over
 * the same range: each record holds one value per field, so the records whose value is
 * one of the chosen ones number the sum of those values' counts. Exact, and free — but
 * only when every chosen value is listed (fieldCounts leaves out empty values, values over
 * 256 characters, and the tail of a partial listing). undefined when it cannot tell.
 */
export function countFromFieldCounts(filters: Filters, counts: Pick<GetDataResult, "fieldCounts" | "fieldCountsPartial">): number | undefined {
  const fields = Object.entries(filters).filter(([, values]) => values.length > 0);
  if (fields.length !== 1) return undefined;
  const [slug, values] = fields[0]!;
  const listed = counts.fieldCounts[slug] ?? {};
  let total = 0;
  for (const value of new Set(values)) {
    const count = Object.hasOwn(listed, value) ? listed[value] : undefined;
    if (count === undefined) {
      // Not listed: a count of zero only if the listing is complete and the value could be listed.
      const complete = !(counts.fieldCountsPartial ?? []).includes(slug);
      if (!complete || value === "" || value.length > 256) return undefined;
      continue;
    }
    total += count;
  }
  return total;
}

const KEY = '"created_at"';

/**
 * The count of records matching any filters, by streaming a report of one short column
 * (about 35 bytes a row) and counting its rows as they arrive, without keeping them;
 * after `cap` rows it stops reading and answers "more than cap". The report applies the
 * reader's visibility exactly as get-data and update-records do.
 */
export async function countByReport(
  client: FetchBlocClient, blocId: string, filters: Filters, window: { reportFromDate?: string; reportToDate?: string } | undefined,
  cap: number, signal?: AbortSignal,
): Promise<Counted> {
  const controller = new AbortController();
  const stop = (): void => controller.abort();
  signal?.addEventListener("abort", stop);
  try {
    const response = await client.reportResponse({
      stationID: blocId, fieldsToReport: ["created_at"],
      ...(window ? { requestedReportData: window } : {}),
      dataFilteringData: { filterDataToQuery: filters },
    }, controller.signal);
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let carried = "";
    let count = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const text = carried + decoder.decode(value, { stream: true });
      for (let at = text.indexOf(KEY); at !== -1; at = text.indexOf(KEY, at + KEY.length)) count += 1;
      // A key cut by the chunk's end is completed by the next chunk; a whole one is never carried.
      carried = text.slice(-(KEY.length - 1));
      if (count > cap) {
        controller.abort();
        return { count: cap, exact: false };
      }
    }
    return { count, exact: true };
  } finally {
    signal?.removeEventListener("abort", stop);
  }
}

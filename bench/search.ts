import { latency, type Load } from "./measure.js";
import type { Figure } from "./results.js";
import { COMMENT, ORDER_REF, orderRef } from "./seed.js";

/**
 * Searching a field nobody marked `indexed` (issue 10): update-records matching one
 * record by the Order ref (an unmarked text field), and a report filtered by it, on the
 * 10,000-record bloc (the reference) and on the large one, each request timed whole.
 */
export interface SearchLoads {
  readonly updateSmall: Load;
  readonly updateLarge: Load;
  readonly reportSmall: Load;
  readonly reportLarge: Load;
}

export async function measureSearch(
  api: (path: string) => string, token: string, blocs: { small: string; large: string }, seconds: number,
): Promise<SearchLoads> {
  // Record 4321 exists in both blocs; its Order ref is unique in each.
  const ref = orderRef(4321);
  const update = (blocId: string): Promise<Load> => latency({
    url: api("/api/update-records-by-matching-values"), method: "POST", token, seconds,
    body: { blocId, fieldsToUpdate: { [COMMENT]: "checked" }, searchItems: { [ORDER_REF]: ref } },
  });
  const report = (blocId: string): Promise<Load> => latency({
    url: api("/api/get-data-report"), method: "GET", token, seconds,
    body: {
      stationID: blocId, fieldsToReport: "all", responseType: "json",
      dataFilteringData: JSON.stringify({ filterDataToQuery: { [ORDER_REF]: [ref] } }),
    },
  });
  return {
    updateSmall: await update(blocs.small), updateLarge: await update(blocs.large),
    reportSmall: await report(blocs.small), reportLarge: await report(blocs.large),
  };
}

export function searchFigures(loads: SearchLoads, large: string): Figure[] {
  const timing = (l: Load): string => `p50 ${l.p50} ms, p99 ${l.p99} ms`;
  const growth = (big: Load, small: Load): number => big.p99 / small.p99;
  const failed = (l: Load): string => (l.failures > 0 ? ` (${l.failures} of ${l.requests} requests failed)` : "");
  const ok = (...ls: Load[]): boolean => ls.every((l) => l.failures === 0);
  return [
    { name: "update matching 1 record by an unmarked field, 10,000", value: timing(loads.updateSmall) + failed(loads.updateSmall), target: "reference", met: null },
    {
      name: `update matching 1 record by an unmarked field, ${large}`,
      value: `${timing(loads.updateLarge)}; growth p99 ${growth(loads.updateLarge, loads.updateSmall).toFixed(2)}${failed(loads.updateLarge)}`,
      target: "growth ≤ 3", met: ok(loads.updateSmall, loads.updateLarge) && growth(loads.updateLarge, loads.updateSmall) <= 3,
    },
    { name: "report filtered by an unmarked field (1 row), 10,000", value: timing(loads.reportSmall) + failed(loads.reportSmall), target: "reference", met: null },
    {
      name: `report filtered by an unmarked field (1 row), ${large}`,
      value: `${timing(loads.reportLarge)}; growth p99 ${growth(loads.reportLarge, loads.reportSmall).toFixed(2)}${failed(loads.reportLarge)}`,
      target: "growth ≤ 3", met: ok(loads.reportSmall, loads.reportLarge) && growth(loads.reportLarge, loads.reportSmall) <= 3,
    },
  ];
}

import type { Load } from "./measure.js";
import type { Figure } from "./results.js";

/**
 * get-data with a date window, as dashboards ask: today, this week, this month and this
 * year (calendar periods; weeks from Monday), for an unrestricted reader, an `own`
 * reader and a profile-filtered one. Each is compared with page 1 of the 10,000-record
 * bloc without a window (the target: at most 3 times its p99).
 */

/** The windows, inside the year the bench's records span (they end on 2026-11-20). */
export const WINDOWS: readonly { readonly name: string; readonly fromDate: string; readonly toDate: string }[] = [
  { name: "one-day", fromDate: "2026-03-05", toDate: "2026-03-05" },
  { name: "one-week", fromDate: "2026-03-02", toDate: "2026-03-08" },
  { name: "one-month", fromDate: "2026-03-01", toDate: "2026-03-31" },
  { name: "one-year", fromDate: "2026-01-01", toDate: "2026-12-31" },
];

export const READERS = ["all", "own", "profile"] as const;
export type Reader = (typeof READERS)[number];

export interface WindowLoad {
  readonly window: string;
  readonly reader: Reader;
  readonly load: Load;
}

/** Measures every window for every reader, one after another. */
export async function measureWindows(
  blocId: string, read: (body: unknown, reader: Reader) => Promise<Load>,
): Promise<WindowLoad[]> {
  const loads: WindowLoad[] = [];
  for (const window of WINDOWS) {
    for (const reader of READERS) {
      loads.push({ window: window.name, reader, load: await read({ blocId, fromDate: window.fromDate, toDate: window.toDate }, reader) });
    }
  }
  return loads;
}

const READER_NAMES: Record<Reader, string> = { all: "", own: ", own restriction", profile: ", profile filter" };

/** One row per window and reader, against the 10,000-record page 1's p99. */
export function windowFigures(loads: readonly WindowLoad[], reference: Load, large: string): Figure[] {
  return loads.map(({ window, reader, load }) => ({
    name: `get-data ${window} window${READER_NAMES[reader]}, ${large}`,
    value: `p50 ${load.p50} ms, p99 ${load.p99} ms; ${(load.p99 / reference.p99).toFixed(1)} × 10k p99`
      + (load.failures > 0 ? ` (${load.failures} of ${load.requests} requests failed)` : ""),
    target: "≤ 3 × 10k p99",
    met: load.failures === 0 && load.p99 <= 3 * reference.p99,
  }));
}

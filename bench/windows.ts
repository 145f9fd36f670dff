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

/**
 * A shift: 8 hours of one day, on a bloc whose records all fall on that day (evenly over
 * its 24 hours), so that the window holds a third of the bloc and cuts through its one
 * day rather than covering whole days.
 */
export const SHIFT_DAY = "2026-11-19";
export const SHIFT_WINDOW = { fromDate: `${SHIFT_DAY} 06:00:00`, toDate: `${SHIFT_DAY} 13:59:59` } as const;

/** The shift window for every reader. */
export async function measureShift(
  blocId: string, read: (body: unknown, reader: Reader) => Promise<Load>,
): Promise<WindowLoad[]> {
  const loads: WindowLoad[] = [];
  for (const reader of READERS) loads.push({ window: "shift", reader, load: await read({ blocId, ...SHIFT_WINDOW }, reader) });
  return loads;
}

const READER_NAMES: Record<Reader, string> = { all: "", own: ", own restriction", profile: ", profile filter" };

function figure(name: string, load: Load, reference: Load): Figure {
  return {
    name,
    value: `p50 ${load.p50} ms, p99 ${load.p99} ms; ${(load.p99 / reference.p99).toFixed(1)} × 10k p99`
      + (load.failures > 0 ? ` (${load.failures} of ${load.requests} requests failed)` : ""),
    target: "≤ 3 × 10k p99",
    met: load.failures === 0 && load.p99 <= 3 * reference.p99,
  };
}

/** One row per window and reader, against the 10,000-record page 1's p99. */
export function windowFigures(loads: readonly WindowLoad[], reference: Load, large: string): Figure[] {
  return loads.map(({ window, reader, load }) => figure(`get-data ${window} window${READER_NAMES[reader]}, ${large}`, load, reference));
}

/** One row per reader of the shift window (`records`: how many the shift's day holds), against the same reference. */
export function shiftFigures(loads: readonly WindowLoad[], reference: Load, records: string): Figure[] {
  return loads.map(({ reader, load }) =>
    figure(`get-data shift window (8 hours of a day holding ${records} records)${READER_NAMES[reader]}`, load, reference));
}

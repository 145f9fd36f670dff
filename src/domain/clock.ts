/** `YYYY-MM-DD HH:MM:SS`: how the spec writes every timestamp. */
export type Timestamp = string;

/** The current time as a Timestamp in the service's zone; `instant` and `reaches` answer what text cannot. */
export interface Clock {
  (): Timestamp;
  /** Now, in milliseconds since the epoch. */
  readonly instant: () => number;
  /**
   * The first instant (ms since the epoch) at which this clock reads `stamp` or later.
   * Wall-clock text repeats an hour when the clocks go back, so a deadline written as
   * text is compared as this instant: once passed, it stays passed.
   */
  readonly reaches: (stamp: Timestamp) => number;
  /** The clock's reading at an instant (ms since the epoch): a deadline that is a duration from now. */
  readonly at: (ms: number) => Timestamp;
}

type Parts = readonly [number, number, number, number, number, number];

const STAMP = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;
const DAY_MS = 24 * 60 * 60 * 1000;

function partsOf(stamp: Timestamp): Parts {
  const match = STAMP.exec(stamp);
  if (!match) throw new RangeError(`not a timestamp: ${stamp}`);
  return match.slice(1).map(Number) as unknown as Parts;
}

/** The instant the stamp names read as UTC: the zone's offset is then what separates the two. */
function asUtc([year, month, day, hour, minute, second]: Parts): number {
  return Date.UTC(year, month - 1, day, hour, minute, second);
}

/** Formats instants as wall-clock time in `timeZone`, the zone records are written in. */
export function makeClock(timeZone: string, source: () => Date = () => new Date()): Clock {
  const format = new Intl.DateTimeFormat("en-CA", {
    timeZone,
    hourCycle: "h23",
    year: "numeric", month: "2-digit", day: "2-digit",
    hour: "2-digit", minute: "2-digit", second: "2-digit",
  });
  const textOf = (ms: number): Timestamp => {
    const parts: Record<string, string> = {};
    for (const part of format.formatToParts(new Date(ms))) parts[part.type] = part.value;
    return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}:${parts.second}`;
  };
  const offsetAt = (ms: number): number => asUtc(partsOf(textOf(ms))) - Math.floor(ms / 1000) * 1000;

  // Formatting through Intl costs microseconds; every request asks, so each second is formatted once.
  let second = Number.NaN;
  let text = "";
  const clock = (): Timestamp => {
    const now = source().getTime();
    const current = Math.floor(now / 1000);
    if (current !== second) {
      text = textOf(now);
      second = current;
    }
    return text;
  };

  // Every request compares its token's expiry; a zone's rules do not change while the
  // process runs, so each stamp's instant is worked out once (a bounded memo).
  const reached = new Map<Timestamp, number>();
  const reaches = (stamp: Timestamp): number => {
    let instant = reached.get(stamp);
    if (instant === undefined) {
      if (reached.size >= 10_000) reached.clear();
      instant = firstReading(stamp);
      reached.set(stamp, instant);
    }
    return instant;
  };

  const firstReading = (stamp: Timestamp): number => {
    const local = asUtc(partsOf(stamp));
    // No zone changes its offset twice within two days: the offsets a day either side are the candidates.
    const candidates = [...new Set([offsetAt(local - DAY_MS), offsetAt(local + DAY_MS)])].map((offset) => local - offset);
    const exact = candidates.filter((ms) => textOf(ms) === stamp);
    if (exact.length > 0) return Math.min(...exact);
    // The stamp fell in a gap (clocks went forward past it): the clock first reads later
    // text at the jump, found second by second between the two readings.
    let low = Math.min(...candidates);
    let high = Math.max(...candidates);
    while (high - low > 1000) {
      const middle = low + Math.floor((high - low) / 2000) * 1000;
      if (textOf(middle) >= stamp) high = middle;
      else low = middle;
    }
    return high;
  };

  return Object.assign(clock, { instant: () => source().getTime(), reaches, at: textOf });
}

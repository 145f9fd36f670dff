/** `YYYY-MM-DD HH:MM:SS`: how the spec writes every timestamp. */
export type Timestamp = string;

/** A function answering the current time as a Timestamp in the service's zone. */
export type Clock = () => Timestamp;

/** Formats instants as wall-clock time in `timeZone`, the zone records are written in. */
export function makeClock(timeZone: string, source: () => Date = () => new Date()): Clock {
  const format = new Intl.DateTimeFormat("en-CA", {
    timeZone,
    hourCycle: "h23",
    year: "numeric", month: "2-digit", day: "2-digit",
    hour: "2-digit", minute: "2-digit", second: "2-digit",
  });
  // Formatting through Intl costs microseconds; every request asks, so each second is formatted once.
  let second = Number.NaN;
  let text = "";
  return () => {
    const now = source();
    const current = Math.floor(now.getTime() / 1000);
    if (current !== second) {
      const parts: Record<string, string> = {};
      for (const part of format.formatToParts(now)) parts[part.type] = part.value;
      text = `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}:${parts.second}`;
      second = current;
    }
    return text;
  };
}

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
  return () => {
    const parts: Record<string, string> = {};
    for (const part of format.formatToParts(source())) parts[part.type] = part.value;
    return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}:${parts.second}`;
  };
}

import type { RefObject } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import type { Async } from "../use-async.js";
import { errorMessage } from "../api.js";
import type { Bucket, Timeline } from "./timeline.js";

/** The drawing's width until the page is measured; then it is drawn at the width it is shown, so text keeps its size. */
const FIRST_WIDTH = 960;
const HEIGHT = 96;
const AXIS = 18;
const TOP = 14;
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

function dayName(day: string): string {
  return `${MONTHS[Number(day.slice(5, 7)) - 1] ?? ""} ${Number(day.slice(8, 10))}`;
}

/** "08:00" for an hour, "Mar 3" for a day. */
function labelOf(bucket: Bucket, unit: Timeline["unit"]): string {
  return unit === "hour" ? bucket.start.slice(11, 16) : dayName(bucket.start.slice(0, 10));
}

function records(n: number): string {
  return `${n.toLocaleString("en")} ${n === 1 ? "record" : "records"}`;
}

/**
 * Records over time as an SVG bar chart: one bar per hour (a one-day window) or per day.
 * The drawing is an image named by its summary; the same numbers are in a table for
 * screen readers. A count is drawn above each bar while they are few enough to read.
 */
export function TimelineChart({ result, open, onToggle }: { result: Async<Timeline | undefined>; open: boolean; onToggle: () => void }) {
  const timeline = result.state === "done" ? result.value : result.state === "loading" ? result.previous : undefined;
  const title = !timeline ? "Records over time" : timeline.unit === "hour"
    ? `Records per hour, ${dayName(timeline.buckets[0]!.start.slice(0, 10))}`
    : `Records per day, ${dayName(timeline.buckets[0]!.start.slice(0, 10))} to ${dayName(timeline.buckets[timeline.buckets.length - 1]!.start.slice(0, 10))}`;
  return (
    <section class="timeline" aria-labelledby="timeline-heading">
      <div class="timeline-head">
        <h2 id="timeline-heading" class="small-heading">{title}</h2>
        {timeline?.clipped ? <span class="hint">(the last 62 days of the range)</span> : null}
        <button type="button" class="quiet" aria-expanded={open} aria-controls="timeline-body" onClick={onToggle}>
          {open ? "Hide chart" : "Show chart"}
        </button>
      </div>
      <div id="timeline-body" hidden={!open}>
        {result.state === "failed" ? <p class="hint">The chart could not be drawn: {errorMessage(result.error)}</p>
          : !timeline ? <p class="hint">{result.state === "loading" ? "Counting records over time…" : "No record to chart."}</p>
            : <Bars timeline={timeline} />}
      </div>
    </section>
  );
}

function useWidth(): [RefObject<HTMLDivElement | null>, number] {
  const ref = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(FIRST_WIDTH);
  useEffect(() => {
    const element = ref.current;
    if (!element) return undefined;
    const observer = new ResizeObserver(() => { if (element.clientWidth > 0) setWidth(Math.round(element.clientWidth)); });
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  return [ref, width];
}

function Bars({ timeline }: { timeline: Timeline }) {
  const { buckets, unit } = timeline;
  const [ref, WIDTH] = useWidth();
  const most = Math.max(1, ...buckets.map((b) => b.count));
  const total = buckets.reduce((n, b) => n + b.count, 0);
  const slot = WIDTH / buckets.length;
  const gap = Math.min(4, slot * 0.2);
  const plot = HEIGHT - AXIS - TOP;
  // Every label when they fit, else every n-th.
  const every = Math.max(1, Math.ceil(buckets.length / Math.floor(WIDTH / 46)));
  const busiest = buckets.reduce((a, b) => (b.count > a.count ? b : a), buckets[0]!);
  const summary = `${records(total)} in all; the busiest ${unit}, ${labelOf(busiest, unit)}, has ${records(busiest.count)}.`;
  return (
    <div ref={ref}>
      <svg class="timeline-svg" viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={summary}>
        <line x1="0" x2={WIDTH} y1={HEIGHT - AXIS + 0.5} y2={HEIGHT - AXIS + 0.5} class="axis" />
        {buckets.map((bucket, i) => {
          const height = bucket.count === 0 ? 0 : Math.max(2, (bucket.count / most) * plot);
          const x = i * slot + gap / 2;
          const y = HEIGHT - AXIS - height;
          return (
            <g key={bucket.start}>
              <rect class="time-bar" x={x} y={y} width={Math.max(1, slot - gap)} height={height}
                data-start={bucket.start} data-count={bucket.count}>
                <title>{`${labelOf(bucket, unit)}: ${records(bucket.count)}`}</title>
              </rect>
              {bucket.count > 0 && slot >= 22 ? <text class="count" x={x + (slot - gap) / 2} y={y - 3} text-anchor="middle">{bucket.count}</text> : null}
              {i % every === 0 ? <text class="tick" x={x + (slot - gap) / 2} y={HEIGHT - 4} text-anchor="middle">{labelOf(bucket, unit)}</text> : null}
            </g>
          );
        })}
      </svg>
      <table class="sr-only">
        <caption>Records per {unit}</caption>
        <thead><tr><th scope="col">{unit === "hour" ? "Hour" : "Day"}</th><th scope="col">Records</th></tr></thead>
        <tbody>
          {buckets.map((bucket) => <tr key={bucket.start}><td>{labelOf(bucket, unit)}</td><td>{bucket.count}</td></tr>)}
        </tbody>
      </table>
    </div>
  );
}

import { performance } from "node:perf_hooks";

/** How often the event loop's use is sampled, and above which share of a sample it counts as saturated. */
const SAMPLE_MS = 100;
const SATURATED = 0.9;

/**
 * Whether this process's event loop is saturated: busy more than 90% of the last tenth of
 * a second. Events are background work: while requests keep the loop this busy, webhook
 * lanes and streams give way (they pace themselves), and catch up once the load eases.
 * Nothing is lost by waiting: every event is in the outbox.
 */
export class LoopLoad {
  private last = performance.eventLoopUtilization();
  private saturated = false;
  private readonly timer: NodeJS.Timeout;

  constructor() {
    this.timer = setInterval(() => {
      const now = performance.eventLoopUtilization();
      this.saturated = performance.eventLoopUtilization(now, this.last).utilization > SATURATED;
      this.last = now;
    }, SAMPLE_MS);
    this.timer.unref();
  }

  get busy(): boolean {
    return this.saturated;
  }

  close(): void {
    clearInterval(this.timer);
  }
}

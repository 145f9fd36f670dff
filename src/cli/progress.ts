import cliProgress from "cli-progress";

/** A progress display for long CLI work; does nothing unless stderr is a terminal. */
export interface Progress {
  /** Sets the total once known (0: unknown). */
  total(total: number): void;
  increment(by?: number): void;
  stop(): void;
}

const SILENT: Progress = { total: () => undefined, increment: () => undefined, stop: () => undefined };

/**
 * A cli-progress bar on stderr when it is a TTY, so that stdout stays the command's
 * output and scripts, pipes and CI logs see no bar at all. `unit` names what is counted.
 */
/** Whether progress is shown at all (callers skip work done only for it). */
export const showsProgress = (): boolean => process.stderr.isTTY === true;

export function progressBar(label: string, unit: string, total = 0): Progress {
  if (!process.stderr.isTTY) return SILENT;
  const bar = new cliProgress.SingleBar({
    stream: process.stderr,
    format: total > 0
      ? `${label} |{bar}| {percentage}% {value}/{total} ${unit} | ETA {eta_formatted}`
      : `${label} |{bar}| {value} ${unit} | {duration_formatted}`,
    hideCursor: true,
    clearOnComplete: false,
    etaBuffer: 100,
  }, cliProgress.Presets.shades_classic);
  bar.start(total, 0);
  let value = 0;
  let known = total;
  return {
    total(next) { known = next; bar.setTotal(next); },
    increment(by = 1) {
      value += by;
      // An unknown total grows with the work, so that the bar never reads past 100 %.
      if (known === 0) bar.setTotal(value);
      bar.increment(by);
    },
    stop() { bar.stop(); },
  };
}

import { useEffect, useState } from "preact/hooks";

export type Async<T> =
  | { readonly state: "loading"; readonly previous?: T | undefined }
  | { readonly state: "done"; readonly value: T }
  | { readonly state: "failed"; readonly error: unknown };

/**
 * Runs `load` whenever `deps` change and keeps only the latest run's outcome: an answer
 * that arrives after the user moved on (a slower earlier page) is dropped, and the
 * signal given to `load` is aborted. While loading, the last value stays available as
 * `previous`, so a screen can keep showing it rather than flash empty.
 */
export function useAsync<T>(load: (signal: AbortSignal) => Promise<T>, deps: readonly unknown[]): [Async<T>, () => void] {
  const [result, setResult] = useState<Async<T>>({ state: "loading" });
  const [round, setRound] = useState(0);
  useEffect(() => {
    const controller = new AbortController();
    setResult((last) => ({ state: "loading", previous: last.state === "done" ? last.value : last.state === "loading" ? last.previous : undefined }));
    load(controller.signal).then(
      (value) => { if (!controller.signal.aborted) setResult({ state: "done", value }); },
      (error: unknown) => { if (!controller.signal.aborted) setResult({ state: "failed", error }); },
    );
    return () => controller.abort();
    // The caller names what `load` depends on; `round` re-runs it on demand.
  }, [...deps, round]);
  return [result, () => setRound((n) => n + 1)];
}

/** The value to show: the latest, or while a new one loads, the one before it. */
export function shown<T>(result: Async<T>): T | undefined {
  if (result.state === "done") return result.value;
  if (result.state === "loading") return result.previous;
  return undefined;
}

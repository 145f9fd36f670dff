import { useRef, useState } from "preact/hooks";
import { errorMessage } from "./api.js";

/**
 * A form's submission: its work runs one at a time — a second click while it runs does
 * nothing, so a double click creates one token or webhook, not two (and no secret is
 * shown for one the user never sees) — and its refusal is kept to show beside the form.
 */
export function useSubmit(work: () => Promise<void>): { submit: (event?: Event) => Promise<void>; busy: boolean; failure: string } {
  const running = useRef(false);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState("");
  const submit = async (event?: Event): Promise<void> => {
    event?.preventDefault();
    if (running.current) return;
    running.current = true;
    setBusy(true);
    setFailure("");
    try {
      await work();
    } catch (error) {
      setFailure(errorMessage(error));
    } finally {
      running.current = false;
      setBusy(false);
    }
  };
  return { submit, busy, failure };
}

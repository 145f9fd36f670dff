import { useEffect, useRef, useState } from "preact/hooks";
import { errorMessage } from "../api.js";

/**
 * A removal in two steps: the first button (named for what it removes, for screen
 * readers) shows what the removal does and a "Confirm: …" button, which takes the focus;
 * "Keep it" goes back. A refusal is shown beside it and the removal can be asked again.
 */
export function ConfirmAction({ label, name, question, confirmLabel, onConfirm }: {
  readonly label: string; readonly name: string; readonly question: string; readonly confirmLabel: string;
  readonly onConfirm: () => Promise<void>;
}) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState("");
  const confirmRef = useRef<HTMLButtonElement>(null);
  useEffect(() => { if (asking) confirmRef.current?.focus(); }, [asking]);
  const confirm = async (): Promise<void> => {
    if (busy) return;
    setBusy(true);
    setFailure("");
    try {
      await onConfirm();
      setAsking(false);
    } catch (error) {
      setFailure(errorMessage(error));
    } finally {
      setBusy(false);
    }
  };
  if (!asking) return <button type="button" class="danger" aria-label={name} onClick={() => setAsking(true)}>{label}</button>;
  return (
    <span class="confirm-inline">
      <span class="confirm-question">{question}</span>
      <span class="actions">
        <button type="button" class="primary danger" ref={confirmRef} disabled={busy} onClick={() => void confirm()}>{confirmLabel}</button>
        <button type="button" onClick={() => { setAsking(false); setFailure(""); }}>Keep it</button>
      </span>
      {failure ? <span class="alert" role="alert">{failure}</span> : null}
    </span>
  );
}

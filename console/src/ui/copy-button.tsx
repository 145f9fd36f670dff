import { useState } from "preact/hooks";

/**
 * Copies a secret to the clipboard. The Clipboard API needs a secure context (https or
 * localhost); elsewhere the text is selected so that the user can copy it by hand.
 */
export function CopyButton({ text, target, label }: { text: string; target: string; label: string }) {
  const [outcome, setOutcome] = useState("");
  const copy = async (): Promise<void> => {
    try {
      await navigator.clipboard.writeText(text);
      setOutcome("Copied.");
    } catch {
      const input = document.getElementById(target);
      if (input instanceof HTMLInputElement) { input.focus(); input.select(); }
      setOutcome("Copying is not allowed here: the text is selected, press Ctrl+C.");
    }
  };
  return (
    <span class="copy">
      <button type="button" onClick={() => void copy()}>{label}</button>
      <span role="status" aria-live="polite" class="hint">{outcome}</span>
    </span>
  );
}

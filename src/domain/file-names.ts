/**
 * Characters a file name must not carry to whoever downloads it: controls (C0, C1) and
 * format characters (Unicode Cf: bidirectional overrides and isolates, zero-width
 * characters), which make `evil\u202Egpj.exe` show as `evilexe.jpg`.
 */
const HIDDEN_IN_NAME = /[\p{Cc}\p{Cf}]/gu;

/** The name with each hidden character replaced by `_`, so that what is shown is what it is. */
export function visibleFileName(name: string): string {
  return name.replace(HIDDEN_IN_NAME, "_");
}

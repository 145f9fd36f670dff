import { spawnSync } from "node:child_process";

/**
 * The Python that has openpyxl, the reader users' scripts open our .xlsx files with.
 * Debian's python3-openpyxl lives beside /usr/bin/python3, which a pyenv or venv
 * `python3` on PATH would hide; .ci/run installs the package when it is missing.
 */
function findPython(): string {
  for (const candidate of ["/usr/bin/python3", "python3"]) {
    const probe = spawnSync(candidate, ["-c", "import openpyxl"], { stdio: "ignore" });
    if (probe.status === 0) return candidate;
  }
  throw new Error("No python3 with openpyxl: install it (apt-get install python3-openpyxl)");
}

let found: string | undefined;

/** Runs a Python script with `input` on stdin; returns its stdout, or throws with its stderr. */
export function runPython(script: string, input: Buffer): string {
  found ??= findPython();
  const result = spawnSync(found, ["-c", script], { input, maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`${found} could not read the input: ${result.stderr.toString().slice(-1500)}`);
  return result.stdout.toString();
}

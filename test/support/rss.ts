import fs from "node:fs/promises";

/**
 * A process's resident set size in bytes, from /proc/<pid>/status (VmRSS), the memory
 * the process actually holds: V8's heap and everything native (SQLite's page cache,
 * prepared statements, buffers). Linux only; the soak and resource tests run there.
 */
export async function residentBytes(pid: number): Promise<number> {
  const status = await fs.readFile(`/proc/${pid}/status`, "utf8");
  const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status);
  if (!match) throw new Error(`no VmRSS line in /proc/${pid}/status`);
  return Number(match[1]) * 1024;
}

export function mebibytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

import fs from "node:fs/promises";

/*
 * Flushing to disk what a write left in the operating system's cache: what a process
 * crash cannot lose but a power cut can.
 */

/** Flushes a written file's content (any descriptor of a file flushes the file). */
export async function syncFile(file: string): Promise<void> {
  const handle = await fs.open(file, "r+");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Flushes a folder's entries (a file renamed into it, a folder made in it). Windows
 * cannot open a folder for this; its file system orders these writes itself.
 */
export async function syncFolder(folder: string): Promise<void> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(folder, "r");
  } catch (error) {
    if (process.platform === "win32") return;
    throw error;
  }
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

import type { Download } from "../../src/client/fetch-client.js";

/**
 * Saves a downloaded Blob under its name. Downloads need the Authorization header, so
 * they are fetched, then handed to the browser as an object URL: a plain link would
 * have to carry the token in its URL.
 */
export function saveDownload(download: Download): void {
  const url = URL.createObjectURL(download.blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = download.filename;
  link.rel = "noopener";
  document.body.append(link);
  link.click();
  link.remove();
  // The browser has started reading the Blob by now; a minute is ample before freeing it.
  window.setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

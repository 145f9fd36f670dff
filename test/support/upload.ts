import { execFile } from "node:child_process";
import type { JsonBody } from "./json.js";

/** A file part of a multipart add-data. */
export interface FilePart {
  /** The part name: the file field's slug. */
  readonly slug: string;
  readonly content: Buffer | Blob;
  readonly filename: string;
  readonly type?: string;
}

export interface UploadReply {
  readonly status: number;
  readonly text: string;
  /** The parsed JSON body; undefined when the body is not JSON. */
  readonly json: JsonBody;
}

/**
 * A multipart/form-data POST to add-data with Node's own FormData and fetch (undici):
 * text parts first, in the order given, then the file parts (unless `filesFirst`).
 */
export async function postMultipart(
  url: string, token: string, text: Record<string, string>, files: readonly FilePart[],
  options: { filesFirst?: boolean; headers?: Record<string, string> } = {},
): Promise<UploadReply> {
  const form = new FormData();
  const addText = (): void => { for (const [name, value] of Object.entries(text)) form.append(name, value); };
  const addFiles = (): void => {
    for (const file of files) {
      const blob = file.content instanceof Blob ? file.content : new Blob([new Uint8Array(file.content)], { type: file.type ?? "application/octet-stream" });
      form.append(file.slug, blob, file.filename);
    }
  };
  if (options.filesFirst) { addFiles(); addText(); } else { addText(); addFiles(); }
  const response = await fetch(new URL("/api/add-data", url), {
    method: "POST", body: form, headers: { ...options.headers, authorization: `Bearer ${token}` },
  });
  const body = await response.text();
  let json: unknown;
  try { json = JSON.parse(body); } catch { json = undefined; }
  return { status: response.status, text: body, json };
}

/**
 * The same upload made by `curl -F`, which streams the file from disk: neither this
 * process nor curl holds it in memory. Text parts go as --form-string (no @/< magic).
 */
export function curlUpload(
  url: string, token: string, text: Record<string, string>, file: { slug: string; path: string; filename: string; type: string },
): Promise<UploadReply & { curlError: string }> {
  const args = ["-sS", "-X", "POST", "-H", `Authorization: Bearer ${token}`, "-w", "\n%{http_code}"];
  for (const [name, value] of Object.entries(text)) args.push("--form-string", `${name}=${value}`);
  args.push("-F", `${file.slug}=@${file.path};type=${file.type};filename=${file.filename}`);
  args.push(new URL("/api/add-data", url).toString());
  return new Promise((resolve) => {
    execFile("curl", args, { maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const cut = stdout.lastIndexOf("\n");
      const body = cut < 0 ? "" : stdout.slice(0, cut);
      const status = Number(stdout.slice(cut + 1)) || 0;
      let json: unknown;
      try { json = JSON.parse(body); } catch { json = undefined; }
      resolve({ status, text: body, json, curlError: error ? `${error.message} ${stderr}` : "" });
    });
  });
}

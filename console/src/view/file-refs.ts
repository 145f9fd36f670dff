import { useEffect, useState } from "preact/hooks";
import type { FetchBlocClient } from "../api.js";

/** The form of the references this service gives uploaded files (a random UUID). */
const REFERENCE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Which of a page's values are files the token may download. Used when the field types
 * are unknown (members cannot read them): every value shaped like a reference is asked
 * about with HEAD /api/files/:ref, at most once per value, so a page of text never
 * turns into links by looks alone.
 */
export function useFileRefs(client: FetchBlocClient, values: readonly string[], enabled: boolean): ReadonlySet<string> {
  const [files, setFiles] = useState<ReadonlySet<string>>(new Set());
  const candidates = enabled ? [...new Set(values.filter((v) => REFERENCE.test(v)))].sort() : [];
  const key = candidates.join(",");
  useEffect(() => {
    if (candidates.length === 0) return undefined;
    let current = true;
    void Promise.all(candidates.map(async (ref) => (await client.isFile(ref).catch(() => false)) ? ref : null)).then((found) => {
      if (current) setFiles(new Set(found.filter((ref): ref is string => ref !== null)));
    });
    return () => { current = false; };
  }, [client, key]);
  return files;
}

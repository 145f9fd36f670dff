import { useEffect, useState } from "preact/hooks";
import type { FetchBlocClient } from "../api.js";

/**
 * The names of the users who created a page's records, asked of the service once per user
 * ID and kept for the bloc while the view is open. The service names only creators of
 * records this token can see; an ID it leaves out (or a failed request) shows as the ID.
 */
export function useUserNames(client: FetchBlocClient, blocId: string, ids: readonly string[]): ReadonlyMap<string, string> {
  const [known, setKnown] = useState<ReadonlyMap<string, string>>(new Map());
  const [asked] = useState(() => new Set<string>());
  const wanted = [...new Set(ids)].filter((id) => id !== "" && !asked.has(id)).sort();
  const key = wanted.join(",");
  useEffect(() => {
    if (wanted.length === 0) return;
    for (const id of wanted) asked.add(id);
    void client.userNames(blocId, wanted).then(
      (names) => setKnown((before) => new Map([...before, ...Object.entries(names)])),
      // Not fatal: the IDs stay shown, and are asked again when the view opens next.
      () => { for (const id of wanted) asked.delete(id); },
    );
  }, [client, blocId, key]);
  return known;
}

import type { RestrictionMode } from "../../../src/client/types.js";

/** What each restriction means to a member, in the words the admin pages use. */
export const RESTRICTIONS: readonly { readonly value: RestrictionMode; readonly label: string }[] = [
  { value: "none", label: "None: members see every record" },
  { value: "own", label: "Own: members see the records they added" },
  { value: "hidden", label: "Hidden: members see none (unless granted seeHidden)" },
];

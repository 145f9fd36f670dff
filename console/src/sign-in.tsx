import { useState } from "preact/hooks";
import { clientFor } from "./api.js";
import { TextInput } from "./ui/controls.js";
import { Failure } from "./ui/notice.js";
import { PageHeading } from "./ui/page-heading.js";
import type { Me } from "../../src/client/types.js";

/**
 * Sign-in with a token, checked against GET /api/me before it is kept. The field is a
 * password field, so the token is not shown on screen nor offered for autofill.
 */
export function SignIn({ onSignedIn, reason }: { onSignedIn: (token: string, me: Me) => void; reason?: string | undefined }) {
  const [token, setToken] = useState("");
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event): Promise<void> => {
    event.preventDefault();
    const trimmed = token.trim();
    if (trimmed === "") { setError(new Error("Paste a token to sign in.")); return; }
    setBusy(true);
    setError(null);
    try {
      onSignedIn(trimmed, await clientFor(trimmed).me());
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main id="main" class="sign-in">
      <PageHeading>Sign in to the Bloc Data console</PageHeading>
      {reason ? <p class="notice">{reason}</p> : null}
      <form onSubmit={(e) => void submit(e)} noValidate>
        <TextInput label="Token" type="password" autocomplete="off" spellcheck={false} value={token} onValue={setToken}
          hint="A token issued by an admin (bds_…). It is kept in this tab only, until you sign out or close it." />
        <button type="submit" class="primary" disabled={busy}>{busy ? "Signing in…" : "Sign in"}</button>
      </form>
      <Failure error={error} prefix="Not signed in" />
    </main>
  );
}

import { useState } from "preact/hooks";
import { clientFor, errorMessage } from "./api.js";
import { authenticate, SignInRefused } from "./calls.js";
import { TextInput } from "./ui/controls.js";
import { PageHeading } from "./ui/page-heading.js";
import type { Me } from "../../src/client/types.js";
import "./forms.css";

type Way = "password" | "token";

/**
 * Sign-in with an email and password (people), or with a token (machines: a kiosk or a
 * scanner station set up once). Either way the token is checked against GET /api/me
 * before it is kept, and kept as the app keeps it (sessionStorage only).
 */
export function SignIn({ onSignedIn, reason }: { onSignedIn: (token: string, me: Me) => void; reason?: string | undefined }) {
  const [way, setWay] = useState<Way>("password");
  const [failure, setFailure] = useState("");
  const [busy, setBusy] = useState(false);

  const attempt = async (event: Event, token: () => Promise<string>): Promise<void> => {
    event.preventDefault();
    if (busy) return;
    setBusy(true);
    setFailure("");
    try {
      const accepted = await token();
      onSignedIn(accepted, await clientFor(accepted).me());
    } catch (error) {
      setFailure(`Not signed in: ${refusal(error)}`);
    } finally {
      setBusy(false);
    }
  };
  const switchTo = (next: Way): void => {
    setWay(next);
    setFailure("");
    // The other form's first box takes the focus, so the keyboard lands where the eye does.
    window.setTimeout(() => document.querySelector<HTMLInputElement>(".sign-in form input")?.focus(), 0);
  };

  return (
    <main id="main" class="sign-in">
      <div class="sign-in-card">
        <PageHeading>Sign in to the Bloc Data console</PageHeading>
        {reason ? <p class="notice">{reason}</p> : null}
        {way === "password"
          ? <PasswordForm busy={busy} onSubmit={(e, email, password) => void attempt(e, async () => (await authenticate(email, password)).token)} onError={setFailure} />
          : <TokenForm busy={busy} onSubmit={(e, token) => void attempt(e, () => Promise.resolve(token))} onError={setFailure} />}
        {/* One live region for both forms, present before its text changes. */}
        <div role="alert" class={failure ? "alert" : "alert-empty"}>{failure}</div>
        <p class="other-way">
          {way === "password"
            ? <button type="button" class="link" onClick={() => switchTo("token")}>Sign in with a token</button>
            : <button type="button" class="link" onClick={() => switchTo("password")}>Use an email and password instead</button>}
          <span class="hint">{way === "password" ? " (for machines and scripts)" : ""}</span>
        </p>
      </div>
    </main>
  );
}

/** The service's words for a refusal, with how long a locked-out email must wait. */
function refusal(error: unknown): string {
  if (error instanceof SignInRefused) {
    // The service's text gives the wait in seconds; a person reads it in minutes.
    if (error.status === 429 && error.retryAfterSeconds !== null) return `${error.message} — about ${minutes(error.retryAfterSeconds)}.`;
    return error.message;
  }
  return errorMessage(error);
}

function minutes(seconds: number): string {
  if (seconds < 60) return `${seconds} second${seconds === 1 ? "" : "s"}`;
  const m = Math.ceil(seconds / 60);
  return `${m} minute${m === 1 ? "" : "s"}`;
}

function PasswordForm({ busy, onSubmit, onError }: {
  busy: boolean; onSubmit: (event: Event, email: string, password: string) => void; onError: (message: string) => void;
}) {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const submit = (event: Event): void => {
    if (email.trim() === "" || password === "") { event.preventDefault(); onError("Not signed in: enter your email and your password."); return; }
    onSubmit(event, email.trim(), password);
  };
  return (
    <form onSubmit={submit} noValidate>
      <TextInput label="Email" type="email" autocomplete="username" spellcheck={false} value={email} onValue={setEmail} />
      <TextInput label="Password" type="password" autocomplete="current-password" value={password} onValue={setPassword} />
      <button type="submit" class="primary wide" disabled={busy}>{busy ? "Signing in…" : "Sign in"}</button>
    </form>
  );
}

function TokenForm({ busy, onSubmit, onError }: { busy: boolean; onSubmit: (event: Event, token: string) => void; onError: (message: string) => void }) {
  const [token, setToken] = useState("");
  const submit = (event: Event): void => {
    const trimmed = token.trim();
    if (trimmed === "") { event.preventDefault(); onError("Not signed in: paste a token to sign in."); return; }
    onSubmit(event, trimmed);
  };
  return (
    <form onSubmit={submit} noValidate>
      {/* A password field: the token is not shown on screen nor offered for autofill. */}
      <TextInput label="Token" type="password" autocomplete="off" spellcheck={false} value={token} onValue={setToken}
        hint="A token issued by an admin (bds_…). It is kept in this tab only, until you sign out or close it." />
      <button type="submit" class="primary wide" disabled={busy}>{busy ? "Signing in…" : "Sign in"}</button>
    </form>
  );
}

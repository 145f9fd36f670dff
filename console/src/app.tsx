import { useState } from "preact/hooks";
import { clientFor, SESSION_ENDED } from "./api.js";
import { BlocApiError } from "../../src/client/errors.js";
import { Nav } from "./nav.js";
import { Screen } from "./screen.js";
import { SignIn } from "./sign-in.js";
import { forgetToken, storedToken, storeToken, type Session } from "./session.js";
import { shown, useAsync } from "./use-async.js";
import { useRoute } from "./route.js";
import { Failure, Loading } from "./ui/notice.js";

/** The shell: sign-in until a token is accepted, then the navigation and the current screen. */
export function App() {
  const [token, setToken] = useState(storedToken);
  // Each sign-in starts a fresh session tree (keyed by a count, so that the token is not a key Preact's tools would show).
  const [signIns, setSignIns] = useState(0);
  const [signedOut, setSignedOut] = useState<string | undefined>(undefined);
  const route = useRoute();

  if (token === null) {
    return <SignIn reason={signedOut} onSignedIn={(accepted) => { storeToken(accepted); setSignedOut(undefined); setToken(accepted); setSignIns((n) => n + 1); }} />;
  }
  const signOut = (reason?: string): void => { forgetToken(); setSignedOut(reason); setToken(null); };
  return <SignedIn key={signIns} token={token} signOut={signOut} route={route} />;
}

function SignedIn({ token, signOut, route }: { token: string; signOut: (reason?: string) => void; route: ReturnType<typeof useRoute> }) {
  const [client] = useState(() => clientFor(token, () => signOut(SESSION_ENDED)));
  const [me, refresh] = useAsync(() => client.me(), [client]);
  // A refresh keeps the screen (and what the user typed) while /api/me is asked again.
  const known = shown(me);
  if (me.state === "failed" && !(me.error instanceof BlocApiError && me.error.status === 401)) {
    // Not an answer about the token (the service unreachable, a time-out): keep it and offer to ask again.
    return (
      <main id="main">
        <Failure error={me.error} prefix="Your access could not be read" />
        <button type="button" onClick={refresh}>Try again</button>
      </main>
    );
  }
  if (me.state === "failed") {
    // A 401 for /api/me: the client's check is signing out (SESSION_ENDED); nothing to show meanwhile.
    return <main id="main"><Loading what="your session" /></main>;
  }
  if (known === undefined) return <main id="main"><Loading what="your access" /></main>;
  const session: Session = { client, me: known, refresh };
  return (
    <>
      <a class="skip" href="#main" onClick={(e) => { e.preventDefault(); document.getElementById("page-title")?.focus(); }}>Skip to content</a>
      <Nav session={session} route={route} signOut={() => signOut("You signed out.")} />
      <main id="main">
        <Screen session={session} route={route} />
      </main>
    </>
  );
}

import { useId, useState } from "preact/hooks";
import type { Session } from "../session.js";
import { byName, errorMessage } from "../api.js";
import { useSubmit } from "../use-submit.js";
import { useAsync } from "../use-async.js";
import { Checkbox, TextInput } from "../ui/controls.js";
import { CopyButton } from "../ui/copy-button.js";
import { Failure, Loading, Status } from "../ui/notice.js";
import type { IssuedToken, Permission, TokenInfo, User } from "../../../src/client/types.js";

const PERMISSIONS: readonly Permission[] = ["read", "add", "update", "delete"];

interface Scope { readonly permissions: readonly Permission[] | null; readonly blocs: readonly string[] | null }

function scopeText(token: TokenInfo): string {
  const scope = token.scope as Scope | undefined;
  if (!scope || (scope.permissions === null && scope.blocs === null)) return "all the user may do";
  return [scope.permissions ? `only ${scope.permissions.join(", ")}` : "", scope.blocs ? `on ${scope.blocs.join(", ")}` : ""].filter(Boolean).join(" ");
}

const text = (value: unknown): string => (typeof value === "string" ? value : "");

/** A user's tokens: issue one (its secret shown once, with a copy button), list them, revoke one. */
export function TokensPanel({ session, user }: { session: Session; user: User }) {
  const [tokens, reload] = useAsync(() => session.client.admin.listTokens(user.id), [user.id]);
  const [issued, setIssued] = useState<IssuedToken | null>(null);
  const [message, setMessage] = useState("");
  return (
    <section aria-labelledby="tokens-heading">
      <h2 id="tokens-heading">Tokens</h2>
      <IssueToken session={session} user={user} onIssued={(token) => { setIssued(token); setMessage(""); reload(); }} />
      {issued ? <Secret issued={issued} onDone={() => setIssued(null)} /> : null}
      {tokens.state === "loading" ? <Loading what="tokens" /> : tokens.state === "failed" ? <Failure error={tokens.error} /> : (
        <TokenTable session={session} tokens={tokens.value} onRevoked={(token) => { setMessage(`Token ${token.name ?? token.id} revoked.`); reload(); }} />
      )}
      <Status>{message}</Status>
    </section>
  );
}

function Secret({ issued, onDone }: { issued: IssuedToken; onDone: () => void }) {
  const id = useId();
  return (
    <div class="secret panel" role="group" aria-labelledby={`${id}-label`}>
      <label for={id} id={`${id}-label`}>New token — shown this once: copy it now</label>
      <input id={id} class="secret-value" readOnly value={issued.token} spellcheck={false} onFocus={(e) => e.currentTarget.select()} />
      <CopyButton text={issued.token} target={id} label="Copy token" />
      <p class="hint">Only its hash is stored: the service cannot show it again. Token ID <code class="token-id">{issued.id}</code>.</p>
      <button type="button" onClick={onDone}>I have copied it</button>
    </div>
  );
}

function IssueToken({ session, user, onIssued }: { session: Session; user: User; onIssued: (token: IssuedToken) => void }) {
  const [name, setName] = useState("");
  const [expires, setExpires] = useState("");
  const [narrow, setNarrow] = useState<Permission[]>([]);
  const [blocs, setBlocs] = useState<string[]>([]);
  const all = byName(session.me.blocs);
  const { submit, busy, failure } = useSubmit(async () => {
    const token = await session.client.admin.createToken(user.id, {
      ...(name.trim() ? { name: name.trim() } : {}),
      // datetime-local gives 2099-12-31T23:59(:59); the service takes 2099-12-31 23:59:59.
      ...(expires ? { expiresAt: `${expires.replace("T", " ")}${expires.length === 16 ? ":00" : ""}` } : {}),
      ...(narrow.length > 0 ? { permissions: narrow } : {}),
      ...(blocs.length > 0 ? { blocs } : {}),
    });
    onIssued(token);
    setName(""); setExpires(""); setNarrow([]); setBlocs([]);
  });
  const toggle = <T,>(list: readonly T[], item: T, on: boolean): T[] => (on ? [...list, item] : list.filter((x) => x !== item));
  return (
    <form onSubmit={(e) => void submit(e)} noValidate class="panel">
      <h3>Issue a token</h3>
      <div class="row">
        <TextInput label="Token name" value={name} onValue={setName} hint="Where it is used: tablet, scanner…" />
        <TextInput label="Expires" type="datetime-local" step={1} value={expires} onValue={setExpires} hint="In the service's time zone; empty: never." />
      </div>
      <fieldset class="row checks">
        <legend>Only these permissions (none ticked: all the user has)</legend>
        {PERMISSIONS.map((p) => <Checkbox key={p} label={p} checked={narrow.includes(p)} onChecked={(on) => setNarrow(toggle(narrow, p, on))} />)}
      </fieldset>
      {all.length > 0 ? (
        <fieldset class="row checks">
          <legend>Only these blocs (none ticked: every bloc)</legend>
          {all.map((b) => <Checkbox key={b.id} label={b.name} checked={blocs.includes(b.id)} onChecked={(on) => setBlocs(toggle(blocs, b.id, on))} />)}
        </fieldset>
      ) : null}
      <button type="submit" class="primary" disabled={busy}>Issue token</button>
      {failure ? <p class="alert" role="alert">{failure}</p> : null}
    </form>
  );
}

function TokenTable({ session, tokens, onRevoked }: { session: Session; tokens: readonly TokenInfo[]; onRevoked: (token: TokenInfo) => void }) {
  const [confirming, setConfirming] = useState<string | null>(null);
  const [failure, setFailure] = useState("");
  const revoke = async (token: TokenInfo): Promise<void> => {
    setFailure("");
    try {
      await session.client.admin.revokeToken(token.id);
      setConfirming(null);
      onRevoked(token);
    } catch (error) {
      setFailure(errorMessage(error));
    }
  };
  if (tokens.length === 0) return <p class="hint">No token yet.</p>;
  return (
    <>
      <div class="table-scroll" role="region" aria-label="Tokens table" tabIndex={0}>
        <table>
          <caption>{tokens.length} {tokens.length === 1 ? "token" : "tokens"}, oldest first (secrets are never shown again)</caption>
          <thead><tr><th scope="col">Name</th><th scope="col">ID</th><th scope="col">Scope</th><th scope="col">Created</th><th scope="col">Expires</th><th scope="col">Last used</th><th scope="col">State</th></tr></thead>
          <tbody>
            {tokens.map((token) => {
              const revoked = text(token.revokedAt);
              const label = token.name ?? token.id;
              return (
                <tr key={token.id}>
                  <td>{token.name ?? <span class="hint">(no name)</span>}</td>
                  <td><code class="token-id">{token.id}</code></td>
                  <td>{scopeText(token)}</td>
                  <td class="nowrap volatile">{text(token.createdAt)}</td>
                  <td class="nowrap">{text(token.expiresAt) || "never"}</td>
                  <td class="nowrap volatile">{text(token.lastUsedAt) || "never"}</td>
                  <td>
                    {revoked ? <span>revoked <span class="volatile">{revoked}</span></span>
                      : confirming === token.id ? (
                        <span class="actions">
                          <button type="button" class="danger" onClick={() => void revoke(token)}>Confirm: revoke {label}</button>
                          <button type="button" onClick={() => setConfirming(null)}>Keep it</button>
                        </span>
                      ) : <button type="button" aria-label={`Revoke the token ${label}`} onClick={() => setConfirming(token.id)}>Revoke</button>}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {failure ? <p class="alert" role="alert">{failure}</p> : null}
    </>
  );
}

import { useState } from "preact/hooks";
import type { Session } from "../session.js";
import { errorMessage } from "../api.js";
import { TextInput } from "../ui/controls.js";
import { ConfirmAction } from "../ui/confirm-action.js";
import { Status } from "../ui/notice.js";
import type { User } from "../../../src/client/types.js";

/**
 * A user's sign-in: their email, a password set for them (never shown; they may change it
 * themselves), and whether they may sign in at all. Disabling answers 401 to every token
 * of theirs at once; enabling lets the tokens not revoked or expired work again.
 */
export function AccountSection({ session, user, onSaved }: { session: Session; user: User; onSaved: () => void }) {
  const [email, setEmail] = useState(user.email ?? "");
  const [password, setPasswordText] = useState("");
  const [message, setMessage] = useState("");
  const [failure, setFailure] = useState("");
  const self = user.id === session.me.user.id;
  const run = async (event: Event | null, work: () => Promise<string>): Promise<void> => {
    event?.preventDefault();
    setFailure("");
    setMessage("");
    try {
      setMessage(await work());
      onSaved();
    } catch (error) {
      setFailure(errorMessage(error));
    }
  };
  const saveEmail = (event: Event): Promise<void> => run(event, async () => {
    const trimmed = email.trim();
    const saved = await session.client.admin.updateUser(user.id, { email: trimmed === "" ? null : trimmed });
    return saved.email ? `Email saved: ${saved.email}.` : "Email removed: they can no longer sign in with a password.";
  });
  const savePassword = (event: Event): Promise<void> => run(event, async () => {
    await session.client.admin.setPassword(user.id, password);
    setPasswordText("");
    return `Password set for ${user.name}.`;
  });
  const disabled = user.disabled;
  return (
    <section aria-labelledby="account-heading">
      <h2 id="account-heading">Sign-in <span class={disabled ? "badge off" : "badge"}>{disabled ? "disabled" : "active"}</span></h2>
      <form class="row" onSubmit={(e) => void saveEmail(e)} noValidate>
        <TextInput label="Email" type="email" autocomplete="off" spellcheck={false} value={email} onValue={setEmail}
          hint="They sign in with it and a password; empty for none." />
        <button type="submit">Save email</button>
      </form>
      <form class="row" onSubmit={(e) => void savePassword(e)} noValidate>
        <TextInput label="New password" type="password" autocomplete="new-password" value={password} onValue={setPasswordText}
          hint="At least 10 characters. Tell it to them privately; they can change it." />
        <button type="submit">Set password</button>
      </form>
      <div class="actions">
        {disabled ? (
          <button type="button" onClick={() => void run(null, async () => { await session.client.admin.updateUser(user.id, { disabled: false }); return `${user.name} may sign in again.`; })}>
            Enable {user.name}
          </button>
        ) : self ? <p class="hint">You cannot disable yourself here.</p> : (
          <ConfirmAction label={`Disable ${user.name}`} name={`Disable ${user.name}`} confirmLabel={`Confirm: disable ${user.name}`}
            question="Every token of theirs is refused at once and they cannot sign in; their records stay. Enable them to undo."
            onConfirm={async () => { await session.client.admin.updateUser(user.id, { disabled: true }); setMessage(`${user.name} is disabled.`); onSaved(); }} />
        )}
      </div>
      {failure ? <p class="alert" role="alert">{failure}</p> : null}
      <Status>{message}</Status>
    </section>
  );
}

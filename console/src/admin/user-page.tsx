import { useState } from "preact/hooks";
import type { Session } from "../session.js";
import { errorMessage } from "../api.js";
import { shown, useAsync } from "../use-async.js";
import { Select, TextArea } from "../ui/controls.js";
import { Failure, Loading, Status } from "../ui/notice.js";
import { PageHeading } from "../ui/page-heading.js";
import type { Role, User } from "../../../src/client/types.js";
import { TokensPanel } from "./tokens-panel.js";
import { AccountSection } from "./account-section.js";
import "../forms.css";

/** One user: profile values, role memberships and tokens. */
export function AdminUser({ session, userId }: { session: Session; userId: string }) {
  const [result, reload] = useAsync(() => session.client.admin.getUser(userId), [userId]);
  // After a save the user is read again with the page kept: its messages, and a token's secret not yet copied, stay.
  const user = shown(result);
  if (result.state === "failed") return <><PageHeading>User {userId}</PageHeading><Failure error={result.error} /></>;
  if (user === undefined) return <Loading what="the user" />;
  return (
    <>
      <PageHeading>User {user.name}</PageHeading>
      <p>ID {user.id}, {user.role === "admin" ? "an admin: may do everything" : "a member: may do what grants allow"}.</p>
      <AccountSection key={user.id} session={session} user={user} onSaved={reload} />
      <ProfileForm session={session} user={user} onSaved={reload} />
      <RolesForm session={session} user={user} roles={user.roles} onSaved={reload} />
      <TokensPanel session={session} user={user} />
    </>
  );
}

function ProfileForm({ session, user, onSaved }: { session: Session; user: User; onSaved: () => void }) {
  const [text, setText] = useState(user.profile.join("\n"));
  const [message, setMessage] = useState("");
  const [failure, setFailure] = useState("");
  const save = async (event: Event): Promise<void> => {
    event.preventDefault();
    setFailure("");
    try {
      const saved = await session.client.admin.setProfile(user.id, text.split("\n").map((l) => l.trim()).filter((l) => l !== ""));
      setMessage(`Profile saved: ${saved.profile.length === 0 ? "no values" : saved.profile.join(", ")}.`);
      onSaved();
    } catch (error) {
      setFailure(errorMessage(error));
    }
  };
  return (
    <section aria-labelledby="profile-heading">
      <h2 id="profile-heading">Profile values</h2>
      <form onSubmit={(e) => void save(e)} noValidate>
        <TextArea label="Profile values, one per line" value={text} onValue={setText}
          hint="On a field with a profile filter, this member sees only records holding one of these values." />
        <button type="submit">Save profile</button>
      </form>
      {failure ? <p class="alert" role="alert">{failure}</p> : null}
      <Status>{message}</Status>
    </section>
  );
}

function RolesForm({ session, user, roles, onSaved }: { session: Session; user: User; roles: readonly Role[]; onSaved: () => void }) {
  const [all] = useAsync(() => session.client.admin.listRoles(), []);
  const [chosen, setChosen] = useState("");
  const [failure, setFailure] = useState("");
  const others = all.state === "done" ? all.value.filter((r) => !roles.some((m) => m.id === r.id)) : [];
  // The choice stands while the user is not in that role yet; once added, the next one offered.
  const role = others.some((r) => r.id === chosen) ? chosen : others[0]?.id ?? "";
  const act = async (work: () => Promise<unknown>): Promise<void> => {
    setFailure("");
    try { await work(); onSaved(); } catch (error) { setFailure(errorMessage(error)); }
  };
  return (
    <section aria-labelledby="roles-heading">
      <h2 id="roles-heading">Roles</h2>
      {roles.length === 0 ? <p class="hint">In no role.</p> : (
        <ul>
          {roles.map((r) => (
            <li key={r.id}>{r.name}{" "}
              <button type="button" class="quiet" aria-label={`Remove ${user.name} from the role ${r.name}`}
                onClick={() => void act(() => session.client.admin.removeRoleMember(user.id, r.id))}>Remove</button>
            </li>
          ))}
        </ul>
      )}
      {others.length > 0 ? (
        <form class="row" onSubmit={(e) => { e.preventDefault(); void act(() => session.client.admin.addRoleMember(user.id, role)); }}>
          <Select label="Role" value={role} onValue={setChosen} options={others.map((r) => ({ value: r.id, label: r.name }))} />
          <button type="submit">Add to role</button>
        </form>
      ) : null}
      {failure ? <p class="alert" role="alert">{failure}</p> : null}
    </section>
  );
}

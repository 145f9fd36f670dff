import { useState } from "preact/hooks";
import type { Session } from "../session.js";
import { byName, errorMessage } from "../api.js";
import { useAsync } from "../use-async.js";
import { Checkbox, Select } from "../ui/controls.js";
import { Failure, Loading } from "../ui/notice.js";
import { PageHeading } from "../ui/page-heading.js";
import type { Bloc, Grant, RestrictionMode, Role, User } from "../../../src/client/types.js";
import { RESTRICTIONS } from "./labels.js";

interface Lists { readonly blocs: readonly Bloc[]; readonly users: readonly User[]; readonly roles: readonly Role[] }

/**
 * Grants (a user's or a role's read, add, update and seeHidden on a bloc) and per-user
 * restrictions, set and removed here; each bloc's page lists them (bloc-access-list.tsx).
 */
export function AdminAccess({ session }: { session: Session }) {
  const admin = session.client.admin;
  const [lists] = useAsync(async (): Promise<Lists> => {
    const [blocs, users, roles] = await Promise.all([admin.listBlocs(), admin.listUsers(), admin.listRoles()]);
    return { blocs: byName(blocs), users: byName(users), roles: byName(roles) };
  }, []);
  const [log, setLog] = useState<string[]>([]);
  const note = (line: string): void => setLog((all) => [line, ...all]);
  return (
    <>
      <PageHeading>Access</PageHeading>
      <p class="hint">Set what a user or role should have on a bloc; it replaces what was there. Each bloc's page lists who holds what.</p>
      {lists.state === "loading" ? <Loading what="blocs, users and roles" /> : lists.state === "failed" ? <Failure error={lists.error} /> : (
        <>
          <GrantForm session={session} lists={lists.value} note={note} />
          <RestrictionForm session={session} lists={lists.value} note={note} />
        </>
      )}
      <section aria-labelledby="log-heading">
        <h2 id="log-heading">Changes made here</h2>
        <div role="log" aria-live="polite"><ul class="log">{log.map((line, i) => <li key={log.length - i}>{line}</li>)}</ul></div>
      </section>
    </>
  );
}

const GRANT_KEYS = ["read", "add", "update", "delete", "seeHidden"] as const;

function GrantForm({ session, lists, note }: { session: Session; lists: Lists; note: (line: string) => void }) {
  const members = lists.users.filter((u) => u.role === "member");
  const [blocId, setBlocId] = useState(lists.blocs[0]?.id ?? "");
  const [kind, setKind] = useState<"user" | "role">("user");
  const [who, setWho] = useState("");
  const [grant, setGrant] = useState<Required<Grant>>({ read: true, add: false, update: false, delete: false, seeHidden: false });
  const [failure, setFailure] = useState("");
  const people = kind === "user" ? members.map((u) => ({ value: u.id, label: `${u.name} (ID ${u.id})` })) : lists.roles.map((r) => ({ value: r.id, label: r.name }));
  const target = who && people.some((p) => p.value === who) ? who : people[0]?.value ?? "";
  const blocName = lists.blocs.find((b) => b.id === blocId)?.name ?? blocId;
  const whoName = people.find((p) => p.value === target)?.label ?? target;

  const act = async (remove: boolean): Promise<void> => {
    setFailure("");
    if (!blocId || !target) { setFailure(`Choose a bloc and a ${kind}.`); return; }
    const admin = session.client.admin;
    try {
      if (remove) {
        await (kind === "user" ? admin.removeAccess(blocId, target) : admin.removeRoleAccess(blocId, target));
        note(`Removed the grant of ${whoName} on ${blocName}.`);
      } else {
        await (kind === "user" ? admin.setAccess(blocId, target, grant) : admin.setRoleAccess(blocId, target, grant));
        const granted = GRANT_KEYS.filter((k) => grant[k]);
        note(`${whoName} on ${blocName}: ${granted.length === 0 ? "nothing" : granted.join(", ")}.`);
      }
    } catch (error) {
      setFailure(errorMessage(error));
    }
  };

  return (
    <section aria-labelledby="grant-heading">
      <h2 id="grant-heading">Grant access to a bloc</h2>
      <form onSubmit={(e) => { e.preventDefault(); void act(false); }} noValidate>
        <div class="row">
          <Select label="Bloc" value={blocId} onValue={setBlocId} options={lists.blocs.map((b) => ({ value: b.id, label: b.name }))} />
          <Select label="Grant to" value={kind} onValue={(k) => { setKind(k === "role" ? "role" : "user"); setWho(""); }}
            options={[{ value: "user", label: "A member" }, { value: "role", label: "A role" }]} />
          <Select label={kind === "user" ? "Member" : "Role"} value={target} onValue={setWho} options={people} />
        </div>
        <fieldset class="row checks">
          <legend>May</legend>
          {GRANT_KEYS.map((key) => (
            <Checkbox key={key} label={key === "seeHidden" ? "see hidden records (seeHidden)" : key} checked={grant[key]}
              onChecked={(on) => setGrant({ ...grant, [key]: on })} />
          ))}
        </fieldset>
        <div class="actions">
          <button type="submit" class="primary">Save grant</button>
          <button type="button" onClick={() => void act(true)}>Remove grant</button>
        </div>
        {failure ? <p class="alert" role="alert">{failure}</p> : null}
      </form>
    </section>
  );
}

function RestrictionForm({ session, lists, note }: { session: Session; lists: Lists; note: (line: string) => void }) {
  const members = lists.users.filter((u) => u.role === "member");
  const [blocId, setBlocId] = useState(lists.blocs[0]?.id ?? "");
  const [userId, setUserId] = useState("");
  const [mode, setMode] = useState<RestrictionMode | "default">("own");
  const [failure, setFailure] = useState("");
  const target = userId || members[0]?.id || "";
  const save = async (event: Event): Promise<void> => {
    event.preventDefault();
    setFailure("");
    if (!blocId || !target) { setFailure("Choose a bloc and a member."); return; }
    const admin = session.client.admin;
    const name = members.find((u) => u.id === target)?.name ?? target;
    const blocName = lists.blocs.find((b) => b.id === blocId)?.name ?? blocId;
    try {
      if (mode === "default") await admin.removeRestriction(blocId, target);
      else await admin.setRestriction(blocId, target, mode);
      note(`${name} on ${blocName}: restriction ${mode === "default" ? "back to the bloc's default" : mode}.`);
    } catch (error) {
      setFailure(errorMessage(error));
    }
  };
  return (
    <section aria-labelledby="restriction-heading">
      <h2 id="restriction-heading">Restrict what a member sees</h2>
      <form onSubmit={(e) => void save(e)} noValidate>
        <div class="row">
          <Select label="Bloc" value={blocId} onValue={setBlocId} options={lists.blocs.map((b) => ({ value: b.id, label: b.name }))} />
          <Select label="Member" value={target} onValue={setUserId} options={members.map((u) => ({ value: u.id, label: `${u.name} (ID ${u.id})` }))} />
          <Select label="Restriction" value={mode} onValue={(m) => setMode(m as RestrictionMode | "default")}
            options={[...RESTRICTIONS, { value: "default", label: "The bloc's default" }]} />
        </div>
        <button type="submit" class="primary">Save restriction</button>
        {failure ? <p class="alert" role="alert">{failure}</p> : null}
      </form>
    </section>
  );
}

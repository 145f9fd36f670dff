import { useState } from "preact/hooks";
import type { Session } from "../session.js";
import { useSubmit } from "../use-submit.js";
import { href } from "../route.js";
import { useAsync } from "../use-async.js";
import { Select, TextInput } from "../ui/controls.js";
import { Failure, Loading, Status } from "../ui/notice.js";
import { PageHeading } from "../ui/page-heading.js";
import type { User, UserRole } from "../../../src/client/types.js";
import "../forms.css";

/** Every user, and a form to create one; a user's page holds their profile, roles and tokens. */
export function AdminUsers({ session }: { session: Session }) {
  const [users, reload] = useAsync(() => session.client.admin.listUsers(), []);
  const [created, setCreated] = useState<User | null>(null);
  return (
    <>
      <PageHeading>Users and tokens</PageHeading>
      <section aria-labelledby="users-heading">
        <h2 id="users-heading">Users</h2>
        {users.state === "loading" ? <Loading what="users" /> : users.state === "failed" ? <Failure error={users.error} /> : (
          <div class="table-scroll" role="region" aria-label="Users table" tabIndex={0}>
            <table>
              <caption>{users.value.length} {users.value.length === 1 ? "user" : "users"}; open one to issue or revoke tokens</caption>
              <thead><tr><th scope="col">Name</th><th scope="col">ID</th><th scope="col">Role</th><th scope="col">Email</th><th scope="col">Sign-in</th><th scope="col">Profile values</th></tr></thead>
              <tbody>
                {users.value.map((user) => (
                  <tr key={user.id}>
                    <td><a href={href({ page: "admin-user", userId: user.id })}>{user.name}</a></td>
                    <td>{user.id}</td><td>{user.role}</td><td>{user.email ?? ""}</td>
                    <td>{user.disabled ? <span class="badge off">disabled</span> : "active"}</td>
                    <td>{user.profile.join(", ")}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      <CreateUser session={session} onCreated={(user) => { setCreated(user); reload(); }} />
      <Status>{created ? <>User <a href={href({ page: "admin-user", userId: created.id })}>{created.name}</a> created (ID {created.id}). Open their page to issue a token.</> : ""}</Status>
    </>
  );
}

function CreateUser({ session, onCreated }: { session: Session; onCreated: (user: User) => void }) {
  const [name, setName] = useState("");
  const [role, setRole] = useState<UserRole>("member");
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const { submit, busy, failure } = useSubmit(async () => {
    onCreated(await session.client.admin.createUser(name.trim(), role, {
      ...(email.trim() ? { email: email.trim() } : {}), ...(password ? { password } : {}),
    }));
    setName("");
    setRole("member");
    setEmail("");
    setPassword("");
  });
  return (
    <section aria-labelledby="create-user-heading">
      <h2 id="create-user-heading">Create a user</h2>
      <form class="row" onSubmit={(e) => void submit(e)} noValidate>
        <TextInput label="User name" value={name} onValue={setName} />
        <Select label="Role" value={role} onValue={(r) => setRole(r === "admin" ? "admin" : "member")}
          options={[{ value: "member", label: "Member: what grants allow" }, { value: "admin", label: "Admin: everything" }]} />
        <TextInput label="Email (optional)" type="email" autocomplete="off" spellcheck={false} value={email} onValue={setEmail} />
        <TextInput label="Password (optional)" type="password" autocomplete="new-password" value={password} onValue={setPassword}
          hint="At least 10 characters." />
        <button type="submit" class="primary" disabled={busy}>Create user</button>
      </form>
      {failure ? <p class="alert" role="alert">{failure}</p> : null}
    </section>
  );
}

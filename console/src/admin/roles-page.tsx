import { useState } from "preact/hooks";
import type { Session } from "../session.js";
import { href } from "../route.js";
import { useAsync } from "../use-async.js";
import { CreateByName } from "../ui/create-by-name.js";
import { Failure, Loading, Status } from "../ui/notice.js";
import { PageHeading } from "../ui/page-heading.js";
import { ConfirmAction } from "../ui/confirm-action.js";
import "../forms.css";

/** Roles: a grant given to a role applies to each of its members (members are added on a user's page). */
export function AdminRoles({ session }: { session: Session }) {
  const [roles, reload] = useAsync(() => session.client.admin.listRoles(), []);
  const [message, setMessage] = useState("");
  return (
    <>
      <PageHeading>Roles</PageHeading>
      <p>A role's grants apply to each of its members. Add a user to a role on <a href={href({ page: "admin-users" })}>their page</a>;
        grant a role access on the <a href={href({ page: "admin-access" })}>access page</a>.</p>
      {roles.state === "loading" ? <Loading what="roles" /> : roles.state === "failed" ? <Failure error={roles.error} /> : (
        roles.value.length === 0 ? <p class="hint">No role yet.</p> : (
          <table>
            <caption>{roles.value.length} {roles.value.length === 1 ? "role" : "roles"}</caption>
            <thead><tr><th scope="col">Name</th><th scope="col">ID</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
            <tbody>{roles.value.map((r) => (
              <tr key={r.id}><td>{r.name}</td><td>{r.id}</td>
                <td><ConfirmAction label="Delete" name={`Delete the role ${r.name}`} confirmLabel={`Confirm: delete ${r.name}`}
                  question="Its members lose what its grants gave them, at once; the users and their own grants stay."
                  onConfirm={async () => { await session.client.admin.deleteRole(r.id); setMessage(`Role ${r.name} deleted.`); reload(); }} /></td>
              </tr>
            ))}</tbody>
          </table>
        )
      )}
      <Status>{message}</Status>
      <section aria-labelledby="create-role-heading">
        <h2 id="create-role-heading">Create a role</h2>
        <CreateByName what="Role" primary create={(name) => session.client.admin.createRole(name)} onCreated={reload} />
      </section>
    </>
  );
}

import type { Session } from "../session.js";
import { href } from "../route.js";
import { useAsync } from "../use-async.js";
import { Failure, Loading } from "../ui/notice.js";

const FLAGS = ["read", "add", "update", "delete", "seeHidden"] as const;
const HEADERS: Readonly<Record<(typeof FLAGS)[number], string>> = { read: "Read", add: "Add", update: "Update", delete: "Delete", seeHidden: "See hidden" };

function Flag({ on, what }: { on: unknown; what: string }) {
  return on === true ? <td class="yes">yes<span class="sr-only"> ({what})</span></td> : <td>no<span class="sr-only"> ({what})</span></td>;
}

/** Who holds what on one bloc (GET /api/admin/blocs/:blocId/access): users' grants, roles' grants, restrictions. */
export function BlocAccessList({ session, blocId }: { session: Session; blocId: string }) {
  const [access] = useAsync(() => session.client.admin.getAccess(blocId), [blocId]);
  return (
    <section aria-labelledby="access-heading">
      <h2 id="access-heading">Who has access</h2>
      <p class="hint">Change a grant or a restriction on the <a href={href({ page: "admin-access" })}>access page</a>. Admins may do everything and are not listed.</p>
      {access.state === "loading" ? <Loading what="the bloc's grants" /> : access.state === "failed" ? <Failure error={access.error} prefix="The grants could not be read" /> : (
        <>
          <div class="table-scroll" role="region" aria-label="Grants table" tabIndex={0}>
            <table>
              <caption>{access.value.grants.length + access.value.roleGrants.length === 0 ? "No grant on this bloc" : "Grants to users and roles"}</caption>
              <thead><tr><th scope="col">Holder</th>{FLAGS.map((f) => <th scope="col" key={f}>{HEADERS[f]}</th>)}</tr></thead>
              <tbody>
                {access.value.grants.map((g) => (
                  <tr key={`u${g.userId}`}><th scope="row"><a href={href({ page: "admin-user", userId: g.userId })}>{g.userName}</a> <span class="hint">(user {g.userId})</span></th>
                    {FLAGS.map((f) => <Flag key={f} on={g[f]} what={HEADERS[f]} />)}</tr>
                ))}
                {access.value.roleGrants.map((g) => (
                  <tr key={`r${g.roleId}`}><th scope="row">{g.roleName} <span class="hint">(role)</span></th>
                    {FLAGS.map((f) => <Flag key={f} on={g[f]} what={HEADERS[f]} />)}</tr>
                ))}
              </tbody>
            </table>
          </div>
          {access.value.restrictions.length > 0 ? (
            <table class="restrictions">
              <caption>Restrictions set for one user (others have the bloc's default)</caption>
              <thead><tr><th scope="col">User</th><th scope="col">Sees</th></tr></thead>
              <tbody>
                {access.value.restrictions.map((r) => <tr key={r.userId}><td>{r.userName} <span class="hint">(user {r.userId})</span></td><td>{r.mode}</td></tr>)}
              </tbody>
            </table>
          ) : <p class="hint">No user has a restriction of their own.</p>}
        </>
      )}
    </section>
  );
}

import type { Session } from "./session.js";
import { byName, isAdmin } from "./api.js";
import { blocHome, href } from "./route.js";
import { PageHeading } from "./ui/page-heading.js";

const PERMISSION_WORDS = { read: "read", add: "add records", update: "update records", delete: "delete records" } as const;

/** The blocs this token may use, with what it may do on each. */
export function Home({ session }: { session: Session }) {
  const { me } = session;
  return (
    <>
      <PageHeading>Your blocs</PageHeading>
      {me.blocs.length === 0 ? <p>This token may use no bloc yet. An admin can grant access.</p> : (
        <ul class="cards">
          {byName(me.blocs).map((bloc) => (
            <li key={bloc.id} class="card">
              <h2><a href={href(blocHome(bloc))}>{bloc.name}</a></h2>
              <p>You may {bloc.permissions.map((p) => PERMISSION_WORDS[p]).join(", ")}.
                {bloc.restriction === "own" ? " You see the records you added." : ""}
                {bloc.restriction === "hidden" && !bloc.seeHidden ? " Its records are hidden from you." : ""}</p>
            </li>
          ))}
        </ul>
      )}
      {isAdmin(me) ? <p><a href={href({ page: "admin-blocs" })}>Create or change blocs</a> in the admin pages.</p> : null}
    </>
  );
}

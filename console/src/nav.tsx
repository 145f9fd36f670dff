import type { Session } from "./session.js";
import { byName, isAdmin } from "./api.js";
import { blocHome, href, type Route } from "./route.js";

/** Where each admin screen is, in the order an admin sets a bloc up. */
const ADMIN_LINKS: readonly { readonly route: Route; readonly label: string }[] = [
  { route: { page: "admin-blocs" }, label: "Blocs and fields" },
  { route: { page: "admin-users" }, label: "Users and tokens" },
  { route: { page: "admin-roles" }, label: "Roles" },
  { route: { page: "admin-access" }, label: "Access" },
  { route: { page: "admin-webhooks" }, label: "Webhooks" },
];

function current(route: Route, target: Route): boolean {
  if (target.page === "admin-blocs") return route.page === "admin-blocs" || route.page === "admin-bloc";
  if (target.page === "admin-users") return route.page === "admin-users" || route.page === "admin-user";
  if ("blocId" in target && "blocId" in route) return route.blocId === target.blocId && route.page !== "admin-bloc";
  return route.page === target.page;
}

export function Nav({ session, route, signOut }: { session: Session; route: Route; signOut: () => void }) {
  const { me } = session;
  return (
    <header class="top">
      <a class="brand" href={href({ page: "home" })}>Bloc Data console</a>
      <nav aria-label="Blocs">
        <ul>
          {byName(me.blocs).map((bloc) => {
            const target = blocHome(bloc);
            return <li key={bloc.id}><a href={href(target)} aria-current={current(route, target) ? "page" : undefined}>{bloc.name}</a></li>;
          })}
        </ul>
      </nav>
      {isAdmin(me) ? (
        <nav aria-label="Administration">
          <ul>
            {ADMIN_LINKS.map((link) => (
              <li key={link.label}><a href={href(link.route)} aria-current={current(route, link.route) ? "page" : undefined}>{link.label}</a></li>
            ))}
          </ul>
        </nav>
      ) : null}
      <div class="who">
        <span><span class="sr-only">Signed in as </span><strong>{me.user.name}</strong> ({me.user.role})</span>
        <button type="button" onClick={signOut}>Sign out</button>
      </div>
    </header>
  );
}

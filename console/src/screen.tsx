import type { Session } from "./session.js";
import { isAdmin } from "./api.js";
import type { Route } from "./route.js";
import { Home } from "./home.js";
import { BlocPage } from "./view/bloc-page.js";
import { RecordPage } from "./records/record-page.js";
import { AdminBlocs } from "./admin/blocs-page.js";
import { AdminBloc } from "./admin/bloc-page.js";
import { AdminUsers } from "./admin/users-page.js";
import { AdminUser } from "./admin/user-page.js";
import { AdminRoles } from "./admin/roles-page.js";
import { AdminAccess } from "./admin/access-page.js";
import { AdminWebhooks } from "./admin/webhooks-page.js";
import { PageHeading } from "./ui/page-heading.js";

/** The screen a route names. Each is keyed by its route, so a new screen starts from fresh state. */
export function Screen({ session, route }: { session: Session; route: Route }) {
  const key = JSON.stringify(route);
  if (route.page === "home") return <Home key={key} session={session} />;
  if (route.page === "records" || route.page === "add" || route.page === "update") {
    const bloc = session.me.blocs.find((b) => b.id === route.blocId);
    if (!bloc) return <NotFound what="You have no access to this bloc, or it does not exist." />;
    return <BlocPage key={key} session={session} bloc={bloc} tab={route.page} />;
  }
  if (route.page === "record") {
    const bloc = session.me.blocs.find((b) => b.id === route.blocId);
    if (!bloc) return <NotFound what="You have no access to this bloc, or it does not exist." />;
    return <RecordPage key={key} session={session} bloc={bloc} recordId={route.recordId} />;
  }
  if (!isAdmin(session.me)) return <NotFound what="Only an admin's unscoped token may open the admin pages." />;
  switch (route.page) {
    case "admin-blocs": return <AdminBlocs key={key} session={session} />;
    case "admin-bloc": return <AdminBloc key={key} session={session} blocId={route.blocId} />;
    case "admin-users": return <AdminUsers key={key} session={session} />;
    case "admin-user": return <AdminUser key={key} session={session} userId={route.userId} />;
    case "admin-roles": return <AdminRoles key={key} session={session} />;
    case "admin-access": return <AdminAccess key={key} session={session} />;
    case "admin-webhooks": return <AdminWebhooks key={key} session={session} />;
  }
}

function NotFound({ what }: { what: string }) {
  return <><PageHeading>Not available</PageHeading><p>{what}</p></>;
}

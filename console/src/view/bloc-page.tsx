import type { Session } from "../session.js";
import { href, type Route } from "../route.js";
import { PageHeading } from "../ui/page-heading.js";
import type { Me } from "../../../src/client/types.js";
import { RecordsView } from "./records-view.js";
import { AddRecord } from "../records/add-record.js";
import { UpdateByMatch } from "../records/update-by-match.js";

type Tab = "records" | "add" | "update";

const TABS: readonly { readonly tab: Tab; readonly label: string; readonly needs: "read" | "add" | "update" }[] = [
  { tab: "records", label: "Records", needs: "read" },
  { tab: "add", label: "Add a record", needs: "add" },
  { tab: "update", label: "Update by matching values", needs: "update" },
];

/** One bloc: its records, the add form and the update form, each shown to who may use it. */
export function BlocPage({ session, bloc, tab }: { session: Session; bloc: Me["blocs"][number]; tab: Tab }) {
  const allowed = TABS.filter((t) => bloc.permissions.includes(t.needs));
  const titles: Record<Tab, string> = { records: bloc.name, add: `Add a record to ${bloc.name}`, update: `Update records of ${bloc.name}` };
  return (
    <>
      <div class="page-head">
        <PageHeading>{titles[tab]}</PageHeading>
        <nav aria-label="Bloc" class="tabs">
          <ul>
            {allowed.map((t) => {
              const route: Route = { page: t.tab, blocId: bloc.id };
              return <li key={t.tab}><a href={href(route)} aria-current={t.tab === tab ? "page" : undefined}>{t.label}</a></li>;
            })}
          </ul>
        </nav>
      </div>
      {!bloc.permissions.includes(TABS.find((t) => t.tab === tab)!.needs)
        ? <p>This token may not {tab === "records" ? "read" : tab} on this bloc.</p>
        : tab === "records" ? <RecordsView session={session} blocId={bloc.id} />
          : tab === "add" ? <AddRecord session={session} blocId={bloc.id} />
            : <UpdateByMatch session={session} blocId={bloc.id} />}
    </>
  );
}

import { useEffect, useState } from "preact/hooks";

/**
 * The console's screens, addressed by the URL's fragment (#/bloc/scans/add): the server
 * serves one page, and the fragment never leaves the browser. Its path names screens and
 * IDs; a `?…` after it holds the data view's window, filters and page (view/url-state.ts),
 * which a route ignores. Never a token.
 */
export type Route =
  | { readonly page: "home" }
  | { readonly page: "records" | "add" | "update"; readonly blocId: string }
  | { readonly page: "admin-blocs" | "admin-users" | "admin-roles" | "admin-access" | "admin-webhooks" }
  | { readonly page: "admin-bloc"; readonly blocId: string }
  | { readonly page: "record"; readonly blocId: string; readonly recordId: string }
  | { readonly page: "admin-user"; readonly userId: string };

function parseRoute(hash: string): Route {
  const path = hash.includes("?") ? hash.slice(0, hash.indexOf("?")) : hash;
  const parts = path.replace(/^#\/?/, "").split("/").filter((p) => p !== "").map((p) => {
    try { return decodeURIComponent(p); } catch { return p; }
  });
  const [first, second, third, fourth] = parts;
  if (first === "blocs" && second !== undefined && third === "records" && fourth !== undefined) {
    return { page: "record", blocId: second, recordId: fourth };
  }
  if (first === "bloc" && second !== undefined) {
    if (third === "add") return { page: "add", blocId: second };
    if (third === "update") return { page: "update", blocId: second };
    return { page: "records", blocId: second };
  }
  if (first === "admin") {
    if (second === "blocs") return third === undefined ? { page: "admin-blocs" } : { page: "admin-bloc", blocId: third };
    if (second === "users") return third === undefined ? { page: "admin-users" } : { page: "admin-user", userId: third };
    if (second === "roles") return { page: "admin-roles" };
    if (second === "access") return { page: "admin-access" };
    if (second === "webhooks") return { page: "admin-webhooks" };
  }
  return { page: "home" };
}

/** The fragment of a route, for links. */
export function href(route: Route): string {
  const id = (value: string): string => encodeURIComponent(value);
  switch (route.page) {
    case "home": return "#/";
    case "records": return `#/bloc/${id(route.blocId)}`;
    case "add": return `#/bloc/${id(route.blocId)}/add`;
    case "update": return `#/bloc/${id(route.blocId)}/update`;
    case "record": return `#/blocs/${id(route.blocId)}/records/${id(route.recordId)}`;
    case "admin-blocs": return "#/admin/blocs";
    case "admin-bloc": return `#/admin/blocs/${id(route.blocId)}`;
    case "admin-users": return "#/admin/users";
    case "admin-user": return `#/admin/users/${id(route.userId)}`;
    case "admin-roles": return "#/admin/roles";
    case "admin-access": return "#/admin/access";
    case "admin-webhooks": return "#/admin/webhooks";
  }
}

/** A bloc's first screen the token may use: its records, else the add form (a scanner's token), else the update form. */
export function blocHome(bloc: { readonly id: string; readonly permissions: readonly string[] }): Route {
  const page = bloc.permissions.includes("read") ? "records" : bloc.permissions.includes("add") ? "add" : "update";
  return { page, blocId: bloc.id };
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(window.location.hash));
  useEffect(() => {
    const changed = (): void => setRoute(parseRoute(window.location.hash));
    window.addEventListener("hashchange", changed);
    return () => window.removeEventListener("hashchange", changed);
  }, []);
  return route;
}

import type { Context } from "../domain/context.js";
import { addField, createBloc, listBlocs, updateBloc, updateField } from "../domain/blocs.js";
import {
  createRole, grantOf, removeGrant, removeRestriction, removeRoleGrant, setGrant, setProfile, setRestriction,
  setRoleGrant, setRoleMember,
} from "../domain/access.js";
import { parseBound } from "../domain/dates.js";
import { recordHistory } from "../domain/history.js";
import {
  PERMISSIONS, RESTRICTION_MODES, USER_ROLES, type Grant, type Permission, type RestrictionMode, type UserRole,
} from "../domain/model.js";
import { issueToken, revokeToken } from "../domain/tokens.js";
import { createUser, describeUser } from "../domain/users.js";
import { listTokens, listUsers } from "../domain/admin-listing.js";
import { createWebhook, deleteWebhook, listDeliveries, listWebhooks } from "../domain/webhooks.js";
import { schemaVersion } from "../store/open-store.js";
import { deleteBloc, deleteRole, listBlocAccess, retireField } from "../domain/removals.js";

export const USAGE = `Usage: bloc-data <command> (works on DATABASE_URL, default sqlite:./data/bloc.db)

  init [--new-admin] [--name N]                    create the store and an admin, printing its token; when an
                                                   admin exists already, says so and creates none (exit 0)
                                                   unless --new-admin asks for another
  migrate                                          bring the store's schema up to date and print its version
  user add <name> [--role admin|member]            add a user
  user show <userId>                               a user with profile and roles
  user list                                        every user (id, name, role, profile)
  user profile <userId> [value]...                 set a user's profile values (none clears them)
  token add <userId> [--name N] [--expires "YYYY-MM-DD HH:MM:SS"]
            [--permissions read,add,update] [--blocs ID,ID]
                                                   issue a token (printed once), optionally scoped
  token revoke <tokenId>                           revoke a token
  token list <userId>                              a user's tokens: IDs, names, scopes, expiry, revocation,
                                                   creation and last use (never a secret)
  role add <name> | role list                      add or list roles
  role assign|unassign <userId> <roleId>           make a user a member of a role, or not
  role grant <blocId> <roleId> <perms|none>        set a role's permissions on a bloc
  role ungrant <blocId> <roleId>                   remove a role's permissions on a bloc
  role remove <roleId>                             delete a role with its memberships and grants
  bloc add <name> [--field NAME]... [--id ID]      add a bloc; fields get slugs field_1, field_2, …
  bloc set <blocId> [--open-to-all true|false] [--accepting-data true|false] [--restriction none|own|hidden]
  bloc list                                        list blocs with their fields and settings
  bloc access <blocId>                             every grant, role grant and restriction on a bloc
  bloc remove <blocId> [--with-records]            delete a bloc (one holding records only with --with-records)
  field add <blocId> <name> [--slug SLUG] [--profile-filter true|false]
  field set <blocId> <slug> [--name N] [--profile-filter true|false]
  field retire <blocId> <slug>                     retire a field: no longer accepted or shown, values kept
  grant <blocId> <userId> <perms|none>             set a user's permissions; perms: read,add,update,delete,seeHidden
  ungrant <blocId> <userId>                        remove a user's permissions on a bloc
  restrict <blocId> <userId> <none|own|hidden|default>
                                                   a user's restriction on a bloc (default: the bloc's)
  history <blocId> <recordId>                      what each update changed in a record, oldest first
  webhook add <url> [--blocs ID,ID] [--events record.added,record.updated,record.deleted,…]
              [--secret S]                         a webhook (every bloc without --blocs); prints its secret once
  webhook list                                     every webhook (never a secret)
  webhook remove <webhookId>                       remove a webhook
  webhook deliveries <webhookId> [--limit N]       its delivery attempts, newest first (default 20)
  copy --from <url> --to <url> [--batch N]         copy a whole instance into a new, empty database (any
                                                   engines; stop writers first); progress on stderr, JSON on stdout
  backup <file> [--skip-files]                     write a consistent backup of the store and its uploaded files to
                                                   <file> while the service runs (--skip-files: rows only)
  restore <file>                                   restore a backup into the store, which must be empty, and its
                                                   files into BLOC_FILES_DIR
`;

export class UsageError extends Error {}

export interface Options {
  readonly role?: string | undefined;
  readonly name?: string | undefined;
  readonly expires?: string | undefined;
  readonly field?: string[] | undefined;
  readonly id?: string | undefined;
  readonly slug?: string | undefined;
  readonly permissions?: string | undefined;
  readonly blocs?: string | undefined;
  readonly "open-to-all"?: string | undefined;
  readonly "accepting-data"?: string | undefined;
  readonly restriction?: string | undefined;
  readonly "profile-filter"?: string | undefined;
  readonly "new-admin"?: boolean | undefined;
  readonly "with-records"?: boolean | undefined;
  readonly events?: string | undefined;
  readonly secret?: string | undefined;
  readonly limit?: string | undefined;
}

function arg(positionals: readonly string[], index: number, what: string): string {
  const value = positionals[index];
  if (value === undefined) throw new UsageError(`missing ${what}`);
  return value;
}

function oneOf<T extends string>(what: string, value: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(value)) throw new UsageError(`${what} must be one of ${allowed.join(", ")}`);
  return value as T;
}

function bool(what: string, value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  return oneOf(what, value, ["true", "false"]) === "true";
}

function grant(list: string): Grant {
  const names = list === "none" ? [] : list.split(",").map((p) => p.trim());
  for (const name of names) oneOf("a permission", name, [...PERMISSIONS, "seeHidden"]);
  return grantOf(Object.fromEntries(names.map((n) => [n, true])));
}

function list(value: string | undefined): string[] | null {
  return value === undefined ? null : value.split(",").map((v) => v.trim()).filter((v) => v !== "");
}

/** Runs one command; the same domain operations as the admin API, without a server. */
export async function runCommand(ctx: Context, positionals: readonly string[], options: Options): Promise<unknown> {
  const [noun, verb] = positionals;
  const key = ["init", "migrate", "grant", "ungrant", "restrict", "history"].includes(noun ?? "") ? noun : `${noun} ${verb}`;
  const at = (index: number, what: string): string => arg(positionals, index, what);
  switch (key) {
    case "init": {
      const admins = (await listUsers(ctx)).filter((u) => u.role === "admin");
      // Run again (a deploy script, a second reading of the README), init makes no second admin.
      if (admins.length > 0 && !options["new-admin"]) {
        return {
          adminExists: true,
          admins: admins.map(({ id, name }) => ({ id, name })),
          message: `An admin exists already (user ${admins[0]!.id}); none was created. ` +
            `\`bloc-data token add ${admins[0]!.id}\` issues it a new token; \`bloc-data init --new-admin\` makes another admin.`,
        };
      }
      const admin = await createUser(ctx, options.name ?? "admin", "admin");
      const token = await issueToken(ctx, admin.id, { name: "init" });
      return { user: admin, ...token };
    }
    case "migrate":
      // Opening the store (done before any command) applied the missing steps.
      return { schemaVersion: schemaVersion(ctx.store) };
    case "user add":
      return createUser(ctx, at(2, "<name>"), oneOf<UserRole>("--role", options.role ?? "member", USER_ROLES));
    case "user show":
      return describeUser(ctx, at(2, "<userId>"));
    case "user list":
      return { users: await listUsers(ctx) };
    case "user profile":
      return setProfile(ctx, at(2, "<userId>"), positionals.slice(3));
    case "token add":
      return issueToken(ctx, at(2, "<userId>"), {
        name: options.name ?? null,
        expiresAt: options.expires === undefined ? null : parseBound("--expires", options.expires, "end"),
        scope: { permissions: list(options.permissions) as Permission[] | null, blocs: list(options.blocs) },
      });
    case "token list":
      return { tokens: await listTokens(ctx, at(2, "<userId>")) };
    case "token revoke":
      await revokeToken(ctx, at(2, "<tokenId>"));
      return { revoked: positionals[2] };
    case "role add":
      return createRole(ctx, at(2, "<name>"));
    case "role list":
      return ctx.store.accounts.listRoles();
    case "role assign":
    case "role unassign": {
      const [userId, roleId] = [at(2, "<userId>"), at(3, "<roleId>")];
      await setRoleMember(ctx, userId, roleId, verb === "assign");
      return { userId, roleId, member: verb === "assign" };
    }
    case "role grant": {
      const [blocId, roleId] = [at(2, "<blocId>"), at(3, "<roleId>")];
      return { blocId, roleId, ...(await setRoleGrant(ctx, blocId, roleId, grant(at(4, "<permissions>")))) };
    }
    case "role remove":
      await deleteRole(ctx, at(2, "<roleId>"));
      return { removed: positionals[2] };
    case "role ungrant": {
      const [blocId, roleId] = [at(2, "<blocId>"), at(3, "<roleId>")];
      await removeRoleGrant(ctx, blocId, roleId);
      return { blocId, roleId, removed: true };
    }
    case "bloc add":
      return createBloc(ctx, {
        name: at(2, "<name>"), fields: (options.field ?? []).map((name) => ({ name })), id: options.id,
      });
    case "bloc set":
      return updateBloc(ctx, at(2, "<blocId>"), {
        ...(options["open-to-all"] === undefined ? {} : { openToAllUsers: bool("--open-to-all", options["open-to-all"])! }),
        ...(options["accepting-data"] === undefined ? {} : { acceptingData: bool("--accepting-data", options["accepting-data"])! }),
        ...(options.restriction === undefined ? {}
          : { restriction: oneOf<RestrictionMode>("--restriction", options.restriction, RESTRICTION_MODES) }),
      });
    case "bloc list":
      return listBlocs(ctx);
    case "bloc access":
      return listBlocAccess(ctx, at(2, "<blocId>"));
    case "bloc remove":
      await deleteBloc(ctx, at(2, "<blocId>"), options["with-records"] === true);
      return { removed: positionals[2] };
    case "field add":
      return addField(ctx, at(2, "<blocId>"), {
        name: at(3, "<name>"), slug: options.slug, applyProfileFilter: bool("--profile-filter", options["profile-filter"]),
      });
    case "field set":
      return updateField(ctx, at(2, "<blocId>"), at(3, "<slug>"), {
        name: options.name, applyProfileFilter: bool("--profile-filter", options["profile-filter"]),
      });
    case "field retire":
      await retireField(ctx, at(2, "<blocId>"), at(3, "<slug>"));
      return { blocId: positionals[2], retired: positionals[3] };
    case "grant": {
      const [blocId, userId] = [at(1, "<blocId>"), at(2, "<userId>")];
      return { blocId, userId, ...(await setGrant(ctx, blocId, userId, grant(at(3, "<permissions>")))) };
    }
    case "ungrant": {
      const [blocId, userId] = [at(1, "<blocId>"), at(2, "<userId>")];
      await removeGrant(ctx, blocId, userId);
      return { blocId, userId, removed: true };
    }
    case "restrict": {
      const [blocId, userId] = [at(1, "<blocId>"), at(2, "<userId>")];
      const mode = oneOf("the mode", at(3, "<mode>"), [...RESTRICTION_MODES, "default"]);
      if (mode === "default") await removeRestriction(ctx, blocId, userId);
      else await setRestriction(ctx, blocId, userId, mode);
      return { blocId, userId, mode };
    }
    case "history":
      return recordHistory(ctx, at(1, "<blocId>"), at(2, "<recordId>"));
    case "webhook add":
      return createWebhook(ctx, {
        url: at(2, "<url>"), blocs: list(options.blocs), events: list(options.events) ?? undefined, secret: options.secret,
      });
    case "webhook list":
      return { webhooks: await listWebhooks(ctx) };
    case "webhook remove":
      await deleteWebhook(ctx, at(2, "<webhookId>"));
      return { removed: positionals[2] };
    case "webhook deliveries": {
      const limit = options.limit ?? "20";
      if (!/^\d{1,4}$/.test(limit) || Number(limit) < 1 || Number(limit) > 1000) throw new UsageError("--limit must be 1 to 1000");
      return { deliveries: await listDeliveries(ctx, at(2, "<webhookId>"), Number(limit)) };
    }
    default:
      throw new UsageError(`unknown command "${positionals.join(" ")}"`);
  }
}

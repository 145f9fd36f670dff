import type { Context } from "../domain/context.js";
import { addField, createBloc, listBlocs } from "../domain/blocs.js";
import { removeGrant, setGrant } from "../domain/access.js";
import { parseBound } from "../domain/dates.js";
import { ROLES, type Role } from "../domain/model.js";
import { issueToken, revokeToken } from "../domain/tokens.js";
import { createUser } from "../domain/users.js";

export const USAGE = `Usage: bloc-data <command> (works on DATABASE_URL, default sqlite:./data/bloc.db)

  init                                           create the store and print a new admin token
  user add <name> [--role admin|member]          add a user
  token add <userId> [--name N] [--expires "YYYY-MM-DD HH:MM:SS"]
                                                 issue a token (printed once)
  token revoke <tokenId>                         revoke a token
  bloc add <name> [--field NAME]... [--id ID]    add a bloc; fields get slugs field_1, field_2, …
  bloc list                                      list blocs with their fields
  field add <blocId> <name> [--slug SLUG]        add a field to a bloc
  grant <blocId> <userId> <read,add,update|none> set a user's permissions on a bloc
  ungrant <blocId> <userId>                      remove a user's permissions on a bloc
`;

export class UsageError extends Error {}

export interface Options {
  readonly role?: string | undefined;
  readonly name?: string | undefined;
  readonly expires?: string | undefined;
  readonly field?: string[] | undefined;
  readonly id?: string | undefined;
  readonly slug?: string | undefined;
}

function arg(positionals: readonly string[], index: number, what: string): string {
  const value = positionals[index];
  if (value === undefined) throw new UsageError(`missing ${what}`);
  return value;
}

function role(value: string | undefined): Role {
  if (value === undefined) return "member";
  if (!(ROLES as readonly string[]).includes(value)) throw new UsageError(`--role must be one of ${ROLES.join(", ")}`);
  return value as Role;
}

function permissions(list: string): { read: boolean; add: boolean; update: boolean } {
  const names = list === "none" ? [] : list.split(",").map((p) => p.trim());
  for (const name of names) {
    if (!["read", "add", "update"].includes(name)) throw new UsageError(`unknown permission "${name}"`);
  }
  return { read: names.includes("read"), add: names.includes("add"), update: names.includes("update") };
}

/** Runs one command; the same domain operations as the admin API, without a server. */
export async function runCommand(ctx: Context, positionals: readonly string[], options: Options): Promise<unknown> {
  const [noun, verb] = positionals;
  const key = ["init", "grant", "ungrant"].includes(noun ?? "") ? noun : `${noun} ${verb}`;
  switch (key) {
    case "init": {
      const admin = await createUser(ctx, options.name ?? "admin", "admin");
      const token = await issueToken(ctx, admin.id, { name: "init" });
      return { user: admin, ...token };
    }
    case "user add":
      return createUser(ctx, arg(positionals, 2, "<name>"), role(options.role));
    case "token add":
      return issueToken(ctx, arg(positionals, 2, "<userId>"), {
        name: options.name ?? null,
        expiresAt: options.expires === undefined ? null : parseBound("--expires", options.expires, "end"),
      });
    case "token revoke":
      await revokeToken(ctx, arg(positionals, 2, "<tokenId>"));
      return { revoked: positionals[2] };
    case "bloc add":
      return createBloc(ctx, {
        name: arg(positionals, 2, "<name>"),
        fields: (options.field ?? []).map((name) => ({ name })),
        id: options.id,
      });
    case "bloc list":
      return listBlocs(ctx);
    case "field add":
      return addField(ctx, arg(positionals, 2, "<blocId>"), {
        name: arg(positionals, 3, "<name>"), slug: options.slug,
      });
    case "grant": {
      const blocId = arg(positionals, 1, "<blocId>");
      const userId = arg(positionals, 2, "<userId>");
      return { blocId, userId, ...(await setGrant(ctx, blocId, userId, permissions(arg(positionals, 3, "<permissions>")))) };
    }
    case "ungrant": {
      const blocId = arg(positionals, 1, "<blocId>");
      const userId = arg(positionals, 2, "<userId>");
      await removeGrant(ctx, blocId, userId);
      return { blocId, userId, removed: true };
    }
    default:
      throw new UsageError(`unknown command "${positionals.join(" ")}"`);
  }
}

import { AccessDeniedError } from "./errors.js";
import { PERMISSIONS, type FieldRules, type Module, type Permission } from "./model.js";
import type { Context } from "./context.js";
import { accessTo, type Principal } from "./access.js";

/** A field as a form shows it: its rules, without what only an admin decides (profile filtering, indexing). */
export interface FormField extends Omit<FieldRules, "indexed"> {
  readonly slug: string;
  readonly name: string;
}

/** What a form needs to add to a bloc, and what the caller may do there. */
export interface BlocForm {
  readonly blocId: string;
  readonly name: string;
  readonly acceptingData: boolean;
  readonly requireJob: boolean;
  readonly fields: readonly FormField[];
  /** The bloc's module, whose ID add-data's jobID must be: none, or one. */
  readonly modules: readonly Module[];
  readonly permissions: Readonly<Record<Permission, boolean>>;
}

/**
 * The bloc's fields for anyone who may do something there (a grant of their own or
 * through a role, the bloc open to all, an admin), within their token's scope. Anyone
 * else, and anyone asking for a bloc that does not exist, gets the same refusal
 * (docs/security.md): a form tells no more than the bloc's own answers would.
 */
export async function describeForm(ctx: Context, principal: Principal, blocId: string): Promise<BlocForm> {
  const { bloc, permissions } = await accessTo(ctx, principal, blocId);
  if (permissions.size === 0) throw new AccessDeniedError();
  const module = bloc.moduleId === null ? undefined : await ctx.store.blocs.findModule(bloc.moduleId);
  return {
    blocId: bloc.id,
    name: bloc.name,
    acceptingData: bloc.acceptingData,
    requireJob: bloc.requireJob,
    fields: bloc.fields.map((f) => ({
      slug: f.slug, name: f.name, type: f.type, required: f.required, options: f.options, maxLength: f.maxLength,
      pattern: f.pattern, unique: f.unique, format: f.format,
    })),
    modules: module ? [module] : [],
    permissions: Object.fromEntries(PERMISSIONS.map((p) => [p, permissions.has(p)])) as Record<Permission, boolean>,
  };
}

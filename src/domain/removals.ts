import { ConflictError, NotFoundError } from "./errors.js";
import type { Context } from "./context.js";
import type { Grant } from "./model.js";
import type { BlocAccessList } from "./ports/store.js";
import { parseFormat } from "./autogenerate.js";
import { getBloc } from "./blocs.js";
import { changeWithEvent, configChanged } from "./events.js";
import { lockBloc } from "./capabilities.js";

/*
 * Undoing what an admin made (docs/blocs-and-fields.md, "Removing things"): a field is retired, not
 * deleted, so that its slug is never given again and records keep its values; a bloc is
 * deleted with everything it holds, only when asked to take its records along; a role
 * goes with its memberships and grants; a module only once no bloc belongs to it.
 */

/** Whether an autogenerate format still reads with only these fields (a `{seq:N by slug}` names one of them). */
function formatHolds(format: string, slugs: readonly string[]): boolean {
  try {
    parseFormat(format, slugs);
    return true;
  } catch {
    return false;
  }
}

/**
 * Retires a field: add-data and update-records refuse it, and no listing, report or form
 * shows it; the values records hold stay in the records and their history. Refused for a
 * field that decides who sees which records (profile filtering: retiring it would show
 * them) or that an autogenerate field counts by.
 */
export async function retireField(ctx: Context, blocId: string, slug: string): Promise<void> {
  const bloc = await getBloc(ctx, blocId);
  const field = bloc.fields.find((f) => f.slug === slug);
  if (!field) throw new NotFoundError(`Bloc "${blocId}" has no field "${slug}"`);
  if (field.applyProfileFilter) {
    throw new ConflictError(`${slug} filters records by user profile: set applyProfileFilter to false before retiring it, `
      + "or its records would show to users it hides them from");
  }
  const others = bloc.fields.filter((f) => f.slug !== slug);
  const counting = others.filter((f) => f.type === "autogenerate" && !formatHolds(f.format!, others.map((o) => o.slug)));
  if (counting.length > 0) {
    throw new ConflictError(`${counting.map((f) => f.slug).join(", ")} counts by ${slug} in its format: change that format before retiring ${slug}`);
  }
  const now = ctx.now();
  await changeWithEvent(ctx, blocId, async (tx) => {
    // Writers of the bloc's records wait: none counts a value of the field after its counters go.
    await lockBloc(tx, blocId);
    if (!(await tx.blocs.retireField(blocId, slug, now))) throw new NotFoundError(`Bloc "${blocId}" has no field "${slug}"`);
  }, () => configChanged("bloc.updated", now, { kind: "field.retired", slug }));
}

/**
 * Deletes a bloc and all it holds. A bloc that holds records is kept unless `withRecords`
 * says to delete them too (409 naming how many). File content no other record uses is
 * removed from disk once the rows are gone.
 */
export async function deleteBloc(ctx: Context, blocId: string, withRecords: boolean): Promise<void> {
  await getBloc(ctx, blocId);
  const contents = await ctx.store.transaction(async (tx) => {
    await lockBloc(tx, blocId);
    if (!(await tx.blocs.findBloc(blocId))) throw new NotFoundError(`Bloc "${blocId}" does not exist`);
    const held = await tx.records.countRecords({ blocId });
    if (held > 0 && !withRecords) {
      throw new ConflictError(`Bloc "${blocId}" holds ${held} record${held === 1 ? "" : "s"}: `
        + "delete it with ?withRecords=true to delete them with it");
    }
    return tx.blocs.deleteBloc(blocId);
  });
  // A hold then its release removes the content only if no record of another bloc, and no upload, uses it.
  for (const sha256 of contents) {
    const hold = await ctx.store.files.holdContent(sha256, ctx.now());
    await ctx.store.files.releaseContent(hold, sha256, () => ctx.blobs.removeNow(sha256));
  }
}

/** Deletes a role: its members lose what its grants gave them at once. Each bloc it held a grant on gets an access.updated event. */
export async function deleteRole(ctx: Context, roleId: string): Promise<void> {
  const now = ctx.now();
  const blocs = await ctx.store.transaction(async (tx) => {
    const granted = await tx.accounts.deleteRole(roleId);
    if (!granted) throw new NotFoundError(`Role "${roleId}" does not exist`);
    for (const blocId of granted) {
      await tx.events.appendEvents(blocId, [configChanged("access.updated", now, { kind: "role.deleted", roleId })]);
    }
    return granted;
  });
  for (const blocId of blocs) ctx.events.appended(blocId);
}

/**
 * Deletes a module no bloc belongs to. Refused while one does: detaching the bloc
 * silently would let its add-data take any jobID, which the admin chose to check.
 */
export async function deleteModule(ctx: Context, moduleId: string): Promise<void> {
  await ctx.store.transaction(async (tx) => {
    const members = (await tx.blocs.listBlocs()).filter((b) => b.moduleId === moduleId);
    if (members.length > 0) {
      throw new ConflictError(`Module "${moduleId}" is the module of bloc ${members.map((b) => `"${b.id}"`).join(", ")}: `
        + "give those blocs another module (or moduleId null) first");
    }
    if (!(await tx.blocs.deleteModule(moduleId))) throw new NotFoundError(`Module "${moduleId}" does not exist`);
  });
}

/** Who holds what on a bloc, each grant's permissions beside its holder's ID and name (the admin API and the CLI answer this). */
export interface AccessListing {
  readonly grants: readonly ({ readonly userId: string; readonly userName: string } & Grant)[];
  readonly roleGrants: readonly ({ readonly roleId: string; readonly roleName: string } & Grant)[];
  readonly restrictions: BlocAccessList["restrictions"];
}

export async function listBlocAccess(ctx: Context, blocId: string): Promise<AccessListing> {
  await getBloc(ctx, blocId);
  const list = await ctx.store.access.blocAccessList(blocId);
  return {
    grants: list.grants.map(({ userId, userName, grant }) => ({ userId, userName, ...grant })),
    roleGrants: list.roleGrants.map(({ roleId, roleName, grant }) => ({ roleId, roleName, ...grant })),
    restrictions: list.restrictions,
  };
}

import crypto from "node:crypto";
import { ConflictError, InvalidInputError, NotFoundError } from "./errors.js";
import type { Bloc, BlocSettings, Field } from "./model.js";
import type { Context } from "./context.js";
import { resolveRules, TEXT_RULES, type RulesInput } from "./field-rules.js";
import { rebuildCounters } from "./record-writes.js";
import { changeWithEvent, configChanged } from "./events.js";
import { refreshStatistics } from "./capabilities.js";

const SLUG = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
const BLOC_ID = /^[A-Za-z0-9_-]{1,64}$/;
/** Keys that records and reports already use for system values. */
const RESERVED_SLUGS = new Set([
  "created_at", "user_id", "submitted_status", "service_entry_row_id", "time_stamp", "date_stamp",
  "count", "fieldCounts", "fieldCountsPartial", "countLimitInfo", "fieldNames",
]);
/**
 * Names every JavaScript object already answers to (toString, constructor, __proto__,
 * hasOwnProperty, valueOf, …). Slugs become object keys in clients as well as here; a
 * field named like one would read as a function where it has no value.
 */
const OBJECT_NAMES = new Set(Object.getOwnPropertyNames(Object.prototype));

export interface FieldInput extends RulesInput {
  readonly name: string;
  readonly slug?: string | undefined;
  readonly applyProfileFilter?: boolean | undefined;
}

export interface FieldChanges extends RulesInput {
  readonly name?: string | undefined;
  readonly applyProfileFilter?: boolean | undefined;
}

const DEFAULT_SETTINGS: BlocSettings = {
  openToAllUsers: false, acceptingData: true, restriction: "none",
  moduleId: null, requireJob: false, scanLimit: null, scanLimitPeriod: null,
};

function checkName(what: string, name: string): string {
  const trimmed = name.trim();
  if (trimmed === "") throw new InvalidInputError(`${what} must not be empty`);
  return trimmed;
}

function checkSlug(slug: string): string {
  if (!SLUG.test(slug)) {
    throw new InvalidInputError(`slug "${slug}" must start with a letter or _ and hold only letters, digits and _ (at most 64)`);
  }
  if (RESERVED_SLUGS.has(slug)) throw new InvalidInputError(`slug "${slug}" is reserved for a system value`);
  if (OBJECT_NAMES.has(slug)) {
    throw new InvalidInputError(`slug "${slug}" is the name of a property every JavaScript object has; choose another`);
  }
  return slug;
}

/**
 * Gives each field its slug (the one asked for, else `field_<n>` for the field's
 * position n, moving on to the next free number if that slug is taken) and its rules.
 */
function newFields(existing: readonly Field[], inputs: readonly FieldInput[], retired: readonly string[] = []): Field[] {
  // A retired field's slug is never given again: records and their history still hold its values.
  const taken = new Set([...existing.map((f) => f.slug), ...retired]);
  const explicit = inputs.filter((f) => f.slug !== undefined).map((f) => checkSlug(f.slug!));
  for (const slug of explicit) {
    if (taken.has(slug)) throw new ConflictError(`slug "${slug}" is already used in this bloc`);
    taken.add(slug);
  }
  const slugs = inputs.map((input, index) => {
    if (input.slug !== undefined) return input.slug;
    let n = existing.length + index + 1;
    while (taken.has(`field_${n}`)) n += 1;
    taken.add(`field_${n}`);
    return `field_${n}`;
  });
  const allSlugs = [...existing.map((f) => f.slug), ...slugs];
  return inputs.map((input, index) => ({
    slug: slugs[index]!,
    name: checkName("field name", input.name),
    applyProfileFilter: input.applyProfileFilter ?? false,
    ...resolveRules(TEXT_RULES, input, allSlugs),
  }));
}

async function checkSettings(ctx: Context, settings: Partial<BlocSettings>): Promise<void> {
  if (settings.moduleId !== undefined && settings.moduleId !== null && !(await ctx.store.blocs.findModule(settings.moduleId))) {
    throw new NotFoundError(`Module "${settings.moduleId}" does not exist`);
  }
  if (settings.scanLimit !== undefined && settings.scanLimit !== null &&
    (!Number.isInteger(settings.scanLimit) || settings.scanLimit < 1)) {
    throw new InvalidInputError("scanLimit must be a whole number of at least 1, or null for no limit");
  }
}

async function newBlocId(ctx: Context): Promise<string> {
  if (ctx.idStyle === "uuid") return crypto.randomUUID();
  return String((await ctx.store.blocs.highestNumericBlocId()) + 1);
}

export interface BlocInput extends Partial<BlocSettings> {
  readonly name: string;
  readonly fields?: readonly FieldInput[] | undefined;
  readonly id?: string | undefined;
}

/** The bloc, and its first event (bloc.updated, "bloc.created"), which carries it whole. */
function saveNewBloc(ctx: Context, bloc: Bloc): Promise<void> {
  const now = ctx.now();
  return changeWithEvent(ctx, bloc.id, (tx) => tx.blocs.createBloc(bloc, now),
    () => configChanged("bloc.updated", now, { kind: "bloc.created", bloc }));
}

export async function createBloc(ctx: Context, input: BlocInput): Promise<Bloc> {
  const { name: rawName, fields: fieldInputs, id, ...given } = input;
  const name = checkName("name", rawName);
  const fields = newFields([], fieldInputs ?? []);
  const settings: BlocSettings = { ...DEFAULT_SETTINGS };
  for (const [key, value] of Object.entries(given)) {
    if (value !== undefined && key in DEFAULT_SETTINGS) Object.assign(settings, { [key]: value });
  }
  await checkSettings(ctx, settings);
  if (id !== undefined) {
    if (!BLOC_ID.test(id)) throw new InvalidInputError("id must be 1 to 64 letters, digits, - or _");
    const bloc = { id, name, fields, ...settings };
    try {
      await saveNewBloc(ctx, bloc);
    } catch (error) {
      if (error instanceof ConflictError) throw new ConflictError(`A bloc with id "${id}" already exists`);
      throw error;
    }
    return bloc;
  }
  // A numeric ID can be taken by a concurrent creation between reading the highest and inserting.
  for (let attempt = 0; ; attempt += 1) {
    const bloc = { id: await newBlocId(ctx), name, fields, ...settings };
    try {
      await saveNewBloc(ctx, bloc);
      return bloc;
    } catch (error) {
      if (!(error instanceof ConflictError) || attempt >= 5) throw error;
    }
  }
}

export async function getBloc(ctx: Context, blocId: string): Promise<Bloc> {
  const bloc = await ctx.store.blocs.findBloc(blocId);
  if (!bloc) throw new NotFoundError(`Bloc "${blocId}" does not exist`);
  return bloc;
}

export async function addField(ctx: Context, blocId: string, input: FieldInput): Promise<Field> {
  const bloc = await getBloc(ctx, blocId);
  const [field] = newFields(bloc.fields, [input], await ctx.store.blocs.retiredFieldSlugs(blocId));
  const now = ctx.now();
  try {
    await changeWithEvent(ctx, blocId, (tx) => tx.blocs.addField(blocId, field!),
      () => configChanged("bloc.updated", now, { kind: "field.added", field }));
  } catch (error) {
    if (error instanceof ConflictError) throw new ConflictError(`slug "${field!.slug}" is already used in this bloc`);
    throw error;
  }
  return field!;
}

export async function updateBloc(ctx: Context, blocId: string, settings: Partial<BlocSettings>): Promise<Bloc> {
  const current = await getBloc(ctx, blocId);
  await checkSettings(ctx, settings);
  const now = ctx.now();
  const toOrFromOwn = (restriction: Bloc["restriction"]): boolean =>
    settings.restriction !== undefined && (settings.restriction === "own") !== (restriction === "own");
  await changeWithEvent(ctx, blocId, async (tx) => {
    const before = settings.restriction === undefined ? undefined : await tx.blocs.findBloc(blocId);
    await tx.blocs.updateBlocSettings(blocId, settings);
    // Whether every owner is read as `own` decides whose scopes count values (counting/keys.ts).
    if (before && toOrFromOwn(before.restriction)) await rebuildCounters(tx, blocId);
  }, () => configChanged("bloc.updated", now, { kind: "settings", settings }), { recount: toOrFromOwn(current.restriction) });
  return getBloc(ctx, blocId);
}

export async function updateField(ctx: Context, blocId: string, slug: string, changes: FieldChanges): Promise<Field> {
  const bloc = await getBloc(ctx, blocId);
  const current = bloc.fields.find((f) => f.slug === slug);
  if (!current) throw new NotFoundError(`Bloc "${blocId}" has no field "${slug}"`);
  const field: Field = {
    slug,
    name: changes.name === undefined ? current.name : checkName("name", changes.name),
    applyProfileFilter: changes.applyProfileFilter ?? current.applyProfileFilter,
    ...resolveRules(current, changes, bloc.fields.map((f) => f.slug)),
  };
  const now = ctx.now();
  // Profile-filtered fields define counter segments: changing which fields are means recounting, in the same transaction.
  const recount = field.applyProfileFilter !== current.applyProfileFilter;
  await changeWithEvent(ctx, blocId, async (tx) => {
    await tx.blocs.updateField(blocId, field);
    if (recount) await rebuildCounters(tx, blocId);
  }, () => configChanged("bloc.updated", now, { kind: "field.updated", field }), { recount });
  // A recount rewrote the bloc's counters: the planner's statistics follow.
  if (recount) await refreshStatistics(ctx.store);
  return field;
}

export function listBlocs(ctx: Context): Promise<Bloc[]> {
  return ctx.store.blocs.listBlocs();
}

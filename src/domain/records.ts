import { InvalidInputError } from "./errors.js";
import { RECORD_ID_KEY, type Bloc, type MatchCondition, type Order, type StoredRecord } from "./model.js";
import type { Context } from "./context.js";
import type { DateWindow } from "./dates.js";
import type { ValueCounts } from "../store/store.js";
import { checkProfileWrite, requireAccess, type Principal } from "./access.js";
import { toStoredValue } from "./values.js";

/** Status of a record added through add-data: 1 = submitted. */
export const SUBMITTED = 1;

function knownField(bloc: Bloc, where: string, slug: string): void {
  if (!bloc.fields.some((field) => field.slug === slug)) {
    throw new InvalidInputError(`${where} names "${slug}", which is not a field of this bloc`);
  }
}

/** Field values as stored, after checking every slug and value against the bloc. */
function storedValues(bloc: Bloc, where: string, input: Readonly<Record<string, unknown>>): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [slug, value] of Object.entries(input)) {
    knownField(bloc, where, slug);
    values[slug] = toStoredValue(`${where}.${slug}`, value);
  }
  return values;
}

export interface AddRecordInput {
  readonly blocId: string;
  readonly jobId: string | null;
  readonly values: Readonly<Record<string, unknown>>;
}

export interface AddedRecord {
  readonly id: number;
  /** Values the server chose in place of the submitted ones; none exist yet. */
  readonly autogenerateReplacements: readonly unknown[];
}

export async function addRecord(ctx: Context, principal: Principal, input: AddRecordInput): Promise<AddedRecord> {
  const access = await requireAccess(ctx, principal, input.blocId, "add");
  const values = storedValues(access.bloc, "dataToAdd", input.values);
  checkProfileWrite(access, principal, values, true);
  const id = await ctx.store.insertRecord({
    blocId: access.bloc.id, createdAt: ctx.now(), userId: principal.user.id,
    submittedStatus: SUBMITTED, jobId: input.jobId, values,
  });
  return { id, autogenerateReplacements: [] };
}

export interface ReadRecordsInput {
  readonly blocId: string;
  readonly window: DateWindow;
  readonly order: Order;
  readonly limit: number;
  readonly page: number;
}

export interface RecordsPage {
  readonly bloc: Bloc;
  readonly records: readonly StoredRecord[];
  readonly count: number;
  readonly fieldCounts: ValueCounts;
  /** Records of the whole bloc the reader may see, whatever the window. */
  readonly scansCounted: number;
}

export async function readRecords(ctx: Context, principal: Principal, input: ReadRecordsInput): Promise<RecordsPage> {
  const { bloc, visibility } = await requireAccess(ctx, principal, input.blocId, "read");
  const filter = { blocId: bloc.id, visibility, ...input.window };
  const [records, count, fieldCounts, scansCounted] = await Promise.all([
    ctx.store.listRecords(filter, { order: input.order, limit: input.limit, offset: (input.page - 1) * input.limit }),
    ctx.store.countRecords(filter),
    ctx.store.countValues(filter, bloc.fields.map((field) => field.slug)),
    ctx.store.countRecords({ blocId: bloc.id, visibility }),
  ]);
  return { bloc, records, count, fieldCounts, scansCounted };
}

export interface UpdateRecordsInput {
  readonly blocId: string;
  readonly set: Readonly<Record<string, unknown>>;
  readonly search: Readonly<Record<string, unknown>>;
}

/**
 * Sets `set` on every record the principal may see whose values equal all of
 * `search` exactly; returns their IDs ascending.
 */
export async function updateRecords(ctx: Context, principal: Principal, input: UpdateRecordsInput): Promise<number[]> {
  const access = await requireAccess(ctx, principal, input.blocId, "update");
  const { bloc, visibility } = access;
  if (RECORD_ID_KEY in input.set) throw new InvalidInputError(`fieldsToUpdate cannot change ${RECORD_ID_KEY}`);
  const values = storedValues(bloc, "fieldsToUpdate", input.set);
  const match: MatchCondition[] = Object.entries(input.search).map(([key, value]) => {
    if (key !== RECORD_ID_KEY) knownField(bloc, "searchItems", key);
    return { key, values: [toStoredValue(`searchItems.${key}`, value)] };
  });
  checkProfileWrite(access, principal, values, false);
  return ctx.store.updateRecords({ blocId: bloc.id, visibility, match }, values);
}

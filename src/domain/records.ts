import { InvalidInputError } from "./errors.js";
import {
  DRAFT, RECORD_ID_KEY, STATUS_KEY, SUBMITTED,
  type Bloc, type Field, type MatchCondition, type Order, type StoredRecord,
} from "./model.js";
import type { Context } from "./context.js";
import type { DateWindow } from "./dates.js";
import type { NewFile, ValueCounts } from "../store/store.js";
import { checkProfileWrite, requireAccess, type Principal } from "./access.js";
import { parseFormat, template } from "./autogenerate.js";
import { checkValue } from "./field-rules.js";
import { checkJob } from "./modules.js";
import { countLimitInfo, periodStart, type CountLimitInfo } from "./scan-limit.js";
import { countRecords, countValues, listRecords } from "./record-queries.js";
import { insertRecord, updateRecords as updateMatching, type Replacement, type UniqueKey } from "./record-writes.js";
import { toStoredValue } from "./values.js";

function fieldOf(bloc: Bloc, where: string, slug: string): Field {
  const field = bloc.fields.find((f) => f.slug === slug);
  if (!field) throw new InvalidInputError(`${where} names "${slug}", which is not a field of this bloc`);
  return field;
}

/**
 * Field values as stored, after checking every slug and value against the bloc. A
 * file field takes its value from an uploaded file only, so that a record cannot be
 * made to point at someone else's file.
 */
function storedValues(bloc: Bloc, where: string, input: Readonly<Record<string, unknown>>): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [slug, value] of Object.entries(input)) {
    const field = fieldOf(bloc, where, slug);
    const stored = toStoredValue(`${where}.${slug}`, value);
    if (field.type === "file" && stored !== "") {
      throw new InvalidInputError(`${where}.${slug} is a file field: send the file as a multipart part named ${slug}`);
    }
    values[slug] = stored;
  }
  return values;
}

/** Reads a submitted status: 1 (submitted) or 0 (draft). */
export function toStatus(where: string, value: unknown): number {
  const text = toStoredValue(where, value);
  if (text !== String(SUBMITTED) && text !== String(DRAFT)) throw new InvalidInputError(`${where} must be 0 (draft) or 1 (submitted)`);
  return Number(text);
}

/** A file received before the record exists, already stored by content. */
export interface UploadedFile extends Omit<NewFile, "ref"> {}

export interface AddRecordInput {
  readonly blocId: string;
  readonly jobId: string | null;
  readonly values: Readonly<Record<string, unknown>>;
  readonly submittedStatus: number;
  readonly files: readonly UploadedFile[];
}

export interface AddedRecord {
  readonly id: number;
  /** Auto-generated values the server chose in place of ones the client sent. */
  readonly autogenerateReplacements: readonly Replacement[];
}

export async function addRecord(ctx: Context, principal: Principal, input: AddRecordInput): Promise<AddedRecord> {
  const access = await requireAccess(ctx, principal, input.blocId, "add");
  const { bloc } = access;
  checkJob(bloc, input.jobId);
  const values = storedValues(bloc, "dataToAdd", input.values);
  const files: NewFile[] = input.files.map((file) => {
    const field = fieldOf(bloc, "a file part", file.slug);
    if (field.type !== "file") throw new InvalidInputError(`the file part ${file.slug} names a field that is not a file field`);
    const ref = ctx.newFileRef();
    values[file.slug] = ref;
    return { ...file, ref };
  });
  if (new Set(files.map((f) => f.slug)).size !== files.length) throw new InvalidInputError("one file per file field");
  for (const field of bloc.fields) {
    if (field.type !== "autogenerate") checkValue(field, values[field.slug], true);
  }
  checkProfileWrite(access, principal, values, true);
  const createdAt = ctx.now();
  const slugs = bloc.fields.map((f) => f.slug);
  const record = { blocId: bloc.id, createdAt, userId: principal.user.id, submittedStatus: input.submittedStatus, jobId: input.jobId, values };
  const inserted = await ctx.store.transaction((tx) => insertRecord(tx, record, {
      unique: bloc.fields.filter((f) => f.unique && f.type !== "autogenerate"),
      autogenerate: bloc.fields.filter((f) => f.type === "autogenerate").map((field) => ({
        field, sent: values[field.slug] ?? "", template: template(parseFormat(field.format!, slugs), createdAt, values),
      })),
      scanLimit: bloc.scanLimit === null ? null
        : { limit: bloc.scanLimit, since: periodStart(bloc.scanLimitPeriod, createdAt), period: bloc.scanLimitPeriod },
      files,
  }), { group: bloc.id });
  return { id: inserted.id, autogenerateReplacements: inserted.replacements };
}

/** Every value a bloc keeps distinct: unique fields, and autogenerate fields within their counter's group. */
function uniqueKeys(bloc: Bloc): UniqueKey[] {
  const slugs = bloc.fields.map((f) => f.slug);
  return bloc.fields.flatMap((field): UniqueKey[] => {
    if (field.type === "autogenerate") return [{ field, groupBy: parseFormat(field.format!, slugs).groupBy }];
    return field.unique ? [{ field, groupBy: null }] : [];
  });
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
  readonly countLimitInfo: CountLimitInfo;
}

export async function readRecords(ctx: Context, principal: Principal, input: ReadRecordsInput): Promise<RecordsPage> {
  const { bloc, visibility } = await requireAccess(ctx, principal, input.blocId, "read");
  const filter = { blocId: bloc.id, visibility, ...input.window };
  // One snapshot: the page, its count, its value counts and the scan-limit state agree.
  const [records, count, fieldCounts, limitInfo] = await ctx.store.snapshot((view) => Promise.all([
    listRecords(view, filter, { order: input.order, limit: input.limit, offset: (input.page - 1) * input.limit }),
    countRecords(view, filter),
    countValues(view, filter, bloc.fields.map((field) => field.slug), ctx.fieldCountsLimit),
    countLimitInfo(view, ctx.now(), bloc, visibility),
  ]));
  return { bloc, records, count, fieldCounts, countLimitInfo: limitInfo };
}

export interface UpdateRecordsInput {
  readonly blocId: string;
  readonly set: Readonly<Record<string, unknown>>;
  readonly search: Readonly<Record<string, unknown>>;
}

/**
 * Sets `set` on every record the principal may see whose values equal all of
 * `search` exactly; returns their IDs ascending. `submitted_status` may be both set
 * and searched; `service_entry_row_id` searched only.
 */
export async function updateRecords(ctx: Context, principal: Principal, input: UpdateRecordsInput): Promise<number[]> {
  const access = await requireAccess(ctx, principal, input.blocId, "update");
  const { bloc, visibility } = access;
  if (RECORD_ID_KEY in input.set) throw new InvalidInputError(`fieldsToUpdate cannot change ${RECORD_ID_KEY}`);
  const { [STATUS_KEY]: status, ...fieldInput } = input.set;
  const values = storedValues(bloc, "fieldsToUpdate", fieldInput);
  for (const [slug, value] of Object.entries(values)) checkValue(fieldOf(bloc, "fieldsToUpdate", slug), value, false);
  const match: MatchCondition[] = Object.entries(input.search).map(([key, value]) => {
    if (key !== RECORD_ID_KEY && key !== STATUS_KEY) fieldOf(bloc, "searchItems", key);
    return { key, values: [toStoredValue(`searchItems.${key}`, value)] };
  });
  checkProfileWrite(access, principal, values, false);
  const written = status === undefined ? values : { ...values, [STATUS_KEY]: String(toStatus(`fieldsToUpdate.${STATUS_KEY}`, status)) };
  return ctx.store.transaction((tx) => updateMatching(tx, { blocId: bloc.id, visibility, match }, written, uniqueKeys(bloc)));
}

import { InvalidInputError } from "./errors.js";
import {
  DRAFT, RECORD_ID_KEY, STATUS_KEY, SUBMITTED,
  type Bloc, type Field, type MatchCondition, type Order, type StoredRecord,
} from "./model.js";
import type { Context } from "./context.js";
import type { DateWindow } from "./dates.js";
import type { NewFile, Tx } from "./ports/store.js";
import { listFieldCounts, valuesToRead, type FieldCounts } from "./field-counts.js";
import { checkProfileWrite, requireAccess, type Principal } from "./access.js";
import { parseFormat, template } from "./autogenerate.js";
import { checkValues } from "./field-rules.js";
import { addOnce, idempotentRequest } from "./idempotency.js";
import { checkJob } from "./modules.js";
import { countLimitInfo, periodStart, type CountLimitInfo } from "./scan-limit.js";
import { countVisibleRecords, countValues, listVisibleRecords } from "./record-queries.js";
import { insertRecord, updateRecords as updateMatching, type AddedRecord, type UniqueKey } from "./record-writes.js";
import { checkFieldCount, checkValueSize, ownValue, toStoredValue, type RecordLimits } from "./values.js";

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
function storedValues(
  bloc: Bloc, where: string, input: Readonly<Record<string, unknown>>, limits: RecordLimits,
): Record<string, string> {
  checkFieldCount(where, input, limits);
  // No prototype: a slug such as "toString" (allowed before such slugs were refused) reads only what was sent.
  const values = Object.create(null) as Record<string, string>;
  for (const [slug, value] of Object.entries(input)) {
    const field = fieldOf(bloc, where, slug);
    const stored = toStoredValue(`${where}.${slug}`, value);
    checkValueSize(`${where}.${slug}`, stored, limits);
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
export type UploadedFile = Omit<NewFile, "ref">;

export interface AddRecordInput {
  readonly blocId: string;
  readonly jobId: string | null;
  readonly values: Readonly<Record<string, unknown>>;
  readonly submittedStatus: number;
  readonly files: readonly UploadedFile[];
  /** The client's Idempotency-Key: a repeat of the request answers what the first one did. */
  readonly idempotencyKey?: string | undefined;
}

export async function addRecord(ctx: Context, principal: Principal, input: AddRecordInput): Promise<AddedRecord> {
  const access = await requireAccess(ctx, principal, input.blocId, "add");
  const { bloc } = access;
  checkJob(bloc, input.jobId);
  const values = storedValues(bloc, "dataToAdd", input.values, ctx.limits);
  const files: NewFile[] = input.files.map((file) => {
    const field = fieldOf(bloc, "a file part", file.slug);
    if (field.type !== "file") throw new InvalidInputError(`the file part ${file.slug} names a field that is not a file field`);
    const ref = ctx.newFileRef();
    values[file.slug] = ref;
    return { ...file, ref };
  });
  if (new Set(files.map((f) => f.slug)).size !== files.length) throw new InvalidInputError("one file per file field");
  checkValues(bloc.fields.filter((f) => f.type !== "autogenerate").map((f) => [f, ownValue(values, f.slug)] as const), true);
  checkProfileWrite(access, principal, values, true);
  const createdAt = ctx.now();
  const slugs = bloc.fields.map((f) => f.slug);
  const record = { blocId: bloc.id, createdAt, userId: principal.user.id, submittedStatus: input.submittedStatus, jobId: input.jobId, values };
  const insert = async (tx: Tx): Promise<AddedRecord> => {
    const inserted = await insertRecord(tx, record, {
      unique: bloc.fields.filter((f) => f.unique && f.type !== "autogenerate"),
      autogenerate: bloc.fields.filter((f) => f.type === "autogenerate").map((field) => ({
        field, sent: ownValue(values, field.slug) ?? "", template: template(parseFormat(field.format!, slugs), createdAt, values),
      })),
      scanLimit: bloc.scanLimit === null ? null
        : { limit: bloc.scanLimit, since: periodStart(bloc.scanLimitPeriod, createdAt), period: bloc.scanLimitPeriod },
      files,
      tokenId: principal.tokenId,
    });
    return { id: inserted.id, autogenerateReplacements: inserted.replacements };
  };
  const request = idempotentRequest(input.idempotencyKey, {
    blocId: bloc.id, jobId: input.jobId, values: input.values, submittedStatus: input.submittedStatus, files: input.files,
  });
  if (!request) {
    const added = await ctx.store.transaction(insert, { group: bloc.id });
    ctx.telemetry.recordsAdded(1);
    ctx.events.appended(bloc.id);
    return added;
  }
  const { answer, repeat } = await addOnce(ctx, principal.user.id, request, bloc.id, insert);
  if (!repeat) {
    ctx.telemetry.recordsAdded(1);
    ctx.events.appended(bloc.id);
  }
  // A repeat's files go to no record: their uploads let go of the content (kept: the first request's record uses it).
  if (repeat) await releaseUploads(ctx, input.files);
  return answer;
}

/** Releases uploads' holds on their content, removing content no record or other upload uses. */
async function releaseUploads(ctx: Context, files: readonly UploadedFile[]): Promise<void> {
  for (const file of files) {
    await ctx.store.files.releaseContent(file.hold, file.sha256, () => ctx.blobs.removeNow(file.sha256));
  }
}

/**
 * Whether the principal may upload a file for the file field `slug` of the bloc: asked
 * before any byte of the file is written, so that a user who may not add to a bloc
 * cannot fill the disk through it.
 */
export async function checkUpload(ctx: Context, principal: Principal, blocId: string, slug: string): Promise<void> {
  const { bloc } = await requireAccess(ctx, principal, blocId, "add");
  const field = fieldOf(bloc, "a file part", slug);
  if (field.type !== "file") throw new InvalidInputError(`the file part ${slug} names a field that is not a file field`);
}

/** Every value a bloc keeps distinct: unique fields, and autogenerate fields within their counter's group. */
export function uniqueKeys(bloc: Bloc): UniqueKey[] {
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
  readonly fieldCounts: FieldCounts;
  readonly countLimitInfo: CountLimitInfo;
}

/**
 * Bytes of record data (as stored JSON text) one get-data page may carry. Old records
 * can be of any size; a page that would hold more is refused, asking for fewer records.
 */
export const PAGE_BYTES = 8 * 1024 * 1024;

/** Refuses a page cut short by its byte budget, or whose one record is over it on its own. */
function checkPageSize(records: readonly StoredRecord[], count: number, input: ReadRecordsInput): void {
  const expected = Math.max(0, Math.min(input.limit, count - (input.page - 1) * input.limit));
  const budget = `${PAGE_BYTES / (1024 * 1024)} MiB`;
  if (records.length < expected) {
    throw new InvalidInputError(`the ${expected} records of this page hold more than ${budget} of data, more than one answer `
      + `carries: ask for fewer records per page (resultLimit ${input.limit} is too many here)`);
  }
  if (records.length === 1 && Buffer.byteLength(JSON.stringify(records[0]!.values)) > PAGE_BYTES) {
    throw new InvalidInputError(`the record on this page holds more than ${budget} of data, more than one answer carries: `
      + "read it with get-data-report, which streams");
  }
}

export async function readRecords(ctx: Context, principal: Principal, input: ReadRecordsInput): Promise<RecordsPage> {
  const { bloc, visibility } = await requireAccess(ctx, principal, input.blocId, "read");
  const filter = { blocId: bloc.id, visibility, ...input.window };
  const slugs = bloc.fields.map((field) => field.slug);
  // One snapshot: the page, its count, its value counts and the scan-limit state agree.
  const [records, count, values, limitInfo] = await ctx.store.snapshot((view) => Promise.all([
    listVisibleRecords(view, filter, {
      order: input.order, limit: input.limit, offset: (input.page - 1) * input.limit, maxBytes: PAGE_BYTES,
    }),
    countVisibleRecords(view, filter),
    countValues(view, filter, slugs, valuesToRead(ctx.fieldCountsLimit)),
    countLimitInfo(view, ctx.now(), bloc, visibility),
  ]));
  checkPageSize(records, count, input);
  return { bloc, records, count, fieldCounts: listFieldCounts(slugs, values, ctx.fieldCountsLimit), countLimitInfo: limitInfo };
}

/**
 * `searchItems` as conditions: each key a field slug, `service_entry_row_id` or
 * `submitted_status`, each value what a record must hold there exactly.
 */
export function searchConditions(bloc: Bloc, search: Readonly<Record<string, unknown>>, limits: RecordLimits): MatchCondition[] {
  checkFieldCount("searchItems", search, limits);
  return Object.entries(search).map(([key, value]) => {
    if (key !== RECORD_ID_KEY && key !== STATUS_KEY) fieldOf(bloc, "searchItems", key);
    const stored = toStoredValue(`searchItems.${key}`, value);
    checkValueSize(`searchItems.${key}`, stored, limits);
    return { key, values: [stored] };
  });
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
  if (Object.hasOwn(input.set, RECORD_ID_KEY)) throw new InvalidInputError(`fieldsToUpdate cannot change ${RECORD_ID_KEY}`);
  const { [STATUS_KEY]: status, ...fieldInput } = input.set;
  const values = storedValues(bloc, "fieldsToUpdate", fieldInput, ctx.limits);
  checkFieldCount("searchItems", input.search, ctx.limits);
  checkValues(Object.entries(values).map(([slug, value]) => [fieldOf(bloc, "fieldsToUpdate", slug), value] as const), false);
  const match = searchConditions(bloc, input.search, ctx.limits);
  checkProfileWrite(access, principal, values, false);
  const written = status === undefined ? values : { ...values, [STATUS_KEY]: String(toStatus(`fieldsToUpdate.${STATUS_KEY}`, status)) };
  const actor = { userId: principal.user.id, tokenId: principal.tokenId, at: ctx.now() };
  const ids = await ctx.store.transaction((tx) => updateMatching(tx, { blocId: bloc.id, visibility, match }, written, uniqueKeys(bloc), actor));
  ctx.telemetry.recordsUpdated(ids.length);
  if (ids.length > 0) ctx.events.appended(bloc.id);
  return ids;
}
